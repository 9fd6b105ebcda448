package main

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A matcher finds the lines of a text that match a regular expression.
//
// Running the regexp engine over every line is slow, so a matcher first
// looks for a literal that every match must contain, with the processor's
// fast byte search, and runs the regexp only on the lines where it occurs.
// When the pattern is nothing but that literal, it does not run it at all.
type matcher struct {
	re *regexp.Regexp

	lit   []byte // every match contains this, when not nil
	exact bool   // a line matches if and only if it contains lit
	fold  bool   // lit is matched without regard to case
	runes []rune // lit, when fold

	// Candidates for lit are found by searching for one of its bytes that
	// is rare in source code, rare[0] or rare[1] (its two cases, when
	// fold), which is preceded in lit by ahead bytes (runes, when fold).
	rare  [2]byte
	ahead int
}

func newMatcher(pattern string, ignoreCase bool) (*matcher, error) {
	if ignoreCase {
		pattern = "(?i)" + pattern
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	m := &matcher{re: re}
	parsed, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return m, nil // unreachable: regexp parsed it
	}
	parsed = parsed.Simplify()
	runes, fold := required(parsed)
	if len(runes) == 0 || slices.Contains(runes, utf8.RuneError) {
		// U+FFFD in a pattern also matches any invalid byte in the text,
		// so it cannot be searched for as bytes.
		return m, nil
	}
	lit := []byte(string(runes))
	m.lit, m.fold, m.ahead = lit, fold, -1
	if !fold {
		for i, c := range lit {
			if m.ahead < 0 || rarity(c, false) > rarity(lit[m.ahead], false) {
				m.ahead = i
			}
		}
		m.rare = [2]byte{lit[m.ahead], lit[m.ahead]}
	} else {
		// The rare byte must be an ASCII character whose case variants
		// are all ASCII (not k: the Kelvin sign is a K too); ahead counts
		// characters.
		for i, r := range runes {
			if r < utf8.RuneSelf && asciiFoldOnly(r) && (m.ahead < 0 || rarity(byte(r), true) > rarity(byte(runes[m.ahead]), true)) {
				m.ahead = i
			}
		}
		if m.ahead < 0 {
			m.lit = nil // no byte of it can be searched for
			return m, nil
		}
		c := byte(runes[m.ahead])
		m.runes, m.rare = runes, [2]byte{lower(c), upper(c)}
	}
	m.exact = parsed.Op == syntax.OpLiteral && !bytes.ContainsAny(m.lit, "\r\n")
	return m, nil
}

// required returns the longest literal that every match of re contains,
// and whether it is matched without regard to case; none if there is no
// such literal.
func required(re *syntax.Regexp) (lit []rune, fold bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return re.Rune, re.Flags&syntax.FoldCase != 0
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		// Consecutive literals with the same case rule form one literal;
		// any other part may require one of its own.
		better := func(l []rune, f bool) {
			if len(l) > len(lit) || len(l) == len(lit) && fold && !f {
				lit, fold = l, f
			}
		}
		var run []rune
		var runFold bool
		for _, sub := range re.Sub {
			if sub.Op == syntax.OpLiteral {
				f := sub.Flags&syntax.FoldCase != 0
				if len(run) > 0 && f != runFold {
					better(run, runFold)
					run = nil
				}
				run, runFold = append(run, sub.Rune...), f
				continue
			}
			better(run, runFold)
			run = nil
			better(required(sub))
		}
		better(run, runFold)
	}
	return lit, fold
}

