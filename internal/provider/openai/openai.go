// Package openai is the provider for OpenAI's Chat Completions API,
// streamed, on net/http. Tools go out as functions with their JSON Schema
// as parameters; a tool's result goes back as a tool message with its
// call's id. Given another base URL it is the provider for any
// OpenAI-compatible server: Ollama, llama.cpp's server, vLLM, LM Studio,
// OpenRouter.
package openai

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/provider/sse"
)

const (
	// DefaultModel is the model used with OpenAI's API when none is
	// configured. Other servers have no default: pick asks them.
	DefaultModel = "gpt-5.5"
	// DefaultBaseURL is OpenAI's API.
	DefaultBaseURL = "https://api.openai.com/v1"
	// KeyEnv is the environment variable that holds the API key, for
	// OpenAI and any compatible server that wants one.
	KeyEnv = "OPENAI_API_KEY"
)

// Config is what a Provider needs to reach the API.
type Config struct {
	APIKey     string
	BaseURL    string       // DefaultBaseURL when empty
	HTTPClient *http.Client // http.DefaultClient when nil
	Retry      provider.Retry
}

// A Provider streams from a Chat Completions API. It is safe for
// concurrent use.
type Provider struct {
	client   *http.Client
	base     string
	header   http.Header
	api      provider.API
	retry    provider.Retry
	official bool // the server is OpenAI's own
}

// New returns a Provider for c. OpenAI's own API needs a key; for any
// other server a key is sent only when there is one.
func New(c Config) (*Provider, error) {
	base := strings.TrimSuffix(cmp.Or(c.BaseURL, DefaultBaseURL), "/")
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("openai: base URL %q is not an http or https URL", base)
	}
	p := &Provider{
		client:   cmp.Or(c.HTTPClient, http.DefaultClient),
		base:     base,
		header:   http.Header{"User-Agent": {provider.UserAgent}},
		retry:    c.Retry,
		official: u.Host == "api.openai.com",
	}
	p.api = provider.API{Name: "openai-compatible", BaseURL: base, KeyEnv: KeyEnv}
	if p.official {
		p.api.Name, p.api.KeyURL = "openai", "https://platform.openai.com/api-keys"
		if c.APIKey == "" {
			return nil, p.api.MissingKey()
		}
	}
	if c.APIKey != "" {
		p.header.Set("Authorization", "Bearer "+c.APIKey)
	}
	return p, nil
}

// newRequest returns a request to the endpoint at path, with the headers
// every request carries.
func (p *Provider) newRequest(ctx context.Context, method, path string, body []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, p.base+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header = p.header.Clone()
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// Stream implements provider.Provider.
func (p *Provider) Stream(ctx context.Context, req provider.Request, on func(provider.Event)) (*provider.Response, error) {
	// Like the official SDK, the body keeps <, > and & as they are.
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	enc.SetEscapeHTML(false)
	enc.Encode(p.newBody(req)) // cannot fail: every value is a string, a number or checked JSON
	body.Truncate(body.Len() - 1)
	return p.retry.Do(ctx, on, func(on func(provider.Event)) (*provider.Response, error) {
		hreq, err := p.newRequest(ctx, http.MethodPost, "/chat/completions", body.Bytes())
		if err != nil {
			return nil, err
		}
		stream, err := p.api.Events(hreq, p.client.Do)
		if err != nil {
			return nil, err
		}
		defer stream.Close()
		return read(ctx, p.api, stream, on)
	})
}

// Models lists the models the server offers, in its order.
func (p *Provider) Models(ctx context.Context) ([]string, error) {
	req, err := p.newRequest(ctx, http.MethodGet, "/models", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	res, err := p.api.Send(req, p.client.Do)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, 16<<20))
	res.Body.Close()
	if err != nil {
		return nil, p.api.Failure(ctx, err)
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, p.api.Malformed("the model list: " + err.Error())
	}
	ids := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		ids = append(ids, m.ID)
	}
	return ids, nil
}

