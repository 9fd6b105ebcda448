package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/provider/anthropic"
	"github.com/ikigai-tools/ikigai/internal/provider/providertest"
)

func connect(t *testing.T, rootURL string, c provider.Config) provider.Provider {
	c.APIKey, c.BaseURL = "test-key", rootURL
	p, err := anthropic.New(c)
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

var hello = provider.Request{Model: "m", Messages: []provider.Message{provider.UserText("hi")}}

func TestRequestBody(t *testing.T) {
	p := providertest.Play(t, connect, provider.Config{}, conversation, providertest.Reply{Text: "ok"})
	if p.Err != nil {
		t.Fatal(p.Err)
	}
	got := p.Requests[0]
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
	p := providertest.Play(t, connect, provider.Config{}, hello, providertest.Reply{Text: "ok"})
	if p.Err != nil {
		t.Fatal(p.Err)
	}
	var body struct {
		MaxTokens int `json:"max_tokens"`
	}
	json.Unmarshal(p.Requests[0].Body, &body)
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
	keyless := func(t *testing.T, root string, c provider.Config) provider.Provider {
		c.BaseURL = root
		p, err := anthropic.New(c)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := providertest.Play(t, keyless, provider.Config{}, hello, providertest.Reply{Text: "ok"})
	if p.Err != nil {
		t.Fatal(p.Err)
	}
	h := p.Requests[0].Header
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

// A 404 at a base URL says where the request went and what to try.
func TestNotFoundAtBaseURL(t *testing.T) {
	var root string
	withV1 := func(t *testing.T, r string, c provider.Config) provider.Provider {
		root = r
		return connect(t, r+"/v1", c)
	}
	err := providertest.Play(t, withV1, provider.Config{Retry: provider.Retry{Attempts: 1}}, hello, providertest.Reply{Text: "never"}).Err
	want := "anthropic: not found (HTTP 404) at " + root + "/v1/v1/messages: the fake provider has no route POST /v1/v1/messages\n" +
		"To fix it:\n" +
		"  1. Leave /v1 out of the base URL, which ikigai adds: --base-url " + root + "\n" +
		"  2. If the server speaks OpenAI's API: --provider openai-compatible"
	if err == nil || err.Error() != want {
		t.Errorf("got\n%v\nwant\n%s", err, want)
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
			err := providertest.Play(t, connect, provider.Config{}, hello, providertest.Reply{Raw: raw}).Err
			var e *provider.Error
			if !errors.As(err, &e) || e.Kind != provider.BadResponse {
				t.Errorf("got %v, want a bad response", err)
			}
		})
	}
}

// The body is what the official SDK sent for the same request, byte for
// byte: field order, omitted fields, escaping. The headers are the API's.
func TestRequestBytes(t *testing.T) {
	req := provider.Request{
		Model: "m", System: "Be terse.", MaxTokens: 100,
		Tools: []provider.Tool{{Name: "ls", Description: "List", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}},
		Messages: []provider.Message{
			provider.UserText("hi"),
			{Role: provider.Assistant, Parts: []provider.Part{provider.Text("ok"), provider.ToolCall{ID: "a", Name: "ls", Arguments: json.RawMessage(`{}`)}}},
			{Role: provider.User, Parts: []provider.Part{provider.ToolResult{CallID: "a", Content: "{}", IsError: true}}},
		},
	}
	const want = `{"max_tokens":100,"messages":[{"content":[{"text":"hi","type":"text"}],"role":"user"},` +
		`{"content":[{"text":"ok","type":"text"},{"id":"a","input":{},"name":"ls","type":"tool_use"}],"role":"assistant"},` +
		`{"content":[{"tool_use_id":"a","is_error":true,"content":[{"text":"{}","type":"text"}],"type":"tool_result"}],"role":"user"}],` +
		`"model":"m","cache_control":{"type":"ephemeral"},"system":[{"text":"Be terse.","type":"text"}],` +
		`"tools":[{"input_schema":{"type":"object","properties":{}},"name":"ls","description":"List"}],"stream":true}`
	p := providertest.Play(t, connect, provider.Config{}, req, providertest.Reply{Text: "ok"})
	if p.Err != nil {
		t.Fatal(p.Err)
	}
	got := p.Requests[0]
	if string(got.Body) != want {
		t.Errorf("body\n%s\nwant\n%s", got.Body, want)
	}
	for name, want := range map[string]string{
		"X-Api-Key":         "test-key",
		"Anthropic-Version": "2023-06-01",
		"Content-Type":      "application/json",
		"Accept":            "text/event-stream",
		"User-Agent":        provider.UserAgent,
	} {
		if v := got.Header.Get(name); v != want {
			t.Errorf("%s: %q, want %q", name, v, want)
		}
	}
}

// A stream in every shape the format allows reads as the same answer.
func TestStreamShapes(t *testing.T) {
	events := [][2]string{
		{"message_start", `{"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":5,"cache_read_input_tokens":3,"output_tokens":1}}}`},
		{"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
		{"ping", `{"type": "ping"}`},
		{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi, "}}`},
		{"content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"there."}}`},
		{"content_block_stop", `{"type":"content_block_stop","index":0}`},
		{"content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"bash","input":{}}}`},
		{"content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"command\": "}}`},
		{"content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\"ls\"}"}}`},
		{"content_block_stop", `{"type":"content_block_stop","index":1}`},
		{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":9}}`},
		{"message_stop", `{"type":"message_stop"}`},
	}
	shapes := providertest.Spellings(events)
	shapes["junk after message_stop"] = shapes["LF"] + "event: nonsense\ndata: {oops\n\n"
	call := provider.ToolCall{ID: "toolu_1", Name: "bash", Arguments: json.RawMessage(`{"command": "ls"}`)}
	for name, raw := range shapes {
		t.Run(name, func(t *testing.T) {
			p := providertest.Play(t, connect, provider.Config{}, hello, providertest.Reply{Raw: raw})
			if p.Err != nil {
				t.Fatal(p.Err)
			}
			want := []provider.Event{
				{Kind: provider.TextDelta, Text: "Hi, "},
				{Kind: provider.TextDelta, Text: "there."},
				{Kind: provider.ToolCallReady, ToolCall: call},
			}
			if d := cmp.Diff(want, p.Events); d != "" {
				t.Errorf("events (-want +got):\n%s", d)
			}
			if d := cmp.Diff(&provider.Response{
				Message:    provider.Message{Role: provider.Assistant, Parts: []provider.Part{provider.Text("Hi, there."), call}},
				StopReason: provider.ToolUse,
				Usage:      provider.Usage{InputTokens: 8, OutputTokens: 9, CacheReadTokens: 3},
			}, p.Response); d != "" {
				t.Errorf("response (-want +got):\n%s", d)
			}
		})
	}
}

// An error event ends the stream with its error, whatever shape it has.
func TestErrorEvents(t *testing.T) {
	const start = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"usage\":{\"input_tokens\":1}}}\n\n"
	for _, tc := range []struct {
		name, raw string
		kind      provider.Kind
		message   string
	}{
		{"overloaded", start + "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
			provider.Overloaded, "the response stream failed: overloaded_error: Overloaded"},
		{"without an event name", start + "data: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"boom\"}}\n\n",
			provider.Server, "the response stream failed: api_error: boom"},
		{"data that is not JSON", start + "event: error\ndata: upstream went away\n\n",
			provider.Server, "the response stream failed: error: upstream went away"},
		{"before message_start", "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"slow\"}}\n\n",
			provider.RateLimit, "the response stream failed: rate_limit_error: slow"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := providertest.Play(t, connect, provider.Config{Retry: provider.Retry{Attempts: 1}}, hello, providertest.Reply{Raw: tc.raw}).Err
			var e *provider.Error
			if !errors.As(err, &e) || e.Kind != tc.kind || e.Message != tc.message {
				t.Errorf("got %v, want a %v error saying %q", err, tc.kind, tc.message)
			}
		})
	}
}

// The user's images go as image blocks after the text; a tool result's go
// inside the tool_result block, after its envelope. The fake checks each
// as the API does.
func TestImages(t *testing.T) {
	png := provider.Image{Name: "shot.png", MediaType: "image/png", Data: []byte("\x89PNG\r\n\x1a\npixels")}
	req := provider.Request{Model: "claude-test", Messages: []provider.Message{
		{Role: provider.User, Parts: []provider.Part{provider.Text("What is this?"), png}},
		{Role: provider.Assistant, Parts: []provider.Part{provider.ToolCall{ID: "toolu_a", Name: "file_read", Arguments: json.RawMessage(`{}`)}}},
		{Role: provider.User, Parts: []provider.Part{provider.ToolResult{CallID: "toolu_a", Content: envelopeOK, Images: []provider.Image{png}}}},
	}}
	p := providertest.Play(t, connect, provider.Config{}, req, providertest.Reply{Text: "ok"})
	if p.Err != nil {
		t.Fatal(p.Err)
	}
	image := map[string]any{"type": "image", "source": map[string]any{"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgpwaXhlbHM="}}
	want := []any{
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "What is this?"}, image}},
		map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "toolu_a", "name": "file_read", "input": map[string]any{}}}},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_a", "is_error": false,
			"content": []any{map[string]any{"type": "text", "text": envelopeOK}, image}}}},
	}
	var body struct{ Messages []any }
	if err := json.Unmarshal(p.Requests[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, body.Messages); d != "" {
		t.Errorf("messages (-want +got):\n%s", d)
	}
}

