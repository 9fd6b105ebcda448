package main

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ikigai-tools/ikigai/toolsdk/output"
)

// window is the part of a text to return, as file_read takes a file's:
// limit lines (0 for no limit) from line offset (1-based), within budget
// bytes of encoded output.
type window struct {
	offset, limit, budget int
}

// cut returns the window's lines of text, whether the budget ended them
// early, and the offset to continue from (0 at the end of the text).
func (w window) cut(text string) (out string, truncated bool, next int) {
	rest := text
	for i := 1; i < w.offset && rest != ""; i++ {
		j := strings.IndexByte(rest, '\n')
		if j < 0 {
			rest = ""
			break
		}
		rest = rest[j+1:]
	}
	var b strings.Builder
	used, lines := 0, 0
	for rest != "" && (w.limit == 0 || lines < w.limit) {
		line, after, found := strings.Cut(rest, "\n")
		if found {
			line += "\n"
		}
		n := output.EncodedLen(line)
		if used+n > w.budget {
			truncated = true
			if lines == 0 {
				b.WriteString(cutLine(strings.TrimSuffix(line, "\n"), w.offset, w.budget))
				lines, rest = 1, after
			}
			break
		}
		b.WriteString(line)
		used += n
		lines++
		rest = after
	}
	if rest != "" {
		next = w.offset + lines
	}
	return b.String(), truncated, next
}

// cutLine returns the start of a line too long for the budget, cut at a
// character boundary, and a marker saying how long the whole line is.
func cutLine(line string, number, budget int) string {
	marker := fmt.Sprintf("\n[... line %d is %d bytes long; the rest is omitted ...]", number, len(line))
	room := budget - output.EncodedLen(marker)
	end := 0
	for end < len(line) {
		_, size := utf8.DecodeRuneInString(line[end:])
		if room -= output.EncodedLen(line[end : end+size]); room < 0 {
			break
		}
		end += size
	}
	return line[:end] + marker
}
