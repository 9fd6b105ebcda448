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
	"github.com/ikigai-tools/ikigai/internal/discovery"
	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/provider/anthropic"
	"github.com/ikigai-tools/ikigai/internal/provider/providertest"
	"github.com/ikigai-tools/ikigai/internal/registry"
)

// tools writes sh tools into a directory and discovers them: real
// executables, run the way the agent runs any tool.
func tools(t *testing.T, scripts map[string]string) *registry.Registry {
	t.Helper()
	dir := t.TempDir()
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name+"-tool"), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	reg := discovery.Scan(context.Background(), discovery.Dirs{User: dir, SchemaTimeout: 10 * time.Second})
	if f := reg.Failed(); len(f) > 0 {
		t.Fatalf("tools failed discovery: %+v", f)
	}
	return reg
}

// echoTool answers with its arguments; sleepTool never answers in time.
const (
	echoTool = `if [ "$1" = --schema ]; then echo '{"name":"echo","description":"Echo","annotations":{"readOnlyHint":true}}'; exit 0; fi
cat`
	writeTool = `if [ "$1" = --schema ]; then echo '{"name":"write","description":"Writes"}'; exit 0; fi
cat >/dev/null; echo '{"done":true}'`
	sleepTool = `if [ "$1" = --schema ]; then echo '{"name":"sleep","description":"Sleeps"}'; exit 0; fi
cat >/dev/null; echo started > "$SLEEP_MARK"; sleep 30`
)

type fixture struct {
	srv    *providertest.Server
	agent  *agent.Agent
	events []agent.Event
}

