package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ikigai-tools/ikigai/internal/execute"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ikigai-tools/ikigai/internal/agent"
	"github.com/ikigai-tools/ikigai/internal/approval"
	"github.com/ikigai-tools/ikigai/internal/discovery"
	"github.com/ikigai-tools/ikigai/internal/instructions"
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
	if want := (provider.ToolResult{CallID: "a", Content: `{"tool_success":true,"result":{"x":1}}`}); !cmp.Equal(got, want) {
		t.Errorf("result %+v, want %+v", got, want)
	}
}

func TestRunRefusesAndReports(t *testing.T) {
	reg := tools(t, map[string]string{"echo": echoTool, "write": writeTool})
	var asked []approval.Request
	policy := &approval.Policy{Mode: approval.Ask, Asker: approval.AskerFunc(func(_ context.Context, r approval.Request) (approval.Answer, error) {
		asked = append(asked, r)
		return approval.Answer{}, nil
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

// A call's duration is the tool's, not the time the user took to answer
// the approval question: the clock moves an hour while the user is asked,
// and not at all otherwise.
func TestRunTimesTheToolNotTheQuestion(t *testing.T) {
	reg := tools(t, map[string]string{"write": writeTool})
	var mu sync.Mutex
	now := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return now
	}
	answer := func(yes bool) approval.Asker {
		return approval.AskerFunc(func(context.Context, approval.Request) (approval.Answer, error) {
			mu.Lock()
			now = now.Add(time.Hour)
			mu.Unlock()
			return approval.Answer{Yes: yes}, nil
		})
	}
	for _, yes := range []bool{true, false} {
		f := newFixture(t, providertest.Transcript{Replies: calls(call("w", "write", `{}`))}, reg, &approval.Policy{Mode: approval.Ask, Asker: answer(yes)})
		agent.SetClock(f.agent, clock)
		if _, err := f.agent.Run(context.Background(), &agent.Conversation{}, "go"); err != nil {
			t.Fatal(err)
		}
		for _, e := range f.events {
			if e.Kind == agent.ToolResult && e.Elapsed != 0 {
				t.Errorf("approved %v: the call took %v by a clock that only the question moves", yes, e.Elapsed)
			}
		}
	}
}

// A run cancelled while the user is asked (Ctrl-C at the question) ends the
// call as TOOL_CANCELLED, whether the asker saw the cancellation or answered
// first.
func TestRunCancelledAtTheQuestion(t *testing.T) {
	for _, askerErr := range []bool{true, false} {
		reg := tools(t, map[string]string{"write": writeTool})
		ctx, cancel := context.WithCancel(context.Background())
		policy := &approval.Policy{Mode: approval.Ask, Asker: approval.AskerFunc(func(ctx context.Context, r approval.Request) (approval.Answer, error) {
			cancel()
			if askerErr {
				return approval.Answer{}, ctx.Err()
			}
			return approval.Answer{}, nil
		})}
		f := newFixture(t, providertest.Transcript{Replies: calls(call("w", "write", `{"path":"x"}`))}, reg, policy)
		conv := &agent.Conversation{}
		if _, err := f.agent.Run(ctx, conv, "go"); !agent.IsCancel(err) {
			t.Errorf("Run: %v, want a cancellation", err)
		}
		want := map[string]provider.ToolResult{"w": {CallID: "w", IsError: true,
			Content: `{"tool_success":false,"error":"Tool 'write' was cancelled before it started","error_code":"TOOL_CANCELLED"}`}}
		if diff := cmp.Diff(want, results(conv)); diff != "" {
			t.Errorf("asker error %v: results (-want +got):\n%s", askerErr, diff)
		}
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

// A run that fails is taken out of the conversation, the prompt and
// everything after it, so that the next prompt does not send it again:
// whether the first request failed or one after tool calls.
func TestRunFailureIsTakenOut(t *testing.T) {
	reg := tools(t, map[string]string{"echo": echoTool})
	earlier := []provider.Message{provider.UserText("hello"), {Role: provider.Assistant, Parts: []provider.Part{provider.Text("Hi.")}}}
	for name, replies := range map[string][]providertest.Reply{
		"first request": {{Status: 400, Error: "prompt is too long"}},
		"after a tool":  {{ToolCalls: []providertest.Call{call("a", "echo", `{}`)}}, {Status: 400, Error: "prompt is too long"}},
	} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, providertest.Transcript{Replies: replies}, reg, nil)
			var appended, cuts []int
			conv := &agent.Conversation{Messages: slices.Clone(earlier)}
			conv.OnAppend = func(provider.Message) { appended = append(appended, len(conv.Messages)) }
			conv.OnCut = func(n int) { cuts = append(cuts, n) }
			_, err := f.agent.Run(context.Background(), conv, "go")
			var pe *provider.Error
			if !errors.As(err, &pe) || pe.Kind != provider.BadRequest || !strings.Contains(pe.Message, "prompt is too long") {
				t.Fatalf("Run error = %v, want the bad-request *provider.Error", err)
			}
			if diff := cmp.Diff(earlier, conv.Messages); diff != "" {
				t.Errorf("conversation after the failure (-want +got):\n%s", diff)
			}
			if len(appended) == 0 || !slices.Equal(cuts, []int{2}) {
				t.Errorf("appended at %v, then cut to %v; want a cut to 2", appended, cuts)
			}
		})
	}
}

// A cancelled run is not a failure: the prompt stays, as the user wrote it.
func TestRunCancelledKeepsThePrompt(t *testing.T) {
	f := newFixture(t, providertest.Transcript{Replies: []providertest.Reply{{Text: "never", Hang: true}}}, tools(t, map[string]string{"echo": echoTool}), nil)
	ctx, cancel := context.WithCancel(context.Background())
	f.agent.Observe = func(e agent.Event) {
		if e.Kind == agent.RequestSent {
			cancel()
		}
	}
	conv := &agent.Conversation{OnCut: func(n int) { t.Errorf("cut to %d", n) }}
	if _, err := f.agent.Run(ctx, conv, "go"); !agent.IsCancel(err) {
		t.Fatalf("Run error = %v, want a cancellation", err)
	}
	if len(conv.Messages) != 1 || conv.Messages[0].Text() != "go" {
		t.Errorf("conversation %+v, want the prompt", conv.Messages)
	}
}

// A retried request is reported with its failure and which attempt comes
// next, of how many.
func TestRunReportsRetries(t *testing.T) {
	f := newFixture(t, providertest.Transcript{Replies: []providertest.Reply{
		{Status: 500, Error: "internal error", Headers: map[string]string{"Retry-After-Ms": "1"}},
		{Text: "ok"},
	}}, tools(t, map[string]string{"echo": echoTool}), nil)
	p, err := anthropic.New(anthropic.Config{APIKey: "test", BaseURL: f.srv.AnthropicURL(), Retry: provider.Retry{Attempts: 3}})
	if err != nil {
		t.Fatal(err)
	}
	f.agent.Provider = p
	if _, err := f.agent.Run(context.Background(), &agent.Conversation{}, "go"); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range f.events {
		if e.Kind == agent.Retrying {
			got = append(got, fmt.Sprintf("%v; %v; %d of %d", e.Err, e.Wait, e.Attempt, e.Attempts))
		}
	}
	if d := cmp.Diff([]string{"anthropic: server error (HTTP 500): internal error; 1ms; 2 of 3"}, got); d != "" {
		t.Errorf("retries (-want +got):\n%s", d)
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
	got := agent.SystemPrompt(dir, []string{"bash", "grep"}, nil)
	for _, want := range []string{"in the directory " + dir + ".", "Use bash for builds", "Find code with grep"} {
		if !strings.Contains(got, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "file_edit") || strings.Contains(got, "AGENTS.md") {
		t.Errorf("system prompt mentions what is not there:\n%s", got)
	}

	got = agent.SystemPrompt(dir, nil, []instructions.Text{{Title: "First", Text: "one\n"}, {Title: "Second", Text: "two"}})
	if !strings.HasSuffix(got, "\nFirst:\n\none\n\nSecond:\n\ntwo\n") {
		t.Errorf("instructions are not appended in order:\n%s", got)
	}
}

// A conversation restored from a session that ended while tools ran gets
// results for those calls, and the next request is one the API accepts.
func TestAnswerInterrupted(t *testing.T) {
	var saved []provider.Message
	conv := &agent.Conversation{
		Messages: []provider.Message{
			provider.UserText("Run it"),
			{Role: provider.Assistant, Parts: []provider.Part{
				provider.ToolCall{ID: "toolu_1", Name: "write", Arguments: json.RawMessage(`{}`)},
				provider.ToolCall{ID: "toolu_2", Name: "echo", Arguments: json.RawMessage(`{}`)},
			}},
		},
		OnAppend: func(m provider.Message) { saved = append(saved, m) },
	}
	if !conv.AnswerInterrupted() {
		t.Fatal("AnswerInterrupted did nothing")
	}
	if conv.AnswerInterrupted() {
		t.Error("AnswerInterrupted answered twice")
	}
	got := results(conv)
	if len(got) != 2 || !got["toolu_1"].IsError || !strings.Contains(got["toolu_2"].Content, `"error_code":"TOOL_CANCELLED"`) {
		t.Errorf("results: %+v", got)
	}
	if len(saved) != 1 {
		t.Errorf("OnAppend called %d times, want 1", len(saved))
	}

	f := newFixture(t, providertest.Transcript{Replies: []providertest.Reply{{Text: "Carrying on."}}}, tools(t, map[string]string{"echo": echoTool}), nil)
	if _, err := f.agent.Run(context.Background(), conv, "Go on"); err != nil {
		t.Fatal(err)
	}
	if (&agent.Conversation{Messages: []provider.Message{provider.UserText("hi")}}).AnswerInterrupted() {
		t.Error("a conversation ending in a prompt was answered")
	}
}

// Read-only calls of one answer run at once, but no more than MaxParallel
// of them.
func TestRunBoundsParallelCalls(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("RUNNING", dir)
	reg := tools(t, map[string]string{"count": `if [ "$1" = --schema ]; then echo '{"name":"count","description":"Counts","annotations":{"readOnlyHint":true}}'; exit 0; fi
cat >/dev/null; touch "$RUNNING/$$"; n=$(ls "$RUNNING" | wc -l); sleep 0.2; rm "$RUNNING/$$"; echo "{\"n\":$n}"`})
	var cs []providertest.Call
	for i := range 6 {
		cs = append(cs, call(string(rune('a'+i)), "count", `{}`))
	}
	f := newFixture(t, providertest.Transcript{Replies: calls(cs...)}, reg, nil)
	f.agent.MaxParallel = 2
	conv := &agent.Conversation{}
	if _, err := f.agent.Run(context.Background(), conv, "count"); err != nil {
		t.Fatal(err)
	}
	most := 0
	for id, r := range results(conv) {
		var env struct {
			Result struct{ N int }
		}
		if err := json.Unmarshal([]byte(r.Content), &env); err != nil || env.Result.N == 0 {
			t.Fatalf("%s: %s", id, r.Content)
		}
		most = max(most, env.Result.N)
	}
	if most > 2 {
		t.Errorf("%d calls ran at once, more than 2", most)
	}
}

// A deferred tool is left out of requests until the conversation enables
// it; one the model calls by name anyway runs and is offered from then
// on. Around sees every call that runs, and its context reaches the tool.
func TestDeferredAndAround(t *testing.T) {
	envTool := `if [ "$1" = --schema ]; then echo '{"name":"env","description":"Says its token"}'; exit 0; fi
cat >/dev/null; echo "{\"token\":\"$CALL_TOKEN\"}"`
	reg := tools(t, map[string]string{"echo": echoTool, "env": envTool})
	reg = reg.Defer(func(t registry.Tool) bool { return t.Name == "env" })
	f := newFixture(t, providertest.Transcript{Replies: []providertest.Reply{
		{ToolCalls: []providertest.Call{call("a", "env", `{}`)}}, {Text: "ok"},
	}}, reg, &approval.Policy{Mode: approval.Auto})
	var around []string
	f.agent.Around = func(ctx context.Context, c agent.Call) (context.Context, func()) {
		around = append(around, c.Name+" "+c.ID)
		return execute.WithEnv(ctx, "CALL_TOKEN=t-"+c.ID), func() { around = append(around, "end "+c.ID) }
	}
	conv := &agent.Conversation{}
	if _, err := f.agent.Run(context.Background(), conv, "go"); err != nil {
		t.Fatal(err)
	}
	offered := func(i int) []string {
		var body struct{ Tools []struct{ Name string } }
		json.Unmarshal(f.srv.Requests()[i].Body, &body)
		var names []string
		for _, t := range body.Tools {
			names = append(names, t.Name)
		}
		return names
	}
	if diff := cmp.Diff([][]string{{"echo"}, {"echo", "env"}}, [][]string{offered(0), offered(1)}); diff != "" {
		t.Errorf("tools offered (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"env a", "end a"}, around); diff != "" {
		t.Errorf("around (-want +got):\n%s", diff)
	}
	if got := results(conv)["a"].Content; got != `{"tool_success":true,"result":{"token":"t-a"}}` {
		t.Errorf("result %s", got)
	}
	if !conv.Enabled("env") || conv.Enabled("echo") {
		t.Errorf("enabled: %v", conv.EnabledTools())
	}
}
