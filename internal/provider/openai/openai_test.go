package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/provider/openai"
	"github.com/ikigai-tools/ikigai/internal/provider/providertest"
)

func connect(t *testing.T, rootURL string, retry provider.Retry) provider.Provider {
	p, err := openai.New(openai.Config{APIKey: "test-key", BaseURL: rootURL + "/v1", Retry: retry})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestContract(t *testing.T) {
	providertest.TestProvider(t, connect)
}

var hello = provider.Request{Model: "m", Messages: []provider.Message{provider.UserText("hi")}}

// stream sends req to a fake server that answers with replies, and returns
// what the provider made of it and the requests the server got.
func stream(t *testing.T, p func(rootURL string) provider.Provider, req provider.Request, replies ...providertest.Reply) (*provider.Response, []provider.Event, []providertest.Request, error) {
	t.Helper()
	srv := providertest.NewServer(providertest.Transcript{Replies: replies})
	defer srv.Close()
	var events []provider.Event
	res, err := p(srv.URL).Stream(context.Background(), req, func(ev provider.Event) { events = append(events, ev) })
	return res, events, srv.Requests(), err
}

func withKey(t *testing.T) func(string) provider.Provider {
	return func(root string) provider.Provider { return connect(t, root, provider.Retry{}) }
}

const (
	envelopeOK   = `{"tool_success":true,"result":{"output":"a.txt","exit_code":0}}`
	envelopeFail = `{"tool_success":false,"error":"Tool 'now' timed out","error_code":"TOOL_TIMEOUT"}`
)

func TestRequestBody(t *testing.T) {
	req := provider.Request{
		Model:     "gpt-test",
		System:    "You are terse.",
		MaxTokens: 1000,
		Tools: []provider.Tool{
			{Name: "bash", Description: "Run a command", Parameters: json.RawMessage(
				`{"type":"object","properties":{"command":{"type":"string","description":"The command"}},"required":["command"]}`)},
			{Name: "now", Description: "The time"},
		},
		Messages: []provider.Message{
			provider.UserText("List and count."),
			{Role: provider.Assistant, Parts: []provider.Part{
				provider.Text("Looking."),
				provider.ToolCall{ID: "call_a", Name: "bash", Arguments: json.RawMessage(`{"command":"ls"}`)},
				provider.ToolCall{ID: "call_b", Name: "now", Arguments: json.RawMessage(`{}`)},
			}},
			{Role: provider.User, Parts: []provider.Part{
				provider.Text("Also, be brief."),
				provider.ToolResult{CallID: "call_a", Content: envelopeOK},
				provider.ToolResult{CallID: "call_b", Content: envelopeFail, IsError: true},
			}},
		},
	}
	_, _, reqs, err := stream(t, withKey(t), req, providertest.Reply{Text: "ok"})
	if err != nil {
		t.Fatal(err)
	}
	got := reqs[0]
	if got.Path != "/v1/chat/completions" || got.Header.Get("Authorization") != "Bearer test-key" {
		t.Errorf("%s with headers %v, want /v1/chat/completions with the key", got.Path, got.Header)
	}
	call := func(id, name, args string) any {
		return map[string]any{"id": id, "type": "function", "function": map[string]any{"name": name, "arguments": args}}
	}
	want := map[string]any{
		"model":          "gpt-test",
		"stream":         true,
		"stream_options": map[string]any{"include_usage": true},
		// A compatible server gets max_tokens, which they all know.
		"max_tokens": 1000.0,
		"tools": []any{
			map[string]any{"type": "function", "function": map[string]any{"name": "bash", "description": "Run a command", "parameters": map[string]any{
				"type":       "object",
				"properties": map[string]any{"command": map[string]any{"type": "string", "description": "The command"}},
				"required":   []any{"command"},
			}}},
			map[string]any{"type": "function", "function": map[string]any{"name": "now", "description": "The time",
				"parameters": map[string]any{"type": "object", "properties": map[string]any{}}}},
		},
		"messages": []any{
			map[string]any{"role": "system", "content": "You are terse."},
			map[string]any{"role": "user", "content": "List and count."},
			map[string]any{"role": "assistant", "content": "Looking.", "tool_calls": []any{
				call("call_a", "bash", `{"command":"ls"}`),
				call("call_b", "now", `{}`),
			}},
			// Results as tool messages, in call order, then the text.
			map[string]any{"role": "tool", "tool_call_id": "call_a", "content": envelopeOK},
			map[string]any{"role": "tool", "tool_call_id": "call_b", "content": envelopeFail},
			map[string]any{"role": "user", "content": "Also, be brief."},
		},
	}
	var body map[string]any
	if err := json.Unmarshal(got.Body, &body); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, body); d != "" {
		t.Errorf("request body (-want +got):\n%s", d)
	}
}

// redirect sends every request to the server at root, whatever its URL says.
type redirect struct{ root *url.URL }

func (r redirect) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.URL.Scheme, req.URL.Host = r.root.Scheme, r.root.Host
	return http.DefaultTransport.RoundTrip(req)
}

