package providertest

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ikigai-tools/ikigai/internal/provider"
)

// Wire returns the body a Server sends for r when posted request at path:
// a real stream in the API's format, to seed a fuzz target with.
func Wire(tb testing.TB, path, request string, r Reply) []byte {
	tb.Helper()
	srv := NewServer(Transcript{Replies: []Reply{r}})
	defer srv.Close()
	res, err := http.Post(srv.URL+path, "application/json", strings.NewReader(request))
	if err != nil {
		tb.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return body
}

// CheckRead runs a provider's stream reader, whatever the body it reads,
// and checks what any reader owes its caller: it fails only with an
// *provider.Error, and the response's text, thinking and tool calls are
// exactly what it reported as events. It returns the calls reported, for checks of the
// provider's own.
func CheckRead(t *testing.T, read func(on func(provider.Event)) (*provider.Response, error)) []provider.ToolCall {
	t.Helper()
	var text, thought strings.Builder
	var calls []provider.ToolCall
	got, err := read(func(ev provider.Event) {
		switch ev.Kind {
		case provider.ThinkingDelta:
			thought.WriteString(ev.Text)
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
		return nil
	}
	if got.Message.Text() != text.String() {
		t.Errorf("text %q, reported %q", got.Message.Text(), text.String())
	}
	var kept strings.Builder
	for _, p := range got.Message.Parts {
		if th, ok := p.(provider.Thinking); ok {
			kept.WriteString(th.Text)
		}
	}
	if kept.String() != thought.String() {
		t.Errorf("thinking %q, reported %q", kept.String(), thought.String())
	}
	if d := cmp.Diff(calls, got.Message.ToolCalls()); d != "" {
		t.Errorf("tool calls differ from those reported:\n%s", d)
	}
	return calls
}
