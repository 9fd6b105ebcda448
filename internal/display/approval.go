package display

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Approval renders a call the user is asked to approve, whole: nothing of
// what would run is left out or shortened, however long, and characters
// that would not show (escape sequences, NUL, bidi overrides, zero-width
// characters, invalid UTF-8) are shown escaped, as Visible does. Every
// argument is on its own lines; for file_edit, the change is a diff of
// old_string against new_string; for file_write, the content is shown as
// added lines. The lines may be longer than a terminal is wide: the
// terminal UI wraps them.
func Approval(name string, args json.RawMessage) string {
	var edit struct {
		Path       *string `json:"file_path"`
		Old        *string `json:"old_string"`
		New        *string `json:"new_string"`
		Content    *string `json:"content"`
		ReplaceAll bool    `json:"replace_all"`
	}
	json.Unmarshal(args, &edit)
	var lines []string
	switch {
	case name == "file_edit" && edit.Path != nil && edit.Old != nil && edit.New != nil:
		head := fmt.Sprintf("→ file_edit: %s", *edit.Path)
		if edit.ReplaceAll {
			head += " (every occurrence)"
		}
		lines = append([]string{head}, Diff(*edit.Old, *edit.New)...)
	case name == "file_write" && edit.Path != nil && edit.Content != nil:
		// A file's CRLF line ends are not shown (splitLines), as a diff
		// does not show them; any other carriage return is.
		lines = []string{fmt.Sprintf("→ file_write: %s", *edit.Path)}
		for _, l := range splitLines(*edit.Content) {
			lines = append(lines, "+ "+l)
		}
	default:
		lines = []string{"→ " + name + ":"}
		pairs, ok := objectPairs(args)
		if !ok {
			pairs = []pair{{"arguments", string(args)}}
		}
		for _, p := range pairs {
			value := p.value
			var s string
			if json.Unmarshal([]byte(p.value), &s) == nil {
				value = s // a string is shown as its text
			}
			// Every carriage return of a command is shown: to bash it is
			// part of the line.
			vl := strings.Split(strings.TrimSuffix(value, "\n"), "\n")
			lines = append(lines, "  "+p.key+": "+vl[0])
			for _, l := range vl[1:] {
				lines = append(lines, "    "+l)
			}
		}
	}
	for i, l := range lines {
		lines[i] = Visible(l)
	}
	return strings.Join(lines, "\n")
}

// Visible shows every character of s that a terminal would not: control
// characters other than newline and tab (ESC, NUL, carriage return, C1),
// Unicode format characters (bidi overrides such as U+202E, zero-width
// spaces and joiners, tag characters) and line separators are written as
// Go escapes (\x1b, \x00, \r, \u202e), and each byte of invalid UTF-8 as
// \xNN. What is left prints as itself, so a reader sees every character
// that is there, in the order it is there.
func Visible(s string) string {
	if !strings.ContainsFunc(s, hidden) && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case hidden(r):
			q := strconv.QuoteRuneToASCII(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// hidden reports whether r would not show as itself on a terminal.
func hidden(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
		return true
	}
	return unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
}

// maxDiffLines bounds the inputs Diff compares line by line; past it the
// old text is shown removed and the new one added.
const maxDiffLines = 2000

// Diff compares two texts line by line and returns the lines of a diff:
// "- " for a removed line, "+ " for an added one, "  " for one both share.
func Diff(old, new string) []string {
	return diffLines(splitLines(old), splitLines(new))
}

// diffLines is Diff of texts split into lines.
func diffLines(a, b []string) []string {
	var out []string
	if len(a) > maxDiffLines || len(b) > maxDiffLines {
		for _, l := range a {
			out = append(out, "- "+l)
		}
		for _, l := range b {
			out = append(out, "+ "+l)
		}
		return out
	}
	// lcs[i][j] is the length of the longest common subsequence of a[i:]
	// and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			out = append(out, "  "+a[i])
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			out = append(out, "- "+a[i])
			i++
		default:
			out = append(out, "+ "+b[j])
			j++
		}
	}
	return out
}

// splitLines splits s into lines, without a last empty one for a final
// newline; "" is one empty line.
func splitLines(s string) []string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}
