package tui

import (
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// Highlighting adds styles and nothing else.
func TestHighlightShell(t *testing.T) {
	saved := noColor
	noColor = false
	defer func() { noColor = saved }()
	for _, line := range []string{
		`go test ./... 2>&1 | grep -v "ok " > out.txt # keep it`,
		`FOO=1 make && echo $HOME ${PATH} 'it''s'`,
		`echo "unterminated`,
		`(cd sub; ls)`,
		``,
	} {
		got := highlightShell(line)
		if plain := ansi.Strip(got); plain != line {
			t.Errorf("highlightShell(%q) shows %q", line, plain)
		}
		if line != "" && got == line {
			t.Errorf("highlightShell(%q) added no style", line)
		}
	}
}