func TestModels(t *testing.T) {
	srv := providertest.NewServer(providertest.Transcript{Models: []string{"claude-opus-5", "claude-haiku-5"}})
	defer srv.Close()
	p, err := anthropic.New(anthropic.Config{APIKey: "test-key", BaseURL: srv.AnthropicURL()})
	if err != nil {
		t.Fatal(err)
	}
	models, err := p.Models(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"claude-opus-5", "claude-haiku-5"}, models); d != "" {
		t.Errorf("models (-want +got):\n%s", d)
	}
	got := srv.Requests()[0]
	if got.Method != "GET" || got.Path != "/v1/models" || got.Header.Get("X-Api-Key") != "test-key" || got.Header.Get("Anthropic-Version") == "" {
		t.Errorf("%s %s with headers %v", got.Method, got.Path, got.Header)
	}
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "<html>") }))
	defer bad.Close()
	p, _ = anthropic.New(anthropic.Config{BaseURL: bad.URL})
	var e *provider.Error
	if _, err := p.Models(context.Background()); !errors.As(err, &e) || e.Kind != provider.BadResponse {
		t.Errorf("a page that is not JSON: got %v, want a bad-response error", err)
	}
}

// Ids another provider gave may repeat, or hold characters the API does
// not take: such a call is renamed together with its result.
func TestRepeatedCallIDs(t *testing.T) {
	turn := func(id string) []provider.Message {
		return []provider.Message{
			{Role: provider.Assistant, Parts: []provider.Part{provider.ToolCall{ID: id, Name: "bash", Arguments: json.RawMessage(`{}`)}}},
			{Role: provider.User, Parts: []provider.Part{provider.ToolResult{CallID: id, Content: "{}"}}},
		}
	}
	msgs := []provider.Message{provider.UserText("Go.")}
	msgs = append(msgs, turn("call_1")...)
	msgs = append(msgs, turn("call_1")...)
	msgs = append(msgs, turn("call:x.1")...)
	p := providertest.Play(t, connect, provider.Config{}, provider.Request{Model: "m", Messages: msgs}, providertest.Reply{Text: "ok"})
	if p.Err != nil {
		t.Fatal(p.Err) // the fake refuses repeated ids, as the API does
	}
	var body struct {
		Messages []struct {
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(p.Requests[0].Body, &body)
	var got []string
	for _, m := range body.Messages[1:] {
		got = append(got, fmt.Sprintln(m.Content[0]["id"], m.Content[0]["tool_use_id"]))
	}
	want := []string{"call_1 <nil>\n", "<nil> call_1\n", "call_1_2 <nil>\n", "<nil> call_1_2\n", "call_x_1 <nil>\n", "<nil> call_x_1\n"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("ids (-want +got):\n%s", d)
	}
}
