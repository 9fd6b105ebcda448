package tui

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"
	"github.com/ikigai-tools/ikigai/internal/agent"
	"github.com/ikigai-tools/ikigai/internal/approval"
	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/repl"
)

func init() { noColor = true }

// screen drives a Model the way the program does, without a terminal: it
// delivers messages, and prints what the model prints once the print it
// asked for comes back, as the program would.
type screen struct {
	t        *testing.T
	m        *Model
	printed  []string
	inFlight string
	quit     bool
}

func newScreen(t *testing.T) *screen {
	s := &screen{t: t, m: newModel(context.Background(), &repl.Shell{}, &history{}, nil)}
	s.m.println = func(text string) tea.Cmd {
		s.inFlight = text
		return nil
	}
	return s
}

// send delivers msg and completes any print the model started. The
// commands it returns are not run: they include the cursor's blinking.
func (s *screen) send(msg tea.Msg) {
	s.t.Helper()
	s.m.Update(msg)
	s.settle()
}

func (s *screen) settle() {
	for s.m.printing {
		s.printed = append(s.printed, strings.Split(s.inFlight, "\n")...)
		s.m.Update(printedMsg{})
	}
	s.quit = s.m.done && len(s.m.out) == 0
}

func (s *screen) keys(keys ...string) {
	for _, k := range keys {
		var msg tea.KeyPressMsg
		switch k {
		case "enter":
			msg = tea.KeyPressMsg{Code: tea.KeyEnter}
		case "up":
			msg = tea.KeyPressMsg{Code: tea.KeyUp}
		case "down":
			msg = tea.KeyPressMsg{Code: tea.KeyDown}
		case "ctrl+c":
			msg = tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
		case "ctrl+d":
			msg = tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl}
		case "alt+enter":
			msg = tea.KeyPressMsg{Code: tea.KeyEnter, Mod: tea.ModAlt}
		default:
			for _, r := range k {
				s.send(tea.KeyPressMsg{Code: r, Text: string(r)})
			}
			continue
		}
		s.send(msg)
	}
}

func (s *screen) view() string { return ansi.Strip(s.m.View().Content) }

func TestStreamingText(t *testing.T) {
	s := newScreen(t)
	s.m.busy = true
	s.send(eventMsg{Kind: agent.TextDelta, Text: "Hel"})
	s.send(eventMsg{Kind: agent.TextDelta, Text: "lo\nWor"})
	if diff := cmp.Diff([]string{"Hello"}, s.printed); diff != "" {
		t.Errorf("printed (-want +got):\n%s", diff)
	}
	if v := s.view(); !strings.HasPrefix(v, "Wor\n") {
		t.Errorf("the unfinished line is not shown:\n%s", v)
	}
	s.send(eventMsg{Kind: agent.TextDelta, Text: "ld \x1b[2J\tok"})
	s.send(eventMsg{Kind: agent.ResponseDone})
	if diff := cmp.Diff([]string{"Hello", "World [2J    ok"}, s.printed); diff != "" {
		t.Errorf("printed (-want +got):\n%s", diff)
	}
}

// Lines keep their order although each print is a command of its own.
func TestToolLinesInOrder(t *testing.T) {
	s := newScreen(t)
	s.m.busy, s.m.since = true, time.Now()
	call := provider.ToolCall{Name: "bash", Arguments: json.RawMessage(`{"command":"ls"}`)}
	s.m.Update(eventMsg{Kind: agent.TextDelta, Text: "Looking"})
	s.m.Update(eventMsg{Kind: agent.ToolCall, Call: call})
	s.m.Update(eventMsg{Kind: agent.ToolResult, Call: call, Envelope: execute.Succeeded(json.RawMessage(`{"output":"a\nb","exit_code":0}`))})
	s.m.Update(eventMsg{Kind: agent.ToolResult, Call: call, Envelope: execute.Failed(execute.ToolTimeout, "Tool 'bash' timed out")})
	s.settle()
	want := []string{"Looking", `→ bash: command="ls"`, "← bash: a", "  b", "← bash: TOOL_TIMEOUT: Tool 'bash' timed out"}
	if diff := cmp.Diff(want, s.printed); diff != "" {
		t.Errorf("printed (-want +got):\n%s", diff)
	}
	if v := s.view(); !strings.Contains(v, "Thinking… 0s · Ctrl-C to cancel") {
		t.Errorf("view:\n%s", v)
	}
}

