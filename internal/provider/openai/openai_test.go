package openai_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/provider/openai"
	"github.com/ikigai-tools/ikigai/internal/provider/providertest"
)

func connect(t *testing.T, rootURL string, c provider.Config) provider.Provider {
	c.APIKey, c.BaseURL = "test-key", rootURL+"/v1"
	p, err := openai.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestContract(t *testing.T) {
	providertest.TestProvider(t, connect)
}

var hello = provider.Request{Model: "m", Messages: []provider.Message{provider.UserText("hi")}}

// compatible connects as to a server that copies the API.
func compatible(t *testing.T, rootURL string, c provider.Config) provider.Provider {
	c.APIKey, c.BaseURL = "test-key", rootURL+"/v1"
	p, err := openai.NewCompatible(c)
	if err != nil {
		t.Fatal(err)
	}
	return p
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
	p := providertest.Play(t, compatible, provider.Config{}, req, providertest.Reply{Text: "ok"})
	if p.Err != nil {
		t.Fatal(p.Err)
	}
	got := p.Requests[0]
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

// OpenAI's API, at any base URL, gets max_completion_tokens.
func TestOpenAIItself(t *testing.T) {
	req := hello
	req.MaxTokens = 500
	p := providertest.Play(t, connect, provider.Config{}, req, providertest.Reply{Text: "ok"})
	if p.Err != nil {
		t.Fatal(p.Err)
	}
	reqs := p.Requests
	var body map[string]any
	json.Unmarshal(reqs[0].Body, &body)
	if body["max_completion_tokens"] != 500.0 || body["max_tokens"] != nil {
		t.Errorf("max_completion_tokens %v, max_tokens %v; OpenAI's newer models want only the first", body["max_completion_tokens"], body["max_tokens"])
	}
	if h := reqs[0].Header.Get("Authorization"); h != "Bearer test-key" {
		t.Errorf("authorization %q", h)
	}

	_, err := openai.New(openai.Config{})
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
	for name, connect := range map[string]func(openai.Config) (*openai.Provider, error){"New": openai.New, "NewCompatible": openai.NewCompatible} {
		keyless := func(t *testing.T, root string, c provider.Config) provider.Provider {
			c.BaseURL = root + "/v1"
			p, err := connect(c)
			if err != nil {
				t.Fatal(err)
			}
			return p
		}
		p := providertest.Play(t, keyless, provider.Config{}, hello, providertest.Reply{Text: "ok"})
		if p.Err != nil {
			t.Fatal(p.Err)
		}
		if h := p.Requests[0].Header.Get("Authorization"); h != "" {
			t.Errorf("%s: authorization %q sent", name, h)
		}
	}
	if _, err := openai.NewCompatible(openai.Config{}); err == nil || err.Error() != "openai-compatible: no base URL: --base-url names the server" {
		t.Errorf("a compatible server without a URL: %v", err)
	}
}

// A 404 at a base URL says where the request went and what to try.
func TestNotFoundAtBaseURL(t *testing.T) {
	var root string
	withoutV1 := func(t *testing.T, r string, c provider.Config) provider.Provider {
		root = r
		c.BaseURL = r
		p, err := openai.NewCompatible(c)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	err := providertest.Play(t, withoutV1, provider.Config{Retry: provider.Retry{Attempts: 1}}, hello, providertest.Reply{Text: "never"}).Err
	want := "openai-compatible: not found (HTTP 404) at " + root + "/chat/completions: the fake provider has no route POST /chat/completions\n" +
		"To fix it:\n" +
		"  1. Most servers want /v1 at the end of the base URL: --base-url " + root + "/v1\n" +
		"  2. If the server speaks Anthropic's API: --provider anthropic"
	if err == nil || err.Error() != want {
		t.Errorf("got\n%v\nwant\n%s", err, want)
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
			p := providertest.Play(t, connect, provider.Config{}, hello, providertest.Reply{Raw: tc.raw})
			if p.Err != nil {
				t.Fatal(p.Err)
			}
			res := p.Response
			var ready []provider.ToolCall
			for _, ev := range p.Events {
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
			err := providertest.Play(t, connect, provider.Config{}, hello, providertest.Reply{Raw: raw}).Err
			var e *provider.Error
			if !errors.As(err, &e) || e.Kind != provider.BadResponse {
				t.Errorf("got %v, want a bad response", err)
			}
		})
	}
}

func TestQuotaIsNotRetried(t *testing.T) {
	p := providertest.Play(t, connect, provider.Config{Retry: provider.Retry{Backoff: 1}}, hello,
		providertest.Reply{Status: 429, ErrorType: "insufficient_quota", Error: "You exceeded your current quota"},
		providertest.Reply{Text: "never"})
	var e *provider.Error
	if !errors.As(p.Err, &e) || e.Kind != provider.RateLimit || e.Type != "insufficient_quota" || len(p.Requests) != 1 {
		t.Errorf("got %v after %d requests, want one rate-limit error", p.Err, len(p.Requests))
	}
}

// The body is what the official SDK sent for the same request, byte for
// byte: field order, omitted fields, no escaping of <, > and &.
func TestRequestBytes(t *testing.T) {
	req := provider.Request{
		Model: "m", System: "Be <terse>.", MaxTokens: 100,
		Tools: []provider.Tool{{Name: "ls", Description: "List", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}},
		Messages: []provider.Message{
			provider.UserText("hi"),
			{Role: provider.Assistant, Parts: []provider.Part{provider.Text("ok"), provider.ToolCall{ID: "a", Name: "ls", Arguments: json.RawMessage(`{}`)}}},
			{Role: provider.User, Parts: []provider.Part{provider.ToolResult{CallID: "a", Content: "{}", IsError: true}}},
		},
	}
	const want = `{"messages":[{"content":"Be <terse>.","role":"system"},{"content":"hi","role":"user"},` +
		`{"content":"ok","tool_calls":[{"id":"a","function":{"arguments":"{}","name":"ls"},"type":"function"}],"role":"assistant"},` +
		`{"content":"{}","tool_call_id":"a","role":"tool"}],"model":"m","max_tokens":100,"stream_options":{"include_usage":true},` +
		`"tools":[{"function":{"name":"ls","description":"List","parameters":{"properties":{},"type":"object"}},"type":"function"}],"stream":true}`
	p := providertest.Play(t, compatible, provider.Config{}, req, providertest.Reply{Text: "ok"})
	if p.Err != nil {
		t.Fatal(p.Err)
	}
	reqs := p.Requests
	if string(reqs[0].Body) != want {
		t.Errorf("body\n%s\nwant\n%s", reqs[0].Body, want)
	}
	for name, want := range map[string]string{
		"Authorization": "Bearer test-key",
		"Content-Type":  "application/json",
		"Accept":        "text/event-stream",
		"User-Agent":    provider.UserAgent,
	} {
		if v := reqs[0].Header.Get(name); v != want {
			t.Errorf("%s: %q, want %q", name, v, want)
		}
	}
}

// A stream in every shape the format allows, and that compatible servers
// send, reads as the same answer.
func TestStreamShapes(t *testing.T) {
	chunks := [][2]string{
		{"", `{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`},
		{"", `{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi, "},"finish_reason":null}]}`},
		{"", `{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"there."},"finish_reason":null}]}`},
		{"", `{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"bash","arguments":""}}]},"finish_reason":null}]}`},
		{"", `{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"command\": "}}]},"finish_reason":null}]}`},
		{"", `{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"ls\"}"}}]},"finish_reason":null}]}`},
		{"", `{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`},
		{"", `{"id":"c","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":8,"completion_tokens":9,"total_tokens":17}}`},
		{"", `[DONE]`},
	}
	shapes := providertest.Spellings(chunks)
	named := slices.Clone(chunks)
	withError := slices.Clone(chunks)
	for i := range chunks {
		named[i][0] = "chunk"
		withError[i][1] = strings.Replace(chunks[i][1], `{"id":"c",`, `{"error":null,"id":"c",`, 1)
	}
	shapes["named events"] = providertest.Spellings(named)["LF"]
	shapes["a null error"] = providertest.Spellings(withError)["LF"]
	shapes["no [DONE]"] = providertest.Spellings(chunks[:len(chunks)-1])["LF"]
	shapes["junk after [DONE]"] = shapes["LF"] + "data: {oops\n\n"
	call := provider.ToolCall{ID: "call_1", Name: "bash", Arguments: json.RawMessage(`{"command": "ls"}`)}
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
				Usage:      provider.Usage{InputTokens: 8, OutputTokens: 9},
			}, p.Response); d != "" {
				t.Errorf("response (-want +got):\n%s", d)
			}
		})
	}
}

