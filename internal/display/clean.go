package display

import (
	"io"
	"strings"
)

// Clean makes text from a model or a tool safe to show on a terminal:
// control characters other than newlines (escape sequences among them) and
// the Unicode controls that reorder text (bidirectional overrides,
// embeddings and isolates) are dropped, so that nothing but ikigai moves
// the cursor or changes the terminal, and what is shown reads in the order
// it is. A tab becomes four spaces.
func Clean(s string) string {
	if !strings.ContainsFunc(s, isUnsafe) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\t':
			b.WriteString("    ")
		case !isUnsafe(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isUnsafe(r rune) bool {
	switch {
	case r == '\n':
		return false
	case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0: // C0, DEL, C1
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069: // bidi embeddings, overrides, isolates
		return true
	}
	return false
}

// TerminalWriter returns a writer that cleans what is written to w, which
// is a terminal, as Clean does. Each write must hold whole characters, as
// one fmt.Fprintln call does.
func TerminalWriter(w io.Writer) io.Writer { return cleanWriter{w} }

type cleanWriter struct{ w io.Writer }

func (c cleanWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(c.w, Clean(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