// request is the body of a Chat Completions request. Its fields, and those
// of the types below, are in the order the official SDK writes them.
type request struct {
	Messages            []message     `json:"messages"`
	Model               string        `json:"model"`
	MaxCompletionTokens int           `json:"max_completion_tokens,omitempty"`
	MaxTokens           int           `json:"max_tokens,omitempty"`
	StreamOptions       streamOptions `json:"stream_options"`
	Tools               []tool        `json:"tools,omitempty"`
	Stream              bool          `json:"stream"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type message struct {
	Content    *string    `json:"content,omitempty"` // nil for an assistant message of tool calls only
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Role       string     `json:"role"`
}

type toolCall struct {
	ID       string `json:"id"`
	Function struct {
		Arguments string `json:"arguments"`
		Name      string `json:"name"`
	} `json:"function"`
	Type string `json:"type"`
}

type tool struct {
	Function struct {
		Name        string                     `json:"name"`
		Description string                     `json:"description,omitempty"`
		Parameters  map[string]json.RawMessage `json:"parameters"`
	} `json:"function"`
	Type string `json:"type"`
}

func (p *Provider) newBody(req provider.Request) request {
	r := request{
		Messages:      messages(req.System, req.Messages),
		Model:         req.Model,
		StreamOptions: streamOptions{IncludeUsage: true},
		Stream:        true,
	}
	if req.MaxTokens > 0 {
		// OpenAI's newer models refuse max_tokens; the servers that copy
		// the API know max_tokens better than its successor.
		if p.official {
			r.MaxCompletionTokens = req.MaxTokens
		} else {
			r.MaxTokens = req.MaxTokens
		}
	}
	for _, t := range req.Tools {
		var fn tool
		fn.Type = "function"
		fn.Function.Name, fn.Function.Description = t.Name, t.Description
		fn.Function.Parameters = parameters(t.Parameters)
		r.Tools = append(r.Tools, fn)
	}
	return r
}

// parameters is a tool's schema as it goes out: its fields in the order
// of their names, as the official SDK wrote them, each value exactly as the
// tool wrote it.
func parameters(schema json.RawMessage) map[string]json.RawMessage {
	var fields map[string]json.RawMessage
	if json.Unmarshal(schema, &fields) != nil || fields == nil {
		return map[string]json.RawMessage{"type": json.RawMessage(`"object"`), "properties": json.RawMessage(`{}`)}
	}
	return fields
}

func messages(system string, ms []provider.Message) []message {
	var out []message
	if system != "" {
		out = append(out, message{Content: &system, Role: "system"})
	}
	for _, m := range ms {
		if m.Role == provider.Assistant {
			out = append(out, assistant(m))
			continue
		}
		// Tool results are messages of their own, and come first: they
		// answer the assistant message just before.
		results := 0
		for _, part := range m.Parts {
			if r, ok := part.(provider.ToolResult); ok {
				out = append(out, message{Content: &r.Content, ToolCallID: r.CallID, Role: "tool"})
				results++
			}
		}
		if text := m.Text(); text != "" || results == 0 {
			out = append(out, message{Content: &text, Role: "user"})
		}
	}
	return out
}

func assistant(m provider.Message) message {
	a := message{Role: "assistant"}
	for _, c := range m.ToolCalls() {
		tc := toolCall{ID: c.ID, Type: "function"}
		tc.Function.Arguments, tc.Function.Name = string(c.Arguments), c.Name
		a.ToolCalls = append(a.ToolCalls, tc)
	}
	// The API wants content, tool calls, or both.
	if text := m.Text(); text != "" || len(a.ToolCalls) == 0 {
		a.Content = &text
	}
	return a
}

// A chunk is one event of the stream: a piece of the answer, the usage at
// the end, or an error.
type chunk struct {
	Choices []struct {
		Index int64 `json:"index"`
		Delta struct {
			Content   string `json:"content"`
			Refusal   string `json:"refusal"`
			ToolCalls []struct {
				Index    int64  `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// read turns the event stream body into provider events and the response.
// The stream ends at data: [DONE], or where the body does; events without
// data are skipped, and one that carries an error ends it with that error.
func read(ctx context.Context, api provider.API, body io.Reader, on func(provider.Event)) (*provider.Response, error) {
	stream := sse.NewReader(body)
	a := assembler{on: on, byIndex: map[int64]*call{}}
	for {
		msg, err := stream.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, api.Failure(ctx, err)
		}
		if bytes.HasPrefix(msg.Data, []byte("[DONE]")) {
			break
		}
		if len(msg.Data) == 0 {
			continue
		}
		var c chunk
		if err := json.Unmarshal(msg.Data, &c); err != nil {
			return nil, api.Malformed(err.Error())
		}
		if len(c.Error) > 0 && string(c.Error) != "null" {
			return nil, api.StreamError(msg.Data)
		}
		a.add(c)
	}
	if a.finish == "" {
		return nil, api.Malformed("it ended before a finish_reason")
	}
	return a.response(), nil
}

