package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/ikigai-tools/ikigai/internal/display"
)

// fullKey shows tool results and the model's thinking whole, or folds
// them again.
const fullKey = "ctrl+o"

// thoughts is what the UI keeps of the model's thinking: shown dimmed, its
// latest line while the model thinks, then folded to one line unless the
// user asked to see it in full.
type thoughts struct {
	current string // the thinking of the answer under way
	last    string // the thinking last folded, for the key to show
	full    bool   // thinking is printed in full
}

// add takes the next piece of the model's thinking.
func (t *thoughts) add(text string) { t.current += display.Clean(text) }

// line is the latest line of the thinking under way, for below the
// scrollback; "" when the model is not thinking.
func (t *thoughts) line(width int) string {
	text := strings.TrimRight(t.current, "\n")
	if text == "" {
		return ""
	}
	if i := strings.LastIndexByte(text, '\n'); i >= 0 {
		text = text[i+1:]
	}
	return styled(toolStyle, ansi.Truncate("✻ "+text, width, "…"))
}

// end returns what the scrollback keeps of the thinking that just ended:
// one folded line, or all of it.
func (t *thoughts) end() []string {
	text := strings.TrimSpace(t.current)
	t.current = ""
	if text == "" {
		return nil
	}
	t.last = text
	if t.full {
		return []string{styled(toolStyle, "✻ "+text)}
	}
	return []string{styled(toolStyle, folded(text))}
}

// folded is the one line that stands for thinking.
func folded(text string) string {
	first, _, _ := strings.Cut(text, "\n")
	n := strings.Count(text, "\n") + 1
	return fmt.Sprintf("✻ Thought: %s (%d lines; Ctrl-O shows thinking)", ansi.Truncate(first, 60, "…"), n)
}

// toggle switches between folded and full thinking, and returns what to
// print: the last thinking in full when it was folded.
func (t *thoughts) toggle() (lines []string, hint string) {
	t.full = !t.full
	if !t.full {
		return nil, "Thinking is folded to one line from now on."
	}
	if t.last != "" {
		lines = []string{styled(toolStyle, "✻ "+t.last)}
	}
	return lines, "Thinking is shown in full from now on; Ctrl-O folds it."
}
