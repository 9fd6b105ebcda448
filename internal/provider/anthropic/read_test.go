package anthropic

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
		{Text: "Half", StreamError: "overloaded_error"},
	} {
		f.Add(wire(f, r))
	}
	f.Add([]byte("event: ping\ndata: {}\n\n: comment\n\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		api := provider.API{Name: "anthropic", BaseURL: "http://127.0.0.1:1"}
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
	})
}

// wire is the body the fake server sends for r.
func wire(f *testing.F, r providertest.Reply) []byte {
	srv := providertest.NewServer(providertest.Transcript{Replies: []providertest.Reply{r}})
	defer srv.Close()
	res, err := http.Post(srv.URL+"/v1/messages", "application/json",
		strings.NewReader(`{"model":"m","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"hi"}]}`))
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
