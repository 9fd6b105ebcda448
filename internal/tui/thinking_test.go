package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"

	"github.com/ikigai-tools/ikigai/internal/agent"
)

// Thinking shows its latest line while it streams, then folds to one dim
// line above the answer; Ctrl-O shows it in full, and folds it again.
func TestThinking(t *testing.T) {
	s := newScreen(t)
	s.m.busy = true
	s.send(eventMsg{Kind: agent.ThinkingDelta, Text: "The user greets me.\nA short "})
	s.send(eventMsg{Kind: agent.ThinkingDelta, Text: "answer will do."})
	if v := s.view(); !strings.HasPrefix(v, "✻ A short answer will do.\n") || len(s.printed) != 0 {
		t.Errorf("while thinking, printed %q and shown:\n%s", s.printed, v)
	}
	s.send(eventMsg{Kind: agent.TextDelta, Text: "Hello."})
	s.send(eventMsg{Kind: agent.ResponseDone})
	want := []string{"✻ Thought: The user greets me. (2 lines; Ctrl-O shows thinking)", "Hello."}
	if d := cmp.Diff(want, strip(s.printed)); d != "" {
		t.Errorf("printed (-want +got):\n%s", d)
	}

	s.printed = nil
	s.send(tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl})
	if d := cmp.Diff([]string{"✻ The user greets me.", "A short answer will do."}, strip(s.printed)); d != "" {
		t.Errorf("Ctrl-O printed (-want +got):\n%s", d)
	}
	s.printed = nil
	s.send(eventMsg{Kind: agent.ThinkingDelta, Text: "Again."})
	s.send(eventMsg{Kind: agent.ResponseDone})
	if d := cmp.Diff([]string{"✻ Again."}, strip(s.printed)); d != "" {
		t.Errorf("in full (-want +got):\n%s", d)
	}
	s.send(tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl})
	if !strings.Contains(s.view(), "folded") {
		t.Errorf("no hint after folding again:\n%s", s.view())
	}
}

func strip(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = ansi.Strip(l)
	}
	return out
}
