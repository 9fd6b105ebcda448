package main

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
)

// A matcher finds the lines of a text that match a regular expression.
//
// Running the regexp engine over every line is slow, so a matcher first
// looks for literals one of which every match must contain (one, or one
// per branch of an alternation), with the processor's fast byte search,
// and matches only the lines where one occurs, on a lazily built DFA (see
// dfa). When the pattern is nothing but those literals, it matches none.
// A pattern with no such literal runs on the DFA over the whole text.
type matcher struct {
	re    *regexp.Regexp
	lits  []*literal // every match contains one of these, when not nil
	exact bool       // a line matches if and only if it contains one
	dfas  *sync.Pool // of *dfa
	// gaveUp is set when a dfa gives up on the pattern: the regexp
	// engine matches lines from then on.
	gaveUp atomic.Bool
}

// maxLiterals is the most literals a matcher searches for at once: each is
// a search of its own through the text, so the set is kept small.
const maxLiterals = 8

// A literal is a string searched for by one of its bytes that is rare in
// source code: rare[0] or rare[1] (its two cases, when fold), preceded in
// the literal by ahead bytes (characters, when fold).
type literal struct {
	text  []byte
	fold  bool   // matched without regard to case
	runes []rune // text, when fold
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
		return nil, err // unreachable: regexp parsed it
	}
	parsed = parsed.Simplify()
	var lits []*literal
	for _, r := range required(parsed) {
		l := newLiteral(r)
		if l == nil {
			lits = nil // one that cannot be searched for spoils the set
			break
		}
		lits = append(lits, l)
	}
	prog, err := syntax.Compile(parsed)
	if err != nil {
		return nil, err // unreachable: regexp compiled it
	}
	m.dfas = &sync.Pool{New: func() any { return newDFA(prog) }}
	m.lits = lits
	m.exact = len(m.lits) > 0 && onlyLiterals(parsed)
	for _, l := range m.lits {
		m.exact = m.exact && !bytes.ContainsAny(l.text, "\r\n")
	}
	return m, nil
}

// newLiteral prepares a literal for searching, or returns nil if no byte of
// it can be searched for.
func newLiteral(r *syntax.Regexp) *literal {
	runes, fold := r.Rune, r.Flags&syntax.FoldCase != 0
	if slices.Contains(runes, utf8.RuneError) {
		// U+FFFD in a pattern also matches any invalid byte in the text.
		return nil
	}
	l := &literal{text: []byte(string(runes)), fold: fold, ahead: -1}
	if !fold {
		for i, c := range l.text {
			if l.ahead < 0 || rarity(c, false) > rarity(l.text[l.ahead], false) {
				l.ahead = i
			}
		}
		l.rare = [2]byte{l.text[l.ahead], l.text[l.ahead]}
		return l
	}
	// The rare byte must be an ASCII character whose case variants are all
	// ASCII (not k: the Kelvin sign is a K too); ahead counts characters.
	for i, r := range runes {
		if r < utf8.RuneSelf && asciiFoldOnly(r) && (l.ahead < 0 || rarity(byte(r), true) > rarity(byte(runes[l.ahead]), true)) {
			l.ahead = i
		}
	}
	if l.ahead < 0 {
		return nil
	}
	c := byte(runes[l.ahead])
	l.runes, l.rare = runes, [2]byte{lower(c), upper(c)}
	return l
}

// required returns literals (OpLiteral nodes), one of which every match of
// re contains; none if there are no such literals, or too many.
func required(re *syntax.Regexp) []*syntax.Regexp {
	switch re.Op {
	case syntax.OpLiteral:
		return []*syntax.Regexp{re}
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpAlternate:
		var set []*syntax.Regexp
		for _, sub := range re.Sub {
			s := required(sub)
			if s == nil || len(set)+len(s) > maxLiterals {
				return nil
			}
			set = append(set, s...)
		}
		return set
	case syntax.OpConcat:
		// Consecutive literals with the same case rule form one literal;
		// any other part may require literals of its own. The set whose
		// shortest literal is longest is the most selective.
		var best []*syntax.Regexp
		better := func(set []*syntax.Regexp) {
			if set != nil && (best == nil || shortest(set) > shortest(best) ||
				shortest(set) == shortest(best) && len(set) < len(best)) {
				best = set
			}
		}
		var run *syntax.Regexp
		for _, sub := range re.Sub {
			if sub.Op != syntax.OpLiteral {
				if run != nil {
					better([]*syntax.Regexp{run})
				}
				run = nil
				better(required(sub))
				continue
			}
			if run != nil && run.Flags&syntax.FoldCase == sub.Flags&syntax.FoldCase {
				run = &syntax.Regexp{Op: syntax.OpLiteral, Flags: run.Flags, Rune: slices.Concat(run.Rune, sub.Rune)}
				continue
			}
			if run != nil {
				better([]*syntax.Regexp{run})
			}
			run = sub
		}
		if run != nil {
			better([]*syntax.Regexp{run})
		}
		return best
	}
	return nil
}

