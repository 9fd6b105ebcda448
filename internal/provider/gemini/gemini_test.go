package gemini_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/provider/gemini"
	"github.com/ikigai-tools/ikigai/internal/provider/providertest"
)

func connect(t *testing.T, rootURL string, c provider.Config) provider.Provider {
	c.APIKey, c.BaseURL = "test-key", rootURL
	p, err := gemini.New(c)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestContract(t *testing.T) {
	providertest.TestProvider(t, connect)
}

const envelopeOK = `{"tool_success":true,"result":{"output":"a.txt","exit_code":0}}`

var hello = provider.Request{Model: "gemini-test", Messages: []provider.Message{provider.UserText("hi")}}

func TestRequestBody(t *testing.T) {
	req := provider.Request{
		Model:     "gemini-test",
		System:    "You are terse.",
		MaxTokens: 1000,
		Tools: []provider.Tool{
			{Name: "bash", Description: "Run a command", Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"],"additionalProperties":false}`)},
			{Name: "now"},
		},
		Messages: []provider.Message{
			provider.UserText("List <and> count."),
			{Role: provider.Assistant, Parts: []provider.Part{
				provider.Text("Looking."),
				provider.ToolCall{ID: "c1", Name: "bash", Arguments: json.RawMessage(`{"command":"ls"}`), Signature: "sig1"},
				provider.ToolCall{ID: "c2", Name: "now", Arguments: json.RawMessage(`{"oops`)},
			}},
			{Role: provider.User, Parts: []provider.Part{
				provider.Text("Be brief."),
				provider.ToolResult{CallID: "c1", Content: envelopeOK},
				provider.ToolResult{CallID: "c2", Content: "plain failure", IsError: true},
			}},
		},
	}
	p := providertest.Play(t, connect, provider.Config{}, req, providertest.Reply{Text: "ok"})
	if p.Err != nil {
		t.Fatal(p.Err)
	}
	got := p.Requests[0]
	if got.Path != "/v1beta/models/gemini-test:streamGenerateContent" || got.Header.Get("X-Goog-Api-Key") != "test-key" {
		t.Errorf("%s with headers %v, want the model's streamGenerateContent with the key", got.Path, got.Header)
	}
	want := map[string]any{
		"systemInstruction": map[string]any{"parts": []any{map[string]any{"text": "You are terse."}}},
		"generationConfig":  map[string]any{"maxOutputTokens": 1000.0},
		"tools": []any{map[string]any{"functionDeclarations": []any{
			// The schema goes through unchanged, additionalProperties and all.
			map[string]any{"name": "bash", "description": "Run a command", "parametersJsonSchema": map[string]any{
				"type": "object", "properties": map[string]any{"command": map[string]any{"type": "string"}},
				"required": []any{"command"}, "additionalProperties": false}},
			map[string]any{"name": "now", "parametersJsonSchema": map[string]any{"type": "object", "properties": map[string]any{}}},
		}}},
		"contents": []any{
			map[string]any{"role": "user", "parts": []any{map[string]any{"text": "List <and> count."}}},
			map[string]any{"role": "model", "parts": []any{
				map[string]any{"text": "Looking."},
				map[string]any{"functionCall": map[string]any{"id": "c1", "name": "bash", "args": map[string]any{"command": "ls"}}, "thoughtSignature": "sig1"},
				map[string]any{"functionCall": map[string]any{"id": "c2", "name": "now", "args": map[string]any{}}},
			}},
			// Results first, named, in call order; then the text.
			map[string]any{"role": "user", "parts": []any{
				map[string]any{"functionResponse": map[string]any{"id": "c1", "name": "bash", "response": map[string]any{
					"tool_success": true, "result": map[string]any{"output": "a.txt", "exit_code": 0.0}}}},
				map[string]any{"functionResponse": map[string]any{"id": "c2", "name": "now", "response": map[string]any{"error": "plain failure"}}},
				map[string]any{"text": "Be brief."},
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
	if !strings.Contains(string(got.Body), "<and>") {
		t.Errorf("body escapes <, > or &: %s", got.Body)
	}
}

// Calls Gemini made without ids get ids of their own, unique in the
// conversation; all of them are answered, by order.
func TestCallsWithoutIDs(t *testing.T) {
	raw := `data: {"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"bash","args":{"command":"ls"}},"thoughtSignature":"c2ln"},{"functionCall":{"name":"bash","args":{"command":"pwd"}}}]},"index":0}],"responseId":"r1"}` + "\r\n\r\n" +
		`data: {"candidates":[{"content":{"role":"model","parts":[{"text":""}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":9,"candidatesTokenCount":4,"thoughtsTokenCount":20},"responseId":"r1"}` + "\r\n\r\n"
	p := providertest.Play(t, connect, provider.Config{}, hello, providertest.Reply{Raw: raw})
	if p.Err != nil {
		t.Fatal(p.Err)
	}
	want := []provider.ToolCall{
		{ID: "call_r1_1", Name: "bash", Arguments: json.RawMessage(`{"command":"ls"}`), Signature: "c2ln"},
		{ID: "call_r1_2", Name: "bash", Arguments: json.RawMessage(`{"command":"pwd"}`)},
	}
	if d := cmp.Diff(want, p.Response.Message.ToolCalls()); d != "" {
		t.Errorf("calls (-want +got):\n%s", d)
	}
	if p.Response.StopReason != provider.ToolUse || p.Response.Usage.OutputTokens != 24 || p.Response.Usage.InputTokens != 9 {
		t.Errorf("stop %q, usage %+v; want tool_use, thoughts counted as output", p.Response.StopReason, p.Response.Usage)
	}
}

// A conversation begun elsewhere (its calls without signatures) goes on
// with Gemini: the first call of each of those turns gets Google's
// documented stand-in, and the fake, which checks signatures as Gemini 3
// does, accepts it.
func TestCallsFromElsewhere(t *testing.T) {
	req := provider.Request{Model: "gemini-test", Messages: []provider.Message{
		provider.UserText("List."),
		{Role: provider.Assistant, Parts: []provider.Part{
			provider.ToolCall{ID: "toolu_1", Name: "bash", Arguments: json.RawMessage(`{}`)},
			provider.ToolCall{ID: "toolu_2", Name: "bash", Arguments: json.RawMessage(`{}`)},
		}},
		{Role: provider.User, Parts: []provider.Part{provider.ToolResult{CallID: "toolu_1", Content: "{}"}, provider.ToolResult{CallID: "toolu_2", Content: "{}"}}},
	}}
	p := providertest.Play(t, connect, provider.Config{}, req, providertest.Reply{Text: "ok"})
	if p.Err != nil {
		t.Fatal(p.Err)
	}
	var body struct {
		Contents []struct {
			Parts []struct {
				ThoughtSignature string `json:"thoughtSignature"`
			} `json:"parts"`
		} `json:"contents"`
	}
	json.Unmarshal(p.Requests[0].Body, &body)
	if got := body.Contents[1].Parts; got[0].ThoughtSignature != gemini.SkipSignature || got[1].ThoughtSignature != "" {
		t.Errorf("signatures %+v, want the stand-in on the first call only", got)
	}
}

// The fake refuses a current turn whose calls lost their signatures, as
// Gemini 3 does; the provider keeps them, so a tool loop goes through.
func TestSignaturesGoBack(t *testing.T) {
	srv := providertest.NewServer(providertest.Transcript{Replies: []providertest.Reply{
		{ToolCalls: []providertest.Call{{Name: "bash", Arguments: json.RawMessage(`{"command":"ls"}`)}}},
		{Text: "Done."},
	}})
	defer srv.Close()
	p := connect(t, srv.URL, provider.Config{})
	first, err := p.Stream(t.Context(), hello, nil)
	if err != nil {
		t.Fatal(err)
	}
	call := first.Message.ToolCalls()[0]
	if call.Signature == "" {
		t.Fatalf("call %+v lost its signature", call)
	}
	msgs := append(hello.Messages, first.Message, provider.Message{Role: provider.User, Parts: []provider.Part{provider.ToolResult{CallID: call.ID, Content: "{}"}}})
	if _, err := p.Stream(t.Context(), provider.Request{Model: "m", Messages: msgs}, nil); err != nil {
		t.Fatal(err)
	}
	// Without it, and without the stand-in, Gemini refuses.
	body := `{"contents":[{"role":"user","parts":[{"text":"hi"}]},{"role":"model","parts":[{"functionCall":{"id":"a","name":"bash","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"id":"a","name":"bash","response":{}}}]}]}`
	res, err := http.Post(srv.URL+"/v1beta/models/m:streamGenerateContent?alt=sse", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 400 {
		t.Errorf("a call without its signature: %d, want 400", res.StatusCode)
	}
}

func TestFailures(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply providertest.Reply
		kind  provider.Kind
		want  string
		tries int
	}{
		{"a refused key is an auth failure", providertest.Reply{Status: 400, ErrorType: "API_KEY_INVALID", Error: "API key not valid. Please pass a valid API key."},
			provider.Auth, "google: authentication failed (HTTP 400): API key not valid. Please pass a valid API key.\nTo fix it:\n  1. Check GEMINI_API_KEY", 1},
		{"a blocked prompt", providertest.Reply{Raw: `data: {"promptFeedback":{"blockReason":"SAFETY","safetyRatings":[{"category":"HARM_CATEGORY_DANGEROUS_CONTENT","probability":"HIGH","blocked":true},{"category":"HARM_CATEGORY_HARASSMENT","probability":"NEGLIGIBLE"}]},"usageMetadata":{"promptTokenCount":5}}` + "\n\n"},
			provider.BadRequest, "google: the prompt was blocked (SAFETY: HARM_CATEGORY_DANGEROUS_CONTENT)", 1},
		{"a blocked answer", providertest.Reply{Text: "Well", Stop: "PROHIBITED_CONTENT"},
			provider.BadRequest, "google: the answer was blocked (PROHIBITED_CONTENT)", 1},
		{"a malformed call is retried", providertest.Reply{Stop: "MALFORMED_FUNCTION_CALL"},
			provider.Server, "google: the model wrote a malformed function call (MALFORMED_FUNCTION_CALL) (gave up after 2 attempts)", 2},
		{"an ending without a reason", providertest.Reply{Raw: `data: {"candidates":[{"content":{"parts":[{"text":"Hi"}]},"index":0}]}` + "\n\n"},
			provider.BadResponse, "google: malformed response: it ended before a finishReason", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := providertest.Play(t, connect, provider.Config{Retry: provider.Retry{Attempts: 2, Backoff: 1}}, hello, tc.reply, tc.reply)
			var e *provider.Error
			if !asError(p.Err, &e) || e.Kind != tc.kind || !strings.HasPrefix(e.Error(), tc.want) || len(p.Requests) != tc.tries {
				t.Errorf("got %v (kind %v) after %d requests, want %v %q after %d", p.Err, kindOf(e), len(p.Requests), tc.kind, tc.want, tc.tries)
			}
		})
	}
}

// Google's 429 says how long to wait in its details.
func TestRetryDelay(t *testing.T) {
	raw := `{"error":{"code":429,"message":"Quota exceeded","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"7200s"}]}}`
	p := providertest.Play(t, connect, provider.Config{}, hello, providertest.Reply{Status: 429, Raw: raw, Headers: map[string]string{"Content-Type": "application/json"}})
	var e *provider.Error
	if !asError(p.Err, &e) || e.Kind != provider.RateLimit || !strings.Contains(e.Message, "asks to wait 2h0m0s") {
		t.Errorf("got %v, want the wait Google asked for", p.Err)
	}
}

func TestMissingKey(t *testing.T) {
	_, err := gemini.New(gemini.Config{})
	if err == nil || !strings.Contains(err.Error(), "google: no API key: GEMINI_API_KEY is not set") {
		t.Errorf("got %v", err)
	}
}

func asError(err error, e **provider.Error) bool { return errors.As(err, e) }

func kindOf(e *provider.Error) provider.Kind {
	if e == nil {
		return 0
	}
	return e.Kind
}

func TestModels(t *testing.T) {
	srv := providertest.NewServer(providertest.Transcript{Models: []string{"gemini-9-pro", "gemini-9-flash"}})
	defer srv.Close()
	p, err := gemini.New(gemini.Config{APIKey: "test-key", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	models, err := p.Models(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"gemini-9-pro", "gemini-9-flash"}, models); d != "" {
		t.Errorf("models (-want +got):\n%s", d)
	}
	got := srv.Requests()[0]
	if got.Method != "GET" || got.Path != "/v1beta/models" || got.Header.Get("X-Goog-Api-Key") != "test-key" {
		t.Errorf("%s %s with headers %v", got.Method, got.Path, got.Header)
	}
}

// Images go as inlineData: the user's where they are, a result's after the
// function responses of its turn, introduced; the fake checks them as the
// API does.
func TestImages(t *testing.T) {
	png := provider.Image{Name: "shot.png", MediaType: "image/png", Data: []byte("\x89PNG\r\n\x1a\npixels")}
	req := provider.Request{Model: "gemini-test", Messages: []provider.Message{
		{Role: provider.User, Parts: []provider.Part{provider.Text("What is this?"), png}},
		{Role: provider.Assistant, Parts: []provider.Part{provider.ToolCall{ID: "call_a", Name: "file_read", Arguments: json.RawMessage(`{}`)}}},
		{Role: provider.User, Parts: []provider.Part{provider.ToolResult{CallID: "call_a", Content: envelopeOK, Images: []provider.Image{png}}}},
	}}
	p := providertest.Play(t, connect, provider.Config{}, req, providertest.Reply{Text: "ok"})
	if p.Err != nil {
		t.Fatal(p.Err)
	}
	image := map[string]any{"inlineData": map[string]any{"mimeType": "image/png", "data": "iVBORw0KGgpwaXhlbHM="}}
	want := []any{
		map[string]any{"role": "user", "parts": []any{map[string]any{"text": "What is this?"}, image}},
		map[string]any{"role": "model", "parts": []any{map[string]any{"functionCall": map[string]any{"id": "call_a", "name": "file_read", "args": map[string]any{}},
			"thoughtSignature": gemini.SkipSignature}}},
		map[string]any{"role": "user", "parts": []any{
			map[string]any{"functionResponse": map[string]any{"id": "call_a", "name": "file_read", "response": map[string]any{
				"tool_success": true, "result": map[string]any{"output": "a.txt", "exit_code": 0.0}}}},
			map[string]any{"text": "The images the result of call call_a carried:"}, image}},
	}
	var body struct{ Contents []any }
	if err := json.Unmarshal(p.Requests[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, body.Contents); d != "" {
		t.Errorf("contents (-want +got):\n%s", d)
	}

	// An image of a type Gemini does not take is refused, as the API does.
	bmp := provider.Image{Name: "x.bmp", MediaType: "image/bmp", Data: []byte("BM")}
	req.Messages = []provider.Message{{Role: provider.User, Parts: []provider.Part{bmp}}}
	p = providertest.Play(t, connect, provider.Config{}, req, providertest.Reply{Text: "never"})
	var e *provider.Error
	if !asError(p.Err, &e) || e.Status != 400 || !strings.Contains(e.Message, "Unsupported MIME type: image/bmp") {
		t.Errorf("got %v, want the type refused", p.Err)
	}
}

// Ids another provider gave may repeat across turns (servers without ids
// number each answer's calls from 1): each result is named after the call
// of its own turn.
func TestRepeatedIDs(t *testing.T) {
	turn := func(name string) []provider.Message {
		return []provider.Message{
			{Role: provider.Assistant, Parts: []provider.Part{provider.ToolCall{ID: "call_1", Name: name, Arguments: json.RawMessage(`{}`)}}},
			{Role: provider.User, Parts: []provider.Part{provider.ToolResult{CallID: "call_1", Content: "{}"}}},
		}
	}
	msgs := append(append([]provider.Message{provider.UserText("Go.")}, turn("bash")...), turn("glob")...)
	p := providertest.Play(t, connect, provider.Config{}, provider.Request{Model: "m", Messages: msgs}, providertest.Reply{Text: "ok"})
	if p.Err != nil {
		t.Fatal(p.Err) // the fake refuses a response named after another call
	}
}
