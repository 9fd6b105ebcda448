package gemini

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
// exactly what it reported as events, each call with an id and arguments,
// or an *provider.Error.
func FuzzRead(f *testing.F) {
	for _, r := range []providertest.Reply{
		{Text: "Hello there"},
		{Text: "Let me look.", ToolCalls: []providertest.Call{
			{Name: "bash", Arguments: json.RawMessage(`{"command":"ls -l"}`)},
			{Name: "glob", Arguments: json.RawMessage(`{"pattern":"**/*.go"}`)},
		}},
		{Text: "Half", StreamError: "overloaded_error"},
		{Text: "No", Stop: "SAFETY"},
	} {
		f.Add(providertest.Wire(f, "/v1beta/models/m:streamGenerateContent?alt=sse", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`, r))
	}
	f.Add(providertest.Wire(f, "/v1beta/models/m:streamGenerateContent?alt=sse", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"generationConfig":{"thinkingConfig":{"includeThoughts":true}}}`,
		providertest.Reply{Thinking: "Short thought.", Text: "Hi"}))
	f.Add([]byte(`data: {"candidates":[{"content":{"parts":[{"functionCall":{"name":"x"}},{"functionCall":{"name":"x","args":null}}]},"finishReason":"STOP"}]}` + "\n\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		api := provider.API{Name: "google", BaseURL: "http://127.0.0.1:1"}
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