// A chunk that carries an error ends the stream with it.
func TestErrorChunks(t *testing.T) {
	const text = `data: {"choices":[{"index":0,"delta":{"content":"Half"}}]}` + "\n\n"
	for _, tc := range []struct {
		name, raw string
		kind      provider.Kind
		message   string
	}{
		{"OpenAI's", text + `data: {"error":{"message":"The server had an error","type":"server_error"}}` + "\n\n",
			provider.Server, "the response stream failed: server_error: The server had an error"},
		{"a code", `data: {"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}` + "\n\n",
			provider.RateLimit, "the response stream failed: rate_limit_exceeded: Rate limit reached"},
		{"a string", text + `data: {"error":"upstream timed out"}` + "\n\n",
			provider.Server, "the response stream failed: error: upstream timed out"},
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

func TestModels(t *testing.T) {
	srv := providertest.NewServer(providertest.Transcript{Models: []string{"qwen3:8b", "llama3.2"}})
	defer srv.Close()
	p, err := openai.New(openai.Config{APIKey: "test-key", BaseURL: srv.OpenAIURL()})
	if err != nil {
		t.Fatal(err)
	}
	models, err := p.Models(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := srv.Requests()[0]
	if d := cmp.Diff([]string{"qwen3:8b", "llama3.2"}, models); d != "" {
		t.Errorf("models (-want +got):\n%s", d)
	}
	if got.Method != "GET" || got.Path != "/v1/models" || got.Header.Get("Authorization") != "Bearer test-key" || got.Header.Get("Accept") != "application/json" {
		t.Errorf("%s %s with headers %v", got.Method, got.Path, got.Header)
	}

	for _, tc := range []struct {
		status int
		body   string
		kind   provider.Kind
	}{
		{200, "<html>It works!</html>", provider.BadResponse},
		{200, `{"data":[{"id":`, provider.BadResponse},
		{404, `404 page not found`, provider.BadRequest},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(tc.status)
			io.WriteString(w, tc.body)
		}))
		p, _ := openai.New(openai.Config{BaseURL: srv.URL + "/v1"})
		_, err := p.Models(context.Background())
		srv.Close()
		var e *provider.Error
		if !errors.As(err, &e) || e.Kind != tc.kind {
			t.Errorf("%d %s: got %v, want a %v error", tc.status, tc.body, err, tc.kind)
		}
	}
}

