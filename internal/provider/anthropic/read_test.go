package anthropic

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
		{Text: "Half", StreamError: "overloaded_error"},
	} {
		f.Add(providertest.Wire(f, "/v1/messages", `{"model":"m","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"hi"}]}`, r))
	}
	f.Add(providertest.Wire(f, "/v1/messages", `{"model":"m","max_tokens":2000,"thinking":{"type":"enabled","budget_tokens":1024},"stream":true,"messages":[{"role":"user","content":"hi"}]}`,
		providertest.Reply{Thinking: "Short thought.", Text: "Hi", ToolCalls: []providertest.Call{{Name: "ls"}}}))
	f.Add([]byte("event: ping\ndata: {}\n\n: comment\n\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		api := provider.API{Name: "anthropic", BaseURL: "http://127.0.0.1:1"}
		providertest.CheckRead(t, func(on func(provider.Event)) (*provider.Response, error) {
			return read(provider.NewReader(context.Background(), api, bytes.NewReader(body), on))
		})
	})
}