func newFixture(t *testing.T, tr providertest.Transcript, reg *registry.Registry, policy *approval.Policy) *fixture {
	t.Helper()
	srv := providertest.NewServer(tr)
	t.Cleanup(srv.Close)
	p, err := anthropic.New(anthropic.Config{APIKey: "test", BaseURL: srv.AnthropicURL(), Retry: provider.Retry{Attempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{srv: srv}
	f.agent = &agent.Agent{
		Provider: p,
		Model:    "claude-test",
		Tools:    func(context.Context) (*registry.Registry, error) { return reg, nil },
		Policy:   policy,
		Timeout:  func(string) time.Duration { return 10 * time.Second },
		Observe:  func(e agent.Event) { f.events = append(f.events, e) },
	}
	return f
}

func calls(cs ...providertest.Call) []providertest.Reply {
	return []providertest.Reply{{ToolCalls: cs}, {Text: "ok"}}
}

func call(id, name, args string) providertest.Call {
	return providertest.Call{ID: id, Name: name, Arguments: json.RawMessage(args)}
}

// results returns the tool results the conversation holds, by call id.
func results(conv *agent.Conversation) map[string]provider.ToolResult {
	out := map[string]provider.ToolResult{}
	for _, m := range conv.Messages {
		for _, p := range m.Parts {
			if r, ok := p.(provider.ToolResult); ok {
				out[r.CallID] = r
			}
		}
	}
	return out
}

func TestRunRecordsEveryMessage(t *testing.T) {
	reg := tools(t, map[string]string{"echo": echoTool})
	f := newFixture(t, providertest.Transcript{Replies: calls(call("a", "echo", `{"x":1}`))}, reg, &approval.Policy{Mode: approval.Ask})
	var appended []provider.Role
	conv := &agent.Conversation{OnAppend: func(m provider.Message) { appended = append(appended, m.Role) }}
	out, err := f.agent.Run(context.Background(), conv, "go")
	if err != nil {
		t.Fatal(err)
	}
	want := []provider.Role{provider.User, provider.Assistant, provider.User, provider.Assistant}
	if diff := cmp.Diff(want, appended); diff != "" {
		t.Errorf("appended roles (-want +got):\n%s", diff)
	}
	if len(conv.Messages) != 4 || out.Text != "ok" || out.ToolTurns != 1 || out.StopReason != provider.EndTurn {
		t.Errorf("outcome %+v with %d messages", out, len(conv.Messages))
	}
	got := results(conv)["a"]
	if want := (provider.ToolResult{CallID: "a", Content: `{"tool_success":true,"result":{"x":1}}`}); got != want {
		t.Errorf("result %+v, want %+v", got, want)
	}
}

func TestRunRefusesAndReports(t *testing.T) {
	reg := tools(t, map[string]string{"echo": echoTool, "write": writeTool})
	var asked []approval.Request
	policy := &approval.Policy{Mode: approval.Ask, Asker: approval.AskerFunc(func(_ context.Context, r approval.Request) (bool, error) {
		asked = append(asked, r)
		return false, nil
	})}
	f := newFixture(t, providertest.Transcript{Replies: calls(
		call("unknown", "nope", `{}`),
		call("bad", "echo", `[1,2]`),
		call("refused", "write", `{"path":"x"}`),
		call("read", "echo", `{"fine":true}`),
	)}, reg, policy)
	conv := &agent.Conversation{}
	if _, err := f.agent.Run(context.Background(), conv, "go"); err != nil {
		t.Fatal(err)
	}
	want := map[string]provider.ToolResult{
		"unknown": {CallID: "unknown", IsError: true, Content: `{"tool_success":false,"error":"Tool 'nope' not found","error_code":"TOOL_NOT_FOUND"}`},
		"bad":     {CallID: "bad", IsError: true, Content: `{"tool_success":false,"error":"Arguments for tool 'echo' are not a JSON object","error_code":"INVALID_PARAMS"}`},
		"refused": {CallID: "refused", IsError: true, Content: `{"tool_success":false,"error":"Tool 'write' was denied: the user refused this call","error_code":"TOOL_DENIED"}`},
		"read":    {CallID: "read", Content: `{"tool_success":true,"result":{"fine":true}}`},
	}
	if diff := cmp.Diff(want, results(conv)); diff != "" {
		t.Errorf("results (-want +got):\n%s", diff)
	}
	// Only the tool that changes things was put to the user, with its arguments.
	if diff := cmp.Diff([]approval.Request{{Tool: "write", Args: json.RawMessage(`{"path":"x"}`)}}, asked); diff != "" {
		t.Errorf("asked (-want +got):\n%s", diff)
	}
}

func TestRunEventsInCallOrder(t *testing.T) {
	reg := tools(t, map[string]string{"echo": echoTool})
	f := newFixture(t, providertest.Transcript{Replies: calls(
		call("1", "echo", `{"n":1}`), call("2", "echo", `{"n":2}`), call("3", "echo", `{"n":3}`),
	)}, reg, nil)
	if _, err := f.agent.Run(context.Background(), &agent.Conversation{}, "go"); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range f.events {
		switch e.Kind {
		case agent.RequestSent:
			got = append(got, "request")
		case agent.ToolCall:
			got = append(got, "call "+e.Call.ID)
		case agent.ToolResult:
			got = append(got, "result "+e.Call.ID)
		case agent.ResponseDone:
			got = append(got, "response "+string(e.StopReason))
		}
	}
	want := []string{"request", "response tool_use", "call 1", "call 2", "call 3", "result 1", "result 2", "result 3", "request", "response end_turn"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// Cancelling while a tool runs stops it and still records a result for
// every call, so the conversation stays valid for the next prompt.
func TestRunCancelledDuringTools(t *testing.T) {
	mark := filepath.Join(t.TempDir(), "started")
	t.Setenv("SLEEP_MARK", mark)
	reg := tools(t, map[string]string{"sleep": sleepTool, "write": writeTool})
	f := newFixture(t, providertest.Transcript{Replies: calls(call("s", "sleep", `{}`), call("w", "write", `{}`))}, reg, &approval.Policy{Mode: approval.Auto})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for {
			if _, err := os.Stat(mark); err == nil {
				cancel()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	conv := &agent.Conversation{}
	_, err := f.agent.Run(ctx, conv, "go")
	if !errors.Is(err, context.Canceled) || !agent.IsCancel(err) {
		t.Fatalf("Run error = %v, want context.Canceled", err)
	}
	got := results(conv)
	for _, id := range []string{"s", "w"} {
		if !got[id].IsError || !strings.Contains(got[id].Content, `"error_code":"TOOL_CANCELLED"`) {
			t.Errorf("result %s = %+v, want TOOL_CANCELLED", id, got[id])
		}
	}
	if last := conv.Messages[len(conv.Messages)-1]; last.Role != provider.User {
		t.Errorf("conversation ends with %s, want the user's tool results", last.Role)
	}
}

// A failed request leaves the conversation as it was before the request.
func TestRunProviderFailure(t *testing.T) {
	reg := tools(t, map[string]string{"echo": echoTool})
	f := newFixture(t, providertest.Transcript{Replies: []providertest.Reply{{Status: 400, Error: "bad request"}}}, reg, nil)
	conv := &agent.Conversation{}
	_, err := f.agent.Run(context.Background(), conv, "go")
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Kind != provider.BadRequest {
		t.Fatalf("Run error = %v, want a bad-request *provider.Error", err)
	}
	if len(conv.Messages) != 1 {
		t.Errorf("conversation has %d messages, want only the prompt", len(conv.Messages))
	}
}

func TestRunToolsError(t *testing.T) {
	f := newFixture(t, providertest.Transcript{}, nil, nil)
	boom := errors.New("discovery failed")
	f.agent.Tools = func(context.Context) (*registry.Registry, error) { return nil, boom }
	if _, err := f.agent.Run(context.Background(), &agent.Conversation{}, "go"); !errors.Is(err, boom) {
		t.Errorf("Run error = %v, want %v", err, boom)
	}
}

func TestSystemPrompt(t *testing.T) {
	dir := t.TempDir()
	got := agent.SystemPrompt(dir, []string{"bash", "grep"})
	for _, want := range []string{"in the directory " + dir + ".", "Use bash for builds", "Find code with grep"} {
		if !strings.Contains(got, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "file_edit") || strings.Contains(got, "AGENTS.md") {
		t.Errorf("system prompt mentions what is not there:\n%s", got)
	}

	huge := strings.Repeat("x", agent.MaxAgentsFile+100)
	if err := os.WriteFile(filepath.Join(dir, "AGENTS.md"), []byte(huge), 0o644); err != nil {
		t.Fatal(err)
	}
	got = agent.SystemPrompt(dir, nil)
	if !strings.Contains(got, "[AGENTS.md continues; the rest is omitted]") || strings.Count(got, "x") > agent.MaxAgentsFile+10 {
		t.Errorf("a huge AGENTS.md is not cut (%d bytes of prompt)", len(got))
	}
}