func TestSubmitAndFinish(t *testing.T) {
	s := newScreen(t)
	s.keys("first line\\", "enter", "second", "enter")
	if !s.m.busy {
		t.Fatal("not busy after a prompt")
	}
	if diff := cmp.Diff([]string{"", "> first line", "  second"}, s.printed); diff != "" {
		t.Errorf("echo (-want +got):\n%s", diff)
	}
	s.keys("more", "enter")
	if v := s.view(); !strings.Contains(v, "Still working") {
		t.Errorf("a prompt while busy is not refused:\n%s", v)
	}
	s.send(doneMsg{res: repl.Result{Outcome: &agent.Outcome{LimitReached: true, ToolTurns: 3}, Warnings: []string{"Warning: w"}}})
	s.send(doneMsg{err: errors.New("the server said no")})
	s.send(doneMsg{err: context.Canceled})
	want := []string{agent.LimitMessage(3), "Warning: w", "Error: the server said no", "Cancelled."}
	if diff := cmp.Diff(want, s.printed[3:]); diff != "" {
		t.Errorf("endings (-want +got):\n%s", diff)
	}
	if s.m.busy || s.m.input.Value() != "more" {
		t.Errorf("busy %v, input %q", s.m.busy, s.m.input.Value())
	}
}

func TestCtrlC(t *testing.T) {
	s := newScreen(t)
	cancelled := false
	s.m.busy, s.m.cancel = true, func() { cancelled = true }
	s.keys("ctrl+c")
	if !cancelled || !strings.Contains(s.view(), "Cancelling…") {
		t.Errorf("Ctrl-C while busy: cancelled %v, view:\n%s", cancelled, s.view())
	}
	s.send(doneMsg{err: context.Canceled})

	s.keys("draft", "ctrl+c")
	if s.m.input.Value() != "" {
		t.Errorf("Ctrl-C left %q in the prompt", s.m.input.Value())
	}
	s.keys("ctrl+c")
	if s.quit || !strings.Contains(s.view(), "Press Ctrl-C again to quit.") {
		t.Fatalf("first Ctrl-C on an empty prompt: quit %v, view:\n%s", s.quit, s.view())
	}
	s.keys("ctrl+c")
	if !s.quit {
		t.Error("second Ctrl-C does not quit")
	}
}

// Quitting while something runs cancels it and waits for it to stop.
func TestQuitWaitsForTheRun(t *testing.T) {
	s := newScreen(t)
	cancelled := false
	s.m.busy, s.m.cancel = true, func() { cancelled = true }
	s.keys("ctrl+d")
	if !cancelled || s.quit {
		t.Fatalf("cancelled %v, quit %v", cancelled, s.quit)
	}
	s.send(doneMsg{err: context.Canceled})
	if !s.quit {
		t.Error("did not quit once the run stopped")
	}
	if s.printed[len(s.printed)-1] != "Cancelled." || s.view() != "" {
		t.Errorf("printed %q, view %q", s.printed, s.view())
	}
}

func TestApprovalQuestion(t *testing.T) {
	s := newScreen(t)
	s.m.busy = true
	reply := make(chan answer, 1)
	args := json.RawMessage(`{"file_path":"a.txt","old_string":"one\ntwo","new_string":"one\n2"}`)
	s.send(askMsg{approval.Request{Tool: "file_edit", Args: args}, reply})
	want := "→ file_edit: a.txt\n  one\n- two\n+ 2\nAllow this call? y yes · n no · a always, for this session"
	if v := s.view(); !strings.Contains(v, want) {
		t.Errorf("question:\n%s\nwant it to hold\n%s", v, want)
	}
	s.keys("x")
	if len(reply) != 0 {
		t.Fatal("another key answered the question")
	}
	s.keys("a")
	if a := <-reply; !a.yes || !a.always {
		t.Errorf("answer %+v", a)
	}
	if v := s.view(); strings.Contains(v, "Allow this call?") || !strings.Contains(v, "Running file_edit…") {
		t.Errorf("after the answer:\n%s", v)
	}
	s.send(askMsg{approval.Request{Tool: "bash", Args: json.RawMessage(`{}`)}, reply})
	s.keys("n")
	if a := <-reply; a.yes {
		t.Errorf("n answered %+v", a)
	}
}

