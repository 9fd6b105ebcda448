package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ikigai-tools/ikigai/internal/agent"
	"github.com/ikigai-tools/ikigai/internal/approval"
	"github.com/ikigai-tools/ikigai/internal/hooks"
	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/provider/providertest"
)

// hookSet returns hooks running each script at its event, for every tool.
func hookSet(t *testing.T, scripts ...[2]string) *hooks.Set {
	t.Helper()
	s := &hooks.Set{Dir: t.TempDir()}
	for i, sc := range scripts {
		h, err := hooks.NewHook(hooks.Event(sc[0]), sc[0]+"-"+string(rune('a'+i)), "test", hooks.UserScope, "", sc[1], 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		s.Hooks = append(s.Hooks, h)
	}
	return s
}

// hookLines renders the hook runs a fixture saw.
func (f *fixture) hookLines() []string {
	var lines []string
	for _, e := range f.events {
		if e.Kind == agent.HookRan {
			r := e.Hook
			line := string(r.Hook.Event) + " " + r.Outcome()
			if r.Reason != "" {
				line += ": " + r.Reason
			}
			lines = append(lines, line)
		}
	}
	return lines
}

func TestPreToolDeny(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("MARK", filepath.Join(dir, "ran"))
	reg := tools(t, map[string]string{"write": writeTool + `; touch "$MARK"`})
	f := newFixture(t, providertest.Transcript{Replies: calls(call("a", "write", `{"path":"x"}`))}, reg, &approval.Policy{Mode: approval.Auto})
	f.agent.Hooks = hookSet(t, [2]string{"pre_tool", `echo 'writes are frozen today' >&2; exit 2`})
	conv := &agent.Conversation{}
	if _, err := f.agent.Run(context.Background(), conv, "go"); err != nil {
		t.Fatal(err)
	}
	want := provider.ToolResult{CallID: "a", IsError: true,
		Content: `{"tool_success":false,"error":"Tool 'write' was denied: a pre_tool hook refused it: writes are frozen today","error_code":"TOOL_DENIED"}`}
	if got := results(conv)["a"]; !cmp.Equal(got, want) {
		t.Errorf("result:\n%+v\nwant\n%+v", got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran")); err == nil {
		t.Error("the denied tool ran")
	}
	if diff := cmp.Diff([]string{"pre_tool deny: writes are frozen today"}, f.hookLines()); diff != "" {
		t.Errorf("hook events (-want +got):\n%s", diff)
	}
}

// TestPreToolRewrite: the tool runs with the hook's arguments, and the
// post_tool hooks see those; the conversation keeps the model's.
func TestPreToolRewrite(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("SEEN", filepath.Join(dir, "seen"))
	reg := tools(t, map[string]string{"echo": echoTool})
	f := newFixture(t, providertest.Transcript{Replies: calls(call("a", "echo", `{"x":1}`))}, reg, &approval.Policy{Mode: approval.Ask})
	f.agent.Hooks = hookSet(t,
		[2]string{"pre_tool", `echo '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"x":2}}}'`},
		[2]string{"post_tool", `cat > "$SEEN"`})
	conv := &agent.Conversation{}
	if _, err := f.agent.Run(context.Background(), conv, "go"); err != nil {
		t.Fatal(err)
	}
	if got := results(conv)["a"].Content; got != `{"tool_success":true,"result":{"x":2}}` {
		t.Errorf("result %s", got)
	}
	if got := string(conv.Messages[1].ToolCalls()[0].Arguments); got != `{"x":1}` {
		t.Errorf("the conversation holds the call as %s", got)
	}
	seen, _ := os.ReadFile(filepath.Join(dir, "seen"))
	if !strings.Contains(string(seen), `"tool_input":{"x":2},"tool_use_id":"a","tool_response":{"tool_success":true,"result":{"x":2}}`) {
		t.Errorf("post_tool read %s", seen)
	}
}

func TestPostToolContextAndFeedback(t *testing.T) {
	reg := tools(t, map[string]string{"echo": echoTool})
	f := newFixture(t, providertest.Transcript{Replies: calls(call("a", "echo", `{"x":1}`))}, reg, &approval.Policy{Mode: approval.Ask})
	f.agent.Hooks = hookSet(t,
		[2]string{"post_tool", `echo '{"hookSpecificOutput":{"additionalContext":"x must be <2 & even"}}'`},
		[2]string{"post_tool", `echo 'x is odd' >&2; exit 2`})
	conv := &agent.Conversation{}
	if _, err := f.agent.Run(context.Background(), conv, "go"); err != nil {
		t.Fatal(err)
	}
	want := provider.ToolResult{CallID: "a", IsError: true,
		Content: `{"tool_success":true,"result":{"x":1},"hook_error":"x is odd","hook_context":"x must be <2 & even"}`}
	if got := results(conv)["a"]; !cmp.Equal(got, want) {
		t.Errorf("result:\n%+v\nwant\n%+v", got, want)
	}
}

// TestAskAndAllow: a hook's ask is put to the user even in auto mode, and
// refused when nobody can be asked; a hook's allow, or a command's
// allowed tools, spare the question.
func TestAskAndAllow(t *testing.T) {
	reg := tools(t, map[string]string{"write": writeTool})
	refused := `{"tool_success":false,"error":"Tool 'write' was denied: a hook wants the user to approve this call (pushes to main) and nobody can be asked in a non-interactive run","error_code":"TOOL_DENIED"}`
	for _, tt := range []struct {
		name    string
		policy  approval.Policy
		hook    string
		allowed hooks.Matcher
		want    string
	}{
		{"ask, nobody to ask", approval.Policy{Mode: approval.Auto}, `echo '{"permissionDecision":"ask","permissionDecisionReason":"pushes to main"}'`, nil, refused},
		{"allow", approval.Policy{Mode: approval.Ask}, `echo '{"permissionDecision":"allow"}'`, nil, `{"tool_success":true,"result":{"done":true}}`},
		{"allowed by the command", approval.Policy{Mode: approval.Ask}, `true`, func(tool string, _ json.RawMessage) bool { return tool == "write" }, `{"tool_success":true,"result":{"done":true}}`},
		{"ask beats the command", approval.Policy{Mode: approval.Ask}, `echo '{"permissionDecision":"ask","permissionDecisionReason":"pushes to main"}'`, func(string, json.RawMessage) bool { return true }, refused},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, providertest.Transcript{Replies: calls(call("a", "write", `{}`))}, reg, &tt.policy)
			f.agent.Hooks = hookSet(t, [2]string{"pre_tool", tt.hook})
			f.agent.Allowed = tt.allowed
			conv := &agent.Conversation{}
			if _, err := f.agent.Run(context.Background(), conv, "go"); err != nil {
				t.Fatal(err)
			}
			if got := results(conv)["a"].Content; got != tt.want {
				t.Errorf("result:\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

// TestStopSendsBack: a stop hook that checks stop_hook_active sends the
// model back once; the model gets the reason as a message.
func TestStopSendsBack(t *testing.T) {
	f := newFixture(t, providertest.Transcript{Replies: []providertest.Reply{{Text: "Done."}, {Text: "Fixed the tests."}}}, tools(t, nil), nil)
	f.agent.Hooks = hookSet(t, [2]string{"stop", `grep -q '"stop_hook_active":true' && exit 0; echo 'tests fail' >&2; exit 2`})
	conv := &agent.Conversation{}
	out, err := f.agent.Run(context.Background(), conv, "go")
	if err != nil {
		t.Fatal(err)
	}
	if out.Text != "Fixed the tests." {
		t.Errorf("final text %q", out.Text)
	}
	var texts []string
	for _, m := range conv.Messages {
		texts = append(texts, string(m.Role)+": "+m.Text())
	}
	want := []string{"user: go", "assistant: Done.", "user: The user's stop hook did not let you stop yet:\n\ntests fail", "assistant: Fixed the tests."}
	if diff := cmp.Diff(want, texts); diff != "" {
		t.Errorf("conversation (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"stop block: tests fail", "stop ok"}, f.hookLines()); diff != "" {
		t.Errorf("hook events (-want +got):\n%s", diff)
	}
}

// TestStopLoopGuard: a stop hook that never lets go sends the model back
// MaxStopRounds times, no more.
func TestStopLoopGuard(t *testing.T) {
	var replies []providertest.Reply
	for range agent.MaxStopRounds + 1 {
		replies = append(replies, providertest.Reply{Text: "Done."})
	}
	f := newFixture(t, providertest.Transcript{Replies: replies}, tools(t, nil), nil)
	f.agent.Hooks = hookSet(t, [2]string{"stop", `echo 'not yet' >&2; exit 2`})
	if _, err := f.agent.Run(context.Background(), &agent.Conversation{}, "go"); err != nil {
		t.Fatal(err)
	}
	if n := f.srv.Pending(); n != 0 {
		t.Errorf("%d replies left", n)
	}
	if n := len(f.hookLines()); n != agent.MaxStopRounds {
		t.Errorf("the stop hook ran %d times, want %d", n, agent.MaxStopRounds)
	}
}

func TestUserPrompt(t *testing.T) {
	f := newFixture(t, providertest.Transcript{Replies: []providertest.Reply{{Text: "ok"}}}, tools(t, nil), nil)
	f.agent.Hooks = hookSet(t, [2]string{"user_prompt", `grep -q secret && { echo '{"decision":"block","reason":"no secrets"}'; exit 0; }; echo 'Branch: main'`})
	conv := &agent.Conversation{Messages: []provider.Message{provider.UserText("before")}}
	_, err := f.agent.Run(context.Background(), conv, "the secret is 42")
	var blocked *agent.PromptBlocked
	if !errors.As(err, &blocked) || err.Error() != "a user_prompt hook blocked the prompt: no secrets" {
		t.Fatalf("error %v", err)
	}
	if len(conv.Messages) != 1 || len(f.srv.Requests()) != 0 {
		t.Errorf("a blocked prompt left %d messages and sent %d requests", len(conv.Messages), len(f.srv.Requests()))
	}
	if _, err := f.agent.Run(context.Background(), conv, "hello"); err != nil {
		t.Fatal(err)
	}
	want := provider.Message{Role: provider.User, Parts: []provider.Part{provider.Text("hello"), provider.Text("\n\n[Context from the user's user_prompt hook]\nBranch: main")}}
	if diff := cmp.Diff(want, conv.Messages[1]); diff != "" {
		t.Errorf("prompt message (-want +got):\n%s", diff)
	}
}

// TestPreCompact: /compact runs the pre_compact hooks first, telling them
// it was asked for and what to focus on.
func TestPreCompact(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("SEEN", filepath.Join(dir, "seen"))
	f := newFixture(t, providertest.Transcript{Replies: []providertest.Reply{{Text: "The summary."}}}, tools(t, nil), nil)
	f.agent.Hooks = hookSet(t, [2]string{"pre_compact", `cat > "$SEEN"`})
	f.agent.Session = hooks.Session{ID: "s1"}
	big := strings.Repeat("x", 40000)
	conv := &agent.Conversation{Messages: []provider.Message{provider.UserText(big), {Role: provider.Assistant, Parts: []provider.Part{provider.Text(big)}},
		provider.UserText("q"), {Role: provider.Assistant, Parts: []provider.Part{provider.Text("a")}}}}
	if _, err := f.agent.Compact(context.Background(), conv, "the parser"); err != nil {
		t.Fatal(err)
	}
	seen, _ := os.ReadFile(filepath.Join(dir, "seen"))
	if !strings.Contains(string(seen), `"session_id":"s1",`) || !strings.HasSuffix(string(seen), `"hook_event_name":"pre_compact","trigger":"manual","custom_instructions":"the parser"}`+"\n") {
		t.Errorf("pre_compact read %s", seen)
	}
}
