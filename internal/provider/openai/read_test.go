package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/provider/providertest"
)

// FuzzRead feeds arbitrary bytes to the stream reader as a response body.
// Whatever they are, it returns a response whose text and tool calls are
// exactly what it reported as events, or an *provider.Error.
func FuzzRead(f *testing.F) {
	for _, r := range []providertest.Reply{
		{Text: "Hello there"},
		{Text: "Let me look.", ToolCalls: []providertest.Call{
			{Name: "bash", Arguments: json.RawMessage(`{"command":"ls -l"}`)},
			{Name: "glob", Arguments: json.RawMessage(`{"pattern":"**/*.go"}`)},
		}},
		{Text: "Half", StreamError: "server_error"},
	} {
		f.Add(providertest.Wire(f, "/v1/chat/completions", `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`, r))
	}
	f.Add([]byte(`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"x"}},{"index":0,"id":"b"}]},"finish_reason":"stop"}]}` + "\n\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		api := provider.API{Name: "openai", BaseURL: "http://127.0.0.1:1/v1"}
		calls := providertest.CheckRead(t, func(on func(provider.Event)) (*provider.Response, error) {
			return read(provider.NewReader(context.Background(), api, bytes.NewReader(body), on))
		})
		for _, c := range calls {
			if c.ID == "" || len(c.Arguments) == 0 {
				t.Errorf("call %+v lacks an id or arguments", c)
			}
		}
	})
}

// A call is reported as soon as the next one begins, not at the end.
func TestCallReportedWhenNextBegins(t *testing.T) {
	var ready []string
	on := func(ev provider.Event) { ready = append(ready, ev.ToolCall.ID) }
	a := assembler{byIndex: map[int64]*call{}, out: provider.NewReader(context.Background(), provider.API{}, nil, on)}
	parse := func(s string) chunk {
		var c chunk
		if err := json.Unmarshal([]byte(s), &c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	a.add(parse(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"x","arguments":"{}"}}]}}]}`))
	if len(ready) != 0 {
		t.Fatalf("reported %v before the call could be whole", ready)
	}
	a.add(parse(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"b","function":{"name":"y","arguments":"{"}}]}}]}`))
	if len(ready) != 1 || ready[0] != "a" {
		t.Fatalf("reported %v once the second call began, want [a]", ready)
	}
	a.add(parse(`{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`))
	if len(ready) != 2 || ready[1] != "b" {
		t.Errorf("reported %v at the end, want [a b]", ready)
	}
}