// The user's images go as image_url parts with data URLs. A tool message
// holds only text, so a result's images follow in the user's message,
// after a line saying whose they are. The fake refuses images anywhere
// else, as the API does.
func TestImages(t *testing.T) {
	png := provider.Image{Name: "shot.png", MediaType: "image/png", Data: []byte("\x89PNG\r\n\x1a\npixels")}
	req := provider.Request{Model: "gpt-test", Messages: []provider.Message{
		{Role: provider.User, Parts: []provider.Part{provider.Text("What is this?"), png}},
		{Role: provider.Assistant, Parts: []provider.Part{provider.ToolCall{ID: "call_a", Name: "file_read", Arguments: json.RawMessage(`{}`)}}},
		{Role: provider.User, Parts: []provider.Part{provider.ToolResult{CallID: "call_a", Content: envelopeOK, Images: []provider.Image{png}}}},
	}}
	p := providertest.Play(t, connect, provider.Config{}, req, providertest.Reply{Text: "ok"})
	if p.Err != nil {
		t.Fatal(p.Err)
	}
	image := map[string]any{"type": "image_url", "image_url": map[string]any{"url": "data:image/png;base64,iVBORw0KGgpwaXhlbHM="}}
	want := []any{
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "What is this?"}, image}},
		map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{"id": "call_a", "type": "function",
			"function": map[string]any{"name": "file_read", "arguments": "{}"}}}},
		map[string]any{"role": "tool", "tool_call_id": "call_a", "content": envelopeOK},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": "The images the result of call call_a carried:"}, image}},
	}
	var body struct{ Messages []any }
	if err := json.Unmarshal(p.Requests[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, body.Messages); d != "" {
		t.Errorf("messages (-want +got):\n%s", d)
	}
}
