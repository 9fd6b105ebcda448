package tui

import (
	"encoding/json"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/google/go-cmp/cmp"
	"github.com/ikigai-tools/ikigai/internal/agent"
	"github.com/ikigai-tools/ikigai/internal/approval"
	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/repl"
)

// "t" refuses the call with what the user types next, for the model; Esc
// goes back to the question first.
func TestApprovalTellWhy(t *testing.T) {
	s := newScreen(t)
	s.m.busy = true
	reply := make(chan answer, 1)
	s.send(askMsg{req: approval.Request{Tool: "bash", Args: json.RawMessage(`{"command":"rm -r build"}`)}, reply: reply})
	s.keys("t")
	s.send(tea.KeyPressMsg{Code: 'x', Text: "x"})
	s.send(tea.KeyPressMsg{Code: tea.KeyEscape})
	if v := s.view(); !strings.Contains(v, "Allow this call?") {
		t.Fatalf("Esc did not go back to the question:\n%s", v)
	}
	s.keys("t")
	if v := s.view(); !strings.HasPrefix(v, "Tell the model why") {
		t.Fatalf("after t:\n%s", v)
	}
	s.send(tea.PasteMsg{Content: "use make"})
	s.send(tea.KeyPressMsg{Code: tea.KeySpace, Text: " "})
	for _, r := range "cleanx" {
		s.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	s.send(tea.KeyPressMsg{Code: tea.KeyBackspace})
	if len(reply) != 0 {
		t.Fatal("answered before Enter")
	}
	s.keys("enter")
	if a := <-reply; a.yes || a.why != "use make clean" {
		t.Errorf("answer %+v", a)
	}
}

// The question does not say again the call whose line was just printed.
func TestApprovalNotRepeated(t *testing.T) {
	s := newScreen(t)
	s.m.busy = true
	args := json.RawMessage(`{"command":"make"}`)
	s.send(eventMsg{Kind: agent.ToolCall, Call: provider.ToolCall{ID: "1", Name: "bash", Arguments: args}})
	reply := make(chan answer, 1)
	s.send(askMsg{req: approval.Request{Tool: "bash", Args: args}, reply: reply})
	if d := cmp.Diff([]string{`→ bash: command="make"`, "  command: make"}, s.printed); d != "" {
		t.Errorf("printed (-want +got):\n%s", d)
	}
	// Arguments a hook changed are another call: it is named.
	s.keys("n")
	<-reply
	s.send(askMsg{req: approval.Request{Tool: "bash", Args: json.RawMessage(`{"command":"make -n"}`)}, reply: reply})
	if got := s.printed[len(s.printed)-2:]; !cmp.Equal(got, []string{"→ bash:", "  command: make -n"}) {
		t.Errorf("printed %q", got)
	}
}

// /diff's output is coloured: removed lines red, added ones green; a
// rewind puts the turn's prompt back at the prompt.
func TestDiffAndRewindResult(t *testing.T) {
	saved := noColor
	noColor = false
	defer func() { noColor = saved }()
	got := diffText("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n same")
	lines := strings.Split(got, "\n")
	if lines[3] != removeStyle.Render("-old") || lines[4] != addStyle.Render("+new") || lines[5] != " same" {
		t.Errorf("colours: %q", lines)
	}

	s := newScreen(t)
	s.m.busy = true
	s.send(doneMsg{res: repl.Result{Output: "Files restored.", Prompt: "fix the bug\nplease"}})
	if v := s.m.input.Value(); v != "fix the bug\nplease" {
		t.Errorf("the prompt holds %q", v)
	}
}
