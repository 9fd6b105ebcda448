package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/provider/anthropic"
	"github.com/ikigai-tools/ikigai/internal/provider/providertest"
)

func connect(t *testing.T, rootURL string, retry provider.Retry) provider.Provider {
	p, err := anthropic.New(anthropic.Config{APIKey: "test-key", BaseURL: rootURL, Retry: retry})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestContract(t *testing.T) {
	providertest.TestProvider(t, connect)
}

const (
	envelopeOK   = `{"tool_success":true,"result":{"output":"a.txt","exit_code":0}}`
	envelopeFail = `{"tool_success":false,"error":"Tool 'now' timed out","error_code":"TOOL_TIMEOUT"}`
)

// conversation has a bit of everything a request carries.
var conversation = provider.Request{
	Model:     "claude-test",
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
			provider.ToolCall{ID: "toolu_a", Name: "bash", Arguments: json.RawMessage(`{"command":"ls"}`)},
			provider.ToolCall{ID: "toolu_b", Name: "now", Arguments: json.RawMessage(`{}`)},
			provider.ToolCall{ID: "toolu_c", Name: "bash", Arguments: json.RawMessage(`{"command":`)},
		}},
		{Role: provider.User, Parts: []provider.Part{
			provider.Text("Also, be brief."),
			provider.ToolResult{CallID: "toolu_a", Content: envelopeOK},
			provider.ToolResult{CallID: "toolu_b", Content: envelopeFail, IsError: true},
			provider.ToolResult{CallID: "toolu_c", Content: `{"tool_success":false,"error":"bad","error_code":"INVALID_PARAMS"}`, IsError: true},
		}},
	},
}

func TestRequestBody(t *testing.T) {
	srv := providertest.NewServer(providertest.Transcript{Replies: []providertest.Reply{{Text: "ok"}}})
	defer srv.Close()
	if _, err := connect(t, srv.URL, provider.Retry{}).Stream(context.Background(), conversation, nil); err != nil {
		t.Fatal(err)
	}
	got := srv.Requests()[0]
	if got.Path != "/v1/messages" || got.Header.Get("X-Api-Key") != "test-key" || got.Header.Get("Anthropic-Version") == "" {
		t.Errorf("%s with headers %v, want /v1/messages with the key and a version", got.Path, got.Header)
	}
	result := func(id, content string, isError bool) any {
		return map[string]any{"type": "tool_result", "tool_use_id": id, "is_error": isError,
			"content": []any{map[string]any{"type": "text", "text": content}}}
	}
	want := map[string]any{
		"model":         "claude-test",
		"max_tokens":    1000.0,
		"stream":        true,
		"system":        []any{map[string]any{"type": "text", "text": "You are terse."}},
		"cache_control": map[string]any{"type": "ephemeral"},
		"tools": []any{
			map[string]any{"name": "bash", "description": "Run a command", "input_schema": map[string]any{
				"type":       "object",
				"properties": map[string]any{"command": map[string]any{"type": "string", "description": "The command"}},
				"required":   []any{"command"},
			}},
			map[string]any{"name": "now", "description": "The time", "input_schema": map[string]any{"type": "object", "properties": map[string]any{}}},
		},
		"messages": []any{
			map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "List and count."}}},
			map[string]any{"role": "assistant", "content": []any{
				map[string]any{"type": "text", "text": "Looking."},
				map[string]any{"type": "tool_use", "id": "toolu_a", "name": "bash", "input": map[string]any{"command": "ls"}},
				map[string]any{"type": "tool_use", "id": "toolu_b", "name": "now", "input": map[string]any{}},
				// Garbled arguments go back as an empty object, which the API accepts.
				map[string]any{"type": "tool_use", "id": "toolu_c", "name": "bash", "input": map[string]any{}},
			}},
			// Results first, in call order, then the text.
			map[string]any{"role": "user", "content": []any{
				result("toolu_a", envelopeOK, false),
				result("toolu_b", envelopeFail, true),
				result("toolu_c", `{"tool_success":false,"error":"bad","error_code":"INVALID_PARAMS"}`, true),
				map[string]any{"type": "text", "text": "Also, be brief."},
			}},
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

func TestDefaultMaxTokens(t *testing.T) {
	srv := providertest.NewServer(providertest.Transcript{Replies: []providertest.Reply{{Text: "ok"}}})
	defer srv.Close()
	req := provider.Request{Model: "m", Messages: []provider.Message{provider.UserText("hi")}}
	if _, err := connect(t, srv.URL, provider.Retry{}).Stream(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	var body struct {
		MaxTokens int `json:"max_tokens"`
	}
	json.Unmarshal(srv.Requests()[0].Body, &body)
	if body.MaxTokens != anthropic.DefaultMaxTokens {
		t.Errorf("max_tokens %d, want %d", body.MaxTokens, anthropic.DefaultMaxTokens)
	}
}

// The environment does not redirect requests or swap keys: the Config
// decides (package pick reads the environment).
func TestIgnoresEnvironment(t *testing.T) {
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
	t.Setenv("ANTHROPIC_API_KEY", "env-key")
	t.Setenv("ANTHROPIC_AUTH_TOKEN", "env-token")
	srv := providertest.NewServer(providertest.Transcript{Replies: []providertest.Reply{{Text: "ok"}}})
	defer srv.Close()
	p, err := anthropic.New(anthropic.Config{BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Stream(context.Background(), provider.Request{Model: "m", Messages: []provider.Message{provider.UserText("hi")}}, nil); err != nil {
		t.Fatal(err)
	}
	h := srv.Requests()[0].Header
	if h.Get("X-Api-Key") != "" || h.Get("Authorization") != "" {
		t.Errorf("credentials sent: x-api-key %q, authorization %q", h.Get("X-Api-Key"), h.Get("Authorization"))
	}
}

func TestMissingKey(t *testing.T) {
	_, err := anthropic.New(anthropic.Config{})
	var e *provider.Error
	if !errors.As(err, &e) || e.Kind != provider.Auth {
		t.Fatalf("got %v, want an auth error", err)
	}
	for _, want := range []string{"ANTHROPIC_API_KEY is not set", "https://console.anthropic.com/settings/keys", "export ANTHROPIC_API_KEY="} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
}

func TestBadBaseURL(t *testing.T) {
	for _, u := range []string{"localhost:8080", "ftp://example.com", "http://", "://"} {
		if _, err := anthropic.New(anthropic.Config{APIKey: "k", BaseURL: u}); err == nil {
			t.Errorf("base URL %q accepted", u)
		}
	}
}

func TestMalformedStream(t *testing.T) {
	const start = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1}}}\n\n"
	for name, raw := range map[string]string{
		"not JSON":          "event: message_start\ndata: {oops\n\n",
		"delta first":       "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\n\n",
		"unknown block":     start + "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":3,\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\n\n",
		"block twice":       start + strings.Repeat("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n", 2),
		"no message_stop":   start + "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"}}\n\n",
		"not a stream":      "<html><body>502 Bad Gateway</body></html>\n",
		"empty":             "\n\n",
		"two message_start": start + start,
	} {
		t.Run(name, func(t *testing.T) {
			srv := providertest.NewServer(providertest.Transcript{Replies: []providertest.Reply{{Raw: raw}}})
			defer srv.Close()
			_, err := connect(t, srv.URL, provider.Retry{}).Stream(context.Background(),
				provider.Request{Model: "m", Messages: []provider.Message{provider.UserText("hi")}}, nil)
			var e *provider.Error
			if !errors.As(err, &e) || e.Kind != provider.BadResponse {
				t.Errorf("got %v, want a bad response", err)
			}
		})
	}
}