// asciiFoldOnly reports whether an ASCII character's case variants are all
// ASCII: true for every one but k and s, which the Kelvin sign and the long
// s also match.
func asciiFoldOnly(c rune) bool {
	for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
		if f >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// commonBytes are the bytes of source code, most frequent first, as
// counted over Go's source tree. Bytes not listed are rarer still.
const commonBytes = "\n\t etrniasocl,0dfu()p./xmhg1\"=bSTy2{}E:R_4AC6vIPwOk3D8NML5FB-97V[]*\\HGUX+;!zW%&Yq'<K`Q$|j>J#Z^?~@"

// rarity ranks how rare c is in source code, counting both its cases
// when fold: higher is rarer.
func rarity(c byte, fold bool) int {
	i := strings.IndexByte(commonBytes, c)
	if fold {
		i = strings.IndexByte(commonBytes, lower(c))
		if j := strings.IndexByte(commonBytes, upper(c)); j >= 0 && (i < 0 || j < i) {
			i = j
		}
	}
	if i < 0 {
		return len(commonBytes)
	}
	return i
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// candidate returns the offset of the first occurrence of the literal at
// or after from, or -1. next holds the offsets of the next occurrences of
// the two cases of the rare byte between calls (-2: not searched for yet,
// -1: none left).
func (m *matcher) candidate(text []byte, from int, next *[2]int) int {
	for {
		min := from + m.ahead // the literal cannot start before from
		for k, c := range m.rare {
			if k == 1 && c == m.rare[0] {
				next[1] = next[0] // one case: one search does
			} else if next[k] != -1 && next[k] < min {
				next[k] = indexFrom(text, c, min)
			}
		}
		at := next[0]
		if at < 0 || next[1] >= 0 && next[1] < at {
			at = next[1]
		}
		if at < 0 {
			return -1
		}
		if start, ok := m.occursAt(text, at); ok && start >= from {
			return start
		}
		from = at - m.ahead + 1
	}
}

// occursAt reports whether the literal occurs in text with its rare byte at
// offset at, and where it starts. Case-insensitively, it compares character
// by character, as a variant of a character may have another length.
func (m *matcher) occursAt(text []byte, at int) (start int, ok bool) {
	if !m.fold {
		start = at - m.ahead
		return start, start >= 0 && start+len(m.lit) <= len(text) && bytes.Equal(text[start:start+len(m.lit)], m.lit)
	}
	start = at
	for k := m.ahead - 1; k >= 0; k-- {
		r, size := utf8.DecodeLastRune(text[:start])
		if size == 0 || !equalFold(r, m.runes[k]) {
			return 0, false
		}
		start -= size
	}
	end := at
	for _, want := range m.runes[m.ahead:] {
		r, size := utf8.DecodeRune(text[end:])
		if size == 0 || !equalFold(r, want) {
			return 0, false
		}
		end += size
	}
	return start, true
}

// equalFold reports whether two characters are the same under Unicode
// case folding, as (?i) has it.
func equalFold(r, want rune) bool {
	if r == want {
		return true
	}
	for f := unicode.SimpleFold(want); f != want; f = unicode.SimpleFold(f) {
		if f == r {
			return true
		}
	}
	return false
}

func indexFrom(text []byte, c byte, from int) int {
	if from >= len(text) {
		return -1
	}
	if i := bytes.IndexByte(text[from:], c); i >= 0 {
		return from + i
	}
	return -1
}

// lines calls fn for every line of text the matcher matches, in order, with
// the line's number (from 1), its content without the line ending (\n or
// \r\n), and the offset of the match in it if that came for free, else -1. Lines are what \n separates; a
// final \n ends the last line rather than starting an empty one. fn returns
// false to stop early.
func (m *matcher) lines(text []byte, fn func(num int, line []byte, at int) bool) {
	num, counted := 1, 0 // num is the number of the line starting at counted
	if m.lit == nil {
		for start := 0; start < len(text); num++ {
			end := indexFrom(text, '\n', start)
			if end < 0 {
				end = len(text)
			}
			if line := trimCR(text[start:end]); m.re.Match(line) && !fn(num, line, -1) {
				return
			}
			start = end + 1
		}
		return
	}
	next := [2]int{-2, -2}
	for from := 0; from < len(text); {
		i := m.candidate(text, from, &next)
		if i < 0 {
			return
		}
		// from is always the start of a line, so the candidate's line
		// starts after the last \n between the two.
		start := from + bytes.LastIndexByte(text[from:i], '\n') + 1
		end := indexFrom(text, '\n', i)
		if end < 0 {
			end = len(text)
		}
		num += bytes.Count(text[counted:start], []byte{'\n'})
		counted = start
		line := trimCR(text[start:end])
		switch {
		case m.exact:
			if !fn(num, line, i-start) {
				return
			}
		case m.re.Match(line):
			if !fn(num, line, -1) {
				return
			}
		}
		from = end + 1
	}
}

func trimCR(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		return line[:n-1]
	}
	return line
}