func shortest(set []*syntax.Regexp) int {
	n := len(set[0].Rune)
	for _, r := range set[1:] {
		n = min(n, len(r.Rune))
	}
	return n
}

// onlyLiterals reports whether re is a literal, or an alternation of them.
func onlyLiterals(re *syntax.Regexp) bool {
	if re.Op == syntax.OpAlternate {
		return !slices.ContainsFunc(re.Sub, func(sub *syntax.Regexp) bool { return sub.Op != syntax.OpLiteral })
	}
	return re.Op == syntax.OpLiteral
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

// searchState is where the literals were last seen in a text: for each,
// its next occurrence (-2: not searched for yet, -1: none left) and the
// next occurrences of the two cases of its rare byte.
type searchState struct {
	next []int
	rare [][2]int
}

func (m *matcher) newSearch() *searchState {
	s := &searchState{next: make([]int, len(m.lits)), rare: make([][2]int, len(m.lits))}
	for i := range m.lits {
		s.next[i], s.rare[i] = -2, [2]int{-2, -2}
	}
	return s
}

// candidate returns the offset of the first occurrence of any literal at or
// after from, or -1.
func (m *matcher) candidate(text []byte, from int, s *searchState) int {
	first := -1
	for i, l := range m.lits {
		if s.next[i] != -1 && s.next[i] < from {
			s.next[i] = l.index(text, from, &s.rare[i])
		}
		if s.next[i] >= 0 && (first < 0 || s.next[i] < first) {
			first = s.next[i]
		}
	}
	return first
}

// index returns the offset of the first occurrence of the literal at or
// after from, or -1. rare holds the offsets of the next occurrences of the
// two cases of its rare byte between calls.
func (l *literal) index(text []byte, from int, rare *[2]int) int {
	for {
		min := from + l.ahead // the literal cannot start before from
		for k, c := range l.rare {
			if k == 1 && c == l.rare[0] {
				rare[1] = rare[0] // one case: one search does
			} else if rare[k] != -1 && rare[k] < min {
				rare[k] = indexFrom(text, c, min)
			}
		}
		at := rare[0]
		if at < 0 || rare[1] >= 0 && rare[1] < at {
			at = rare[1]
		}
		if at < 0 {
			return -1
		}
		if start, ok := l.occursAt(text, at); ok && start >= from {
			return start
		}
		from = at - l.ahead + 1
	}
}

// occursAt reports whether the literal occurs in text with its rare byte at
// offset at, and where it starts. Case-insensitively, it compares character
// by character, as a variant of a character may have another length.
func (l *literal) occursAt(text []byte, at int) (start int, ok bool) {
	if !l.fold {
		start = at - l.ahead
		return start, start >= 0 && start+len(l.text) <= len(text) && bytes.Equal(text[start:start+len(l.text)], l.text)
	}
	start = at
	for k := l.ahead - 1; k >= 0; k-- {
		r, size := utf8.DecodeLastRune(text[:start])
		if size == 0 || !equalFold(r, l.runes[k]) {
			return 0, false
		}
		start -= size
	}
	end := at
	for _, want := range l.runes[l.ahead:] {
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
// \r\n), and the offset of the match in it if that came for free, else
// -1. Lines are what \n separates; a final \n ends the last line rather
// than starting an empty one.
func (m *matcher) lines(text []byte, fn func(num int, line []byte, at int)) {
	d := m.dfas.Get().(*dfa)
	defer m.dfas.Put(d)
	if m.lits == nil {
		m.allLines(d, text, fn)
		return
	}
	num, counted := 1, 0 // num is the number of the line starting at counted
	state := m.newSearch()
	for from := 0; from < len(text); {
		i := m.candidate(text, from, state)
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
			fn(num, line, i-start)
		case m.match(d, line):
			fn(num, line, -1)
		}
		from = end + 1
	}
}

// allLines is lines for a matcher with no literals: every line is read.
func (m *matcher) allLines(d *dfa, text []byte, fn func(num int, line []byte, at int)) {
	from, num := 0, 1
	if !m.gaveUp.Load() {
		var ok bool
		if ok, from, num = d.lines(text, fn); ok {
			return
		}
		m.gaveUp.Store(true)
	}
	for from < len(text) {
		end := indexFrom(text, '\n', from)
		if end < 0 {
			end = len(text)
		}
		if line := trimCR(text[from:end]); m.re.Match(line) {
			fn(num, line, -1)
		}
		from, num = end+1, num+1
	}
}

// match reports whether the pattern matches a line.
func (m *matcher) match(d *dfa, line []byte) bool {
	if !m.gaveUp.Load() {
		if matches, ok := d.match(line); ok {
			return matches
		}
		m.gaveUp.Store(true)
	}
	return m.re.Match(line)
}

func trimCR(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		return line[:n-1]
	}
	return line
}