func TestOpenAIItself(t *testing.T) {
	official := func(root string) provider.Provider {
		u, _ := url.Parse(root)
		p, err := openai.New(openai.Config{APIKey: "sk-test", HTTPClient: &http.Client{Transport: redirect{u}}})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	req := hello
	req.MaxTokens = 500
	_, _, reqs, err := stream(t, official, req, providertest.Reply{Text: "ok"})
	if err != nil {
		t.Fatal(err)
	}
	var body map[string]any
	json.Unmarshal(reqs[0].Body, &body)
	if body["max_completion_tokens"] != 500.0 || body["max_tokens"] != nil {
		t.Errorf("max_completion_tokens %v, max_tokens %v; OpenAI's newer models want only the first", body["max_completion_tokens"], body["max_tokens"])
	}
	if h := reqs[0].Header.Get("Authorization"); h != "Bearer sk-test" {
		t.Errorf("authorization %q", h)
	}

	_, err = openai.New(openai.Config{})
	var e *provider.Error
	if !errors.As(err, &e) || e.Kind != provider.Auth || !strings.Contains(err.Error(), "https://platform.openai.com/api-keys") {
		t.Errorf("without a key: %v, want an auth error saying where keys are made", err)
	}
}

// A local server needs no key, and the environment neither adds one nor
// moves the requests elsewhere: the Config decides.
func TestNoKeyForOtherServers(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "env-key")
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	keyless := func(root string) provider.Provider {
		p, err := openai.New(openai.Config{BaseURL: root + "/v1"})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	_, _, reqs, err := stream(t, keyless, hello, providertest.Reply{Text: "ok"})
	if err != nil {
		t.Fatal(err)
	}
	if h := reqs[0].Header.Get("Authorization"); h != "" {
		t.Errorf("authorization %q sent", h)
	}
}

// What some compatible servers do differently from OpenAI.
func TestCompatibleQuirks(t *testing.T) {
	chunk := func(delta, finish string) string {
		return `data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + finish + `}]}` + "\n\n"
	}
	for _, tc := range []struct {
		name  string
		raw   string
		calls []provider.ToolCall
		stop  provider.StopReason
	}{
		{
			name: "every call at index 0, whole, ended with stop",
			raw: chunk(`{"role":"assistant","tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"glob","arguments":"{\"pattern\":\"*\"}"}}]}`, "null") +
				chunk(`{"tool_calls":[{"index":0,"id":"b","type":"function","function":{"name":"grep","arguments":"{\"pattern\":\"x\"}"}}]}`, "null") +
				chunk(`{}`, `"stop"`) + "data: [DONE]\n\n",
			calls: []provider.ToolCall{
				{ID: "a", Name: "glob", Arguments: json.RawMessage(`{"pattern":"*"}`)},
				{ID: "b", Name: "grep", Arguments: json.RawMessage(`{"pattern":"x"}`)},
			},
			stop: provider.ToolUse,
		},
		{
			name: "no ids, no arguments, no [DONE]",
			raw: chunk(`{"tool_calls":[{"index":0,"function":{"name":"now"}},{"index":1,"function":{"name":"now"}}]}`, "null") +
				chunk(`{}`, `"tool_calls"`),
			calls: []provider.ToolCall{
				{ID: "call_1", Name: "now", Arguments: json.RawMessage(`{}`)},
				{ID: "call_2", Name: "now", Arguments: json.RawMessage(`{}`)},
			},
			stop: provider.ToolUse,
		},
		{
			name: "a content filter",
			raw:  chunk(`{"content":"I can"}`, "null") + chunk(`{}`, `"content_filter"`),
			stop: provider.Other,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, events, _, err := stream(t, withKey(t), hello, providertest.Reply{Raw: tc.raw})
			if err != nil {
				t.Fatal(err)
			}
			var ready []provider.ToolCall
			for _, ev := range events {
				if ev.Kind == provider.ToolCallReady {
					ready = append(ready, ev.ToolCall)
				}
			}
			if d := cmp.Diff(tc.calls, res.Message.ToolCalls()); d != "" {
				t.Errorf("calls (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.calls, ready); d != "" {
				t.Errorf("calls reported (-want +got):\n%s", d)
			}
			if res.StopReason != tc.stop {
				t.Errorf("stop reason %q, want %q", res.StopReason, tc.stop)
			}
		})
	}
}

func TestMalformedStream(t *testing.T) {
	for name, raw := range map[string]string{
		"not JSON":        "data: {oops\n\n",
		"no finish":       `data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}` + "\n\ndata: [DONE]\n\n",
		"only [DONE]":     "data: [DONE]\n\n",
		"not a stream":    "<html><body>502 Bad Gateway</body></html>\n",
		"empty":           "\n\n",
		"wrong JSON type": `data: {"choices":"many"}` + "\n\n",
	} {
		t.Run(name, func(t *testing.T) {
			_, _, _, err := stream(t, withKey(t), hello, providertest.Reply{Raw: raw})
			var e *provider.Error
			if !errors.As(err, &e) || e.Kind != provider.BadResponse {
				t.Errorf("got %v, want a bad response", err)
			}
		})
	}
}

func TestQuotaIsNotRetried(t *testing.T) {
	p := func(root string) provider.Provider { return connect(t, root, provider.Retry{Backoff: 1}) }
	_, _, reqs, err := stream(t, p, hello,
		providertest.Reply{Status: 429, ErrorType: "insufficient_quota", Error: "You exceeded your current quota"},
		providertest.Reply{Text: "never"})
	var e *provider.Error
	if !errors.As(err, &e) || e.Kind != provider.RateLimit || e.Type != "insufficient_quota" || len(reqs) != 1 {
		t.Errorf("got %v after %d requests, want one rate-limit error", err, len(reqs))
	}
}