// An assembler builds a response from chunks. A tool call arrives in
// fragments: the first names it, the rest add to its arguments, all under
// one index. A fragment with a new id at a used index is a new call: some
// compatible servers number every call 0.
type assembler struct {
	on      func(provider.Event)
	text    strings.Builder
	calls   []*call // in the order they began
	byIndex map[int64]*call
	ready   int // calls reported so far
	finish  string
	usage   provider.Usage
}

type call struct {
	provider.ToolCall
	args strings.Builder
}

func (a *assembler) emit(ev provider.Event) {
	if a.on != nil {
		a.on(ev)
	}
}

func (a *assembler) add(ch chunk) {
	if u := ch.Usage; u.PromptTokens > 0 || u.CompletionTokens > 0 {
		a.usage = provider.Usage{InputTokens: int(u.PromptTokens), OutputTokens: int(u.CompletionTokens)}
	}
	for _, choice := range ch.Choices {
		if choice.Index != 0 {
			continue // only one answer was asked for
		}
		d := choice.Delta
		for _, s := range []string{d.Content, d.Refusal} {
			if s != "" {
				a.text.WriteString(s)
				a.emit(provider.Event{Kind: provider.TextDelta, Text: s})
			}
		}
		for _, frag := range d.ToolCalls {
			c := a.byIndex[frag.Index]
			if c == nil || (frag.ID != "" && c.ID != "" && frag.ID != c.ID) {
				// Calls stream one after another: a new one completes
				// those before it.
				a.flush()
				c = &call{}
				a.calls = append(a.calls, c)
				a.byIndex[frag.Index] = c
			}
			c.ID = cmp.Or(c.ID, frag.ID)
			c.Name = cmp.Or(c.Name, frag.Function.Name)
			c.args.WriteString(frag.Function.Arguments)
		}
		if choice.FinishReason != "" {
			a.finish = choice.FinishReason
			a.flush()
		}
	}
}

// flush reports the calls not yet reported.
func (a *assembler) flush() {
	for ; a.ready < len(a.calls); a.ready++ {
		c := a.calls[a.ready]
		if c.ID == "" {
			c.ID = fmt.Sprintf("call_%d", a.ready+1) // a server that gives no ids
		}
		c.Arguments = json.RawMessage(cmp.Or(c.args.String(), "{}"))
		a.emit(provider.Event{Kind: provider.ToolCallReady, ToolCall: c.ToolCall})
	}
}

func (a *assembler) response() *provider.Response {
	a.flush()
	res := &provider.Response{Message: provider.Message{Role: provider.Assistant}, Usage: a.usage}
	if a.text.Len() > 0 {
		res.Message.Parts = append(res.Message.Parts, provider.Text(a.text.String()))
	}
	for _, c := range a.calls {
		res.Message.Parts = append(res.Message.Parts, c.ToolCall)
	}
	switch {
	case a.finish == "length":
		res.StopReason = provider.MaxTokens
	case len(a.calls) > 0 || a.finish == "tool_calls" || a.finish == "function_call":
		// Some compatible servers say "stop" after tool calls.
		res.StopReason = provider.ToolUse
	case a.finish == "stop":
		res.StopReason = provider.EndTurn
	default:
		res.StopReason = provider.Other
	}
	return res
}
