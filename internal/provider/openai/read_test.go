package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

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
		f.Add(wire(f, r))
	}
	f.Add([]byte(`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"x"}},{"index":0,"id":"b"}]},"finish_reason":"stop"}]}` + "\n\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		api := provider.API{Name: "openai", BaseURL: "http://127.0.0.1:1/v1"}
		var text strings.Builder
		var calls []provider.ToolCall
		got, err := read(context.Background(), api, bytes.NewReader(body), func(ev provider.Event) {
			switch ev.Kind {
			case provider.TextDelta:
				text.WriteString(ev.Text)
			case provider.ToolCallReady:
				calls = append(calls, ev.ToolCall)
			}
		})
		if err != nil {
			var e *provider.Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v (%T), want a provider error", err, err)
			}
			return
		}
		if got.Message.Text() != text.String() {
			t.Errorf("text %q, reported %q", got.Message.Text(), text.String())
		}
		if d := cmp.Diff(calls, got.Message.ToolCalls()); d != "" {
			t.Errorf("tool calls differ from those reported:\n%s", d)
		}
		for _, c := range calls {
			if c.ID == "" || len(c.Arguments) == 0 {
				t.Errorf("call %+v lacks an id or arguments", c)
			}
		}
	})
}

// wire is the body the fake server sends for r.
func wire(f *testing.F, r providertest.Reply) []byte {
	srv := providertest.NewServer(providertest.Transcript{Replies: []providertest.Reply{r}})
	defer srv.Close()
	res, err := http.Post(srv.URL+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		f.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		f.Fatal(err)
	}
	return body
}

// A call is reported as soon as the next one begins, not at the end.
func TestCallReportedWhenNextBegins(t *testing.T) {
	var ready []string
	a := assembler{byIndex: map[int64]*call{}, on: func(ev provider.Event) { ready = append(ready, ev.ToolCall.ID) }}
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
