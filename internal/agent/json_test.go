package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/hooks"
	"github.com/ikigai-tools/ikigai/internal/provider"
)

func TestJSONEvents(t *testing.T) {
	var b bytes.Buffer
	j := NewJSONEvents(&b)
	call := provider.ToolCall{ID: "c1", Name: "bash", Arguments: json.RawMessage(`{ "command" : "ls" }`)}
	j.Start("anthropic", "m1")
	j.Event(Event{Kind: RequestSent, Turn: 1, Tools: 6})
	j.Event(Event{Kind: ThinkingDelta, Turn: 1, Text: "A greeting."})
	j.Event(Event{Kind: TextDelta, Turn: 1, Text: "Hi"})
	j.Event(Event{Kind: Retrying, Turn: 1, Err: errors.New("overloaded"), Wait: 1500 * time.Millisecond})
	cost := 0.25
	j.Event(Event{Kind: ResponseDone, Turn: 1, StopReason: provider.ToolUse, Usage: provider.Usage{InputTokens: 10, OutputTokens: 2, CacheReadTokens: 4, ThinkingTokens: 1},
		Context: Context{Tokens: 1200, Window: 200000}, Cost: &cost})
	j.Event(Event{Kind: Compacted, Turn: 1, Text: "the context is nearly full", Compaction: &Compaction{Before: 180000, After: 20000}})
	j.Event(Event{Kind: ToolCall, Turn: 1, Call: call})
	j.Event(Event{Kind: ToolCall, Turn: 1, Call: provider.ToolCall{ID: "c2", Name: "x", Arguments: json.RawMessage(`{broken`)}})
	j.Event(Event{Kind: ToolResult, Turn: 1, Call: call, Envelope: execute.Succeeded(json.RawMessage(`{"output":"a"}`)), Elapsed: 12 * time.Millisecond})
	j.Event(Event{Kind: TurnLimit, Turn: 2})
	guard := hooks.Hook{Event: hooks.PreTool, Name: "pre_tool-guard-hook", Source: hooks.User}
	j.Event(Event{Kind: HookRan, Turn: 1, Hook: &hooks.Run{Hook: guard, Elapsed: 3 * time.Millisecond, Decision: hooks.Allow, Input: json.RawMessage(`{"command":"ls -a"}`)}})
	j.Event(Event{Kind: HookRan, Turn: 1, Hook: &hooks.Run{Hook: guard, Elapsed: 5 * time.Millisecond, Failure: hooks.FailedExit, Reason: "exit code 1: oops", Message: "see the log"}})
	j.Warn("Warning: the conversation cannot be saved to /s/x.jsonl: no space left on device")
	j.Finish(&Outcome{Text: "Done", StopReason: provider.EndTurn, ToolTurns: 1, Usage: provider.Usage{InputTokens: 30, OutputTokens: 5}}, 50)
	j.Finish(&Outcome{LimitReached: true, ToolTurns: 2}, 2)
	j.Fail(context.Canceled)
	j.Fail(&provider.Error{Kind: provider.Auth, Message: "bad key", Steps: []string{"set it"}})

	want := []string{
		`{"type":"start","provider":"anthropic","model":"m1"}`,
		`{"type":"request","turn":1,"tools":6}`,
		`{"type":"thinking","turn":1,"text":"A greeting."}`,
		`{"type":"text","turn":1,"text":"Hi"}`,
		`{"type":"retry","turn":1,"error":"overloaded","wait_ms":1500}`,
		`{"type":"response","turn":1,"stop_reason":"tool_use","usage":{"input_tokens":10,"output_tokens":2,"cache_read_tokens":4,"thinking_tokens":1},"context":{"tokens":1200,"window":200000},"cost_usd":0.25}`,
		`{"type":"compacted","turn":1,"text":"the context is nearly full","tokens_before":180000,"tokens_after":20000}`,
		`{"type":"tool_call","turn":1,"id":"c1","name":"bash","arguments":{"command":"ls"}}`,
		`{"type":"tool_call","turn":1,"id":"c2","name":"x","arguments":"{broken"}`,
		`{"type":"tool_result","turn":1,"id":"c1","name":"bash","envelope":{"tool_success":true,"result":{"output":"a"}},"duration_ms":12}`,
		`{"type":"turn_limit","turn":2}`,
		`{"type":"hook","turn":1,"name":"pre_tool-guard-hook","arguments":{"command":"ls -a"},"duration_ms":3,"event":"pre_tool","source":"user","outcome":"allow"}`,
		`{"type":"hook","turn":1,"name":"pre_tool-guard-hook","duration_ms":5,"error":"exit code 1: oops","kind":"exit","event":"pre_tool","source":"user","outcome":"failed","message":"see the log"}`,
		`{"type":"warning","error":"Warning: the conversation cannot be saved to /s/x.jsonl: no space left on device"}`,
		`{"type":"final","text":"Done","stop_reason":"end_turn","tool_turns":1,"usage":{"input_tokens":30,"output_tokens":5},"context":{"tokens":0,"window":0}}`,
		`{"type":"final","text":"","tool_turns":2,"max_tool_turns":2,"usage":{"input_tokens":0,"output_tokens":0},"context":{"tokens":0,"window":0},"error":"` + LimitMessage(2) + `"}`,
		`{"type":"error","error":"context canceled","kind":"interrupted"}`,
	}
	lines := bytes.Split(bytes.TrimSpace(b.Bytes()), []byte("\n"))
	var got []string
	for _, l := range lines {
		got = append(got, string(l))
	}
	if diff := cmp.Diff(want, got[:len(want)]); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	var last map[string]any
	if err := json.Unmarshal(lines[len(lines)-1], &last); err != nil || last["kind"] == nil || last["steps"] == nil {
		t.Errorf("provider error event: %s", lines[len(lines)-1])
	}
}