func TestHistoryKeys(t *testing.T) {
	s := newScreen(t)
	s.m.hist.add("one")
	s.m.hist.add("two\nlines")
	s.keys("draft", "up")
	if got := s.m.input.Value(); got != "two\nlines" {
		t.Errorf("up: %q", got)
	}
	s.keys("up")
	if got := s.m.input.Value(); got != "one" {
		t.Errorf("up, up: %q", got)
	}
	s.keys("down")
	if got := s.m.input.Value(); got != "two\nlines" {
		t.Errorf("down: %q", got)
	}
	s.keys("down")
	if got := s.m.input.Value(); got != "draft" {
		t.Errorf("down past the newest: %q", got)
	}
}

func TestHistoryFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "history")
	h := loadHistory(path)
	h.add("one")
	h.add("one")
	h.add("multi\nline")
	if err := os.WriteFile(path+"x", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if string(data) != "\"one\"\n\"multi\\nline\"\n" {
		t.Errorf("history file:\n%s", data)
	}
	os.WriteFile(path, append(data, "not json\n\"last\"\n"...), 0o600)
	h = loadHistory(path)
	if diff := cmp.Diff([]string{"one", "multi\nline", "last"}, h.entries); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	if e, _ := h.prev("typing"); e != "last" {
		t.Errorf("prev = %q", e)
	}
	if e, _ := h.next(); e != "typing" {
		t.Errorf("next = %q, want the draft back", e)
	}

	// A file far past the limit is cut back to it.
	var big []byte
	for range 2*maxHistory + 1 {
		big = append(big, "\"x\"\n"...)
	}
	os.WriteFile(path, big, 0o600)
	if h = loadHistory(path); len(h.entries) != maxHistory {
		t.Errorf("%d entries kept", len(h.entries))
	}
	data, _ = os.ReadFile(path)
	if n := strings.Count(string(data), "\n"); n != maxHistory {
		t.Errorf("the file holds %d entries after loading", n)
	}
}

func TestReplay(t *testing.T) {
	msgs := []provider.Message{
		provider.UserText("List\nthe\nfiles\nplease\nnow"),
		{Role: provider.Assistant, Parts: []provider.Part{
			provider.Text("Sure."),
			provider.ToolCall{ID: "1", Name: "glob", Arguments: json.RawMessage(`{"pattern":"*"}`)},
		}},
		{Role: provider.User, Parts: []provider.Part{provider.ToolResult{CallID: "1", Content: `{"tool_success":true,"result":{"output":"a.go"}}`}}},
		{Role: provider.Assistant, Parts: []provider.Part{provider.Text("One file.")}},
	}
	want := []string{"", "> List\n    the\n    files\n    please\n    … 1 more line", "Sure.", `→ glob: pattern="*"`, "← glob: a.go", "One file."}
	if diff := cmp.Diff(want, replay(msgs)); diff != "" {
		t.Errorf("replay (-want +got):\n%s", diff)
	}
}

// Input longer than the prompt's height, typed or pasted, is taken whole;
// the prompt scrolls.
func TestLongInput(t *testing.T) {
	s := newScreen(t)
	for range 20 {
		s.keys("typed", "alt+enter")
	}
	text := strings.Repeat("a line of a pasted file\n", 40) + "end"
	s.send(tea.PasteMsg{Content: text})
	if got := s.m.input.Value(); got != strings.Repeat("typed\n", 20)+text {
		t.Errorf("the prompt holds %d lines, want 61", strings.Count(got, "\n")+1)
	}
	if rows := strings.Count(s.view(), "\n"); rows > 14 {
		t.Errorf("the prompt takes %d rows of the screen", rows)
	}
}
