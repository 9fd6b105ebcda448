package main

import (
	"strings"
	"testing"

	"charm.land/glamour/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"

	"github.com/ikigai-tools/ikigai/internal/markdown"
)

func plain(t *testing.T, text string, width int) []string {
	t.Helper()
	renderers := map[int]*glamour.TermRenderer{}
	out, err := render(func(wrap int) (*glamour.TermRenderer, error) {
		if renderers[wrap] == nil {
			r, err := glamour.NewTermRenderer(glamour.WithStyles(style()), glamour.WithWordWrap(wrap))
			if err != nil {
				return nil, err
			}
			renderers[wrap] = r
		}
		return renderers[wrap], nil
	}, markdown.Request{Text: text, Width: width})
	if err != nil {
		t.Fatal(err)
	}
	lines := markdown.Trim(out)
	for i, l := range lines {
		lines[i] = strings.TrimRight(ansi.Strip(l), " ")
	}
	return lines
}

// A list item's wrapped lines hang under its text, nested ones too, and
// every line fits the width.
func TestListsHang(t *testing.T) {
	got := plain(t, "1. Read the file\n2. Change the function so that it handles the long case and wraps nicely\n   - a nested item long enough to wrap at fifty columns", 50)
	want := []string{
		"  1. Read the file",
		"  2. Change the function so that it handles",
		"     the long case and wraps nicely",
		"    • a nested item long enough to wrap at",
		"      fifty columns",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// Emphasis and code marks are gone; a table is drawn; nothing is wider
// than asked.
func TestBlocks(t *testing.T) {
	for _, block := range []string{"Some **bold** and `code` in a paragraph long enough to wrap at forty columns.", "| a | b |\n|---|---|\n| 1 | 2 |", "```go\nfunc main() {}\n```"} {
		for _, l := range plain(t, block, 40) {
			if strings.ContainsAny(l, "*`|") || ansi.StringWidth(l) > 40 {
				t.Errorf("%q renders %q", block, l)
			}
		}
	}
}

// A table is about as wide as its cells need, not as the screen; cells of
// wide characters or aligned text are not wrapped; a table wider than the
// screen still fits it.
func TestTablesFit(t *testing.T) {
	for _, tc := range []struct {
		table string
		want  []string
	}{
		{"| a | b |\n|---|---|\n| 1 | 22 |", []string{
			"   a   │ b",
			"  ─────┼────",
			"   1   │ 22",
		}},
		{"| name | 値 | note |\n|:--|--:|:-:|\n| 東京 | 1 | the first one |", []string{
			"   name │  値 │     note",
			"  ──────┼─────┼───────────────",
			"   東京 │   1 │ the first one",
		}},
	} {
		if diff := cmp.Diff(tc.want, plain(t, tc.table, 90)); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.table, diff)
		}
	}
	wide := "| " + strings.Repeat("word ", 30) + "| b |\n|---|---|\n| 1 | 2 |"
	for _, l := range plain(t, wide, 60) {
		if ansi.StringWidth(l) > 60 {
			t.Errorf("%q is wider than 60", l)
		}
	}
}
