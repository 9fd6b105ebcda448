// Package openai is the provider for OpenAI's Chat Completions API,
// streamed, through the official SDK. Tools go out as functions with their
// JSON Schema as parameters; a tool's result goes back as a tool message
// with its call's id. Given another base URL it is the provider for any
// OpenAI-compatible server: Ollama, llama.cpp's server, vLLM, LM Studio,
// OpenRouter.
package openai

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/shared"

	"github.com/ikigai-tools/ikigai/internal/provider"
)

const (
	// DefaultModel is the model used with OpenAI's API when none is
	// configured. Other servers have no default: pick asks them.
	DefaultModel = sdk.ChatModelGPT5_5
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
	client   sdk.Client
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
	p := &Provider{retry: c.Retry, official: u.Host == "api.openai.com"}
	p.api = provider.API{Name: "openai-compatible", BaseURL: base, KeyEnv: KeyEnv}
	if p.official {
		p.api.Name, p.api.KeyURL = "openai", "https://platform.openai.com/api-keys"
		if c.APIKey == "" {
			return nil, p.api.MissingKey()
		}
	}
	opts := []option.RequestOption{
		// The key and base URL come from c, even when empty, never from
		// the SDK's own reading of the environment.
		option.WithAPIKey(c.APIKey),
		option.WithBaseURL(base),
		// Retries are provider.Retry's, the same for every provider.
		option.WithMaxRetries(0),
		option.WithMiddleware(p.api.Middleware),
	}
	if c.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(c.HTTPClient))
	}
	p.client = sdk.NewClient(opts...)
	return p, nil
}

// Stream implements provider.Provider.
func (p *Provider) Stream(ctx context.Context, req provider.Request, on func(provider.Event)) (*provider.Response, error) {
	params := p.params(req)
	return p.retry.Do(ctx, on, func(on func(provider.Event)) (*provider.Response, error) {
		return read(ctx, p.api, p.client.Chat.Completions.NewStreaming(ctx, params), on)
	})
}

// Models lists the models the server offers, in its order.
func (p *Provider) Models(ctx context.Context) ([]string, error) {
	page, err := p.client.Models.List(ctx)
	if err != nil {
		return nil, p.api.Failure(ctx, err)
	}
	ids := make([]string, 0, len(page.Data))
	for _, m := range page.Data {
		ids = append(ids, m.ID)
	}
	return ids, nil
}

func (p *Provider) params(req provider.Request) sdk.ChatCompletionNewParams {
	params := sdk.ChatCompletionNewParams{
		Model:         req.Model,
		Messages:      messages(req.System, req.Messages),
		StreamOptions: sdk.ChatCompletionStreamOptionsParam{IncludeUsage: sdk.Bool(true)},
	}
	if req.MaxTokens > 0 {
		// OpenAI's newer models refuse max_tokens; the servers that copy
		// the API know max_tokens better than its successor.
		if p.official {
			params.MaxCompletionTokens = sdk.Int(int64(req.MaxTokens))
		} else {
			params.MaxTokens = sdk.Int(int64(req.MaxTokens))
		}
	}
	for _, t := range req.Tools {
		fn := shared.FunctionDefinitionParam{Name: t.Name, Parameters: parameters(t.Parameters)}
		if t.Description != "" {
			fn.Description = sdk.String(t.Description)
		}
		params.Tools = append(params.Tools, sdk.ChatCompletionFunctionTool(fn))
	}
	return params
}

// parameters is a tool's schema as the SDK takes it; each value goes out
// exactly as the tool wrote it.
func parameters(schema json.RawMessage) shared.FunctionParameters {
	var fields map[string]json.RawMessage
	if json.Unmarshal(schema, &fields) != nil || fields == nil {
		return shared.FunctionParameters{"type": "object", "properties": map[string]any{}}
	}
	params := make(shared.FunctionParameters, len(fields))
	for k, v := range fields {
		params[k] = v
	}
	return params
}

func messages(system string, ms []provider.Message) []sdk.ChatCompletionMessageParamUnion {
	var out []sdk.ChatCompletionMessageParamUnion
	if system != "" {
		out = append(out, sdk.SystemMessage(system))
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
				out = append(out, sdk.ToolMessage(r.Content, r.CallID))
				results++
			}
		}
		if text := m.Text(); text != "" || results == 0 {
			out = append(out, sdk.UserMessage(text))
		}
	}
	return out
}

func assistant(m provider.Message) sdk.ChatCompletionMessageParamUnion {
	var a sdk.ChatCompletionAssistantMessageParam
	for _, c := range m.ToolCalls() {
		a.ToolCalls = append(a.ToolCalls, sdk.ChatCompletionMessageToolCallUnionParam{
			OfFunction: &sdk.ChatCompletionMessageFunctionToolCallParam{
				ID:       c.ID,
				Function: sdk.ChatCompletionMessageFunctionToolCallFunctionParam{Name: c.Name, Arguments: string(c.Arguments)},
			},
		})
	}
	// The API wants content, tool calls, or both.
	if text := m.Text(); text != "" || len(a.ToolCalls) == 0 {
		a.Content.OfString = sdk.String(text)
	}
	return sdk.ChatCompletionMessageParamUnion{OfAssistant: &a}
}

// read turns the chunk stream into provider events and the response.
func read(ctx context.Context, api provider.API, stream *ssestream.Stream[sdk.ChatCompletionChunk], on func(provider.Event)) (*provider.Response, error) {
	defer stream.Close()
	a := assembler{on: on, byIndex: map[int64]*call{}}
	for stream.Next() {
		a.add(stream.Current())
	}
	if err := stream.Err(); err != nil {
		var serr *ssestream.StreamError // an error event in the stream
		if errors.As(err, &serr) && ctx.Err() == nil {
			return nil, api.StreamError(serr.Event.Data)
		}
		return nil, api.Failure(ctx, err)
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

func (a *assembler) add(chunk sdk.ChatCompletionChunk) {
	if u := chunk.Usage; u.PromptTokens > 0 || u.CompletionTokens > 0 {
		a.usage = provider.Usage{InputTokens: int(u.PromptTokens), OutputTokens: int(u.CompletionTokens)}
	}
	for _, choice := range chunk.Choices {
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
