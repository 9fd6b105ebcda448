// Package anthropic is the provider for Anthropic's Messages API, streamed,
// through the official SDK. Tools go out with their JSON Schema as
// input_schema; a tool's result goes back as a tool_result block, with
// is_error set when the tool failed.
package anthropic

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/anthropics/anthropic-sdk-go/packages/param"
	"github.com/anthropics/anthropic-sdk-go/packages/ssestream"

	"github.com/ikigai-tools/ikigai/internal/provider"
)

const (
	// DefaultModel is the model used when none is configured.
	DefaultModel = sdk.ModelClaudeSonnet5_5
	// DefaultMaxTokens bounds a response when the request does not; the
	// API needs a bound, and this one leaves room for writing a file.
	DefaultMaxTokens = 16384
	// DefaultBaseURL is Anthropic's API.
	DefaultBaseURL = "https://api.anthropic.com"
	// KeyEnv is the environment variable that holds the API key.
	KeyEnv = "ANTHROPIC_API_KEY"
)

// Config is what a Provider needs to reach the API.
type Config struct {
	APIKey     string
	BaseURL    string       // DefaultBaseURL when empty
	HTTPClient *http.Client // http.DefaultClient when nil
	Retry      provider.Retry
}

// A Provider streams from the Messages API. It is safe for concurrent use.
type Provider struct {
	client sdk.Client
	api    provider.API
	retry  provider.Retry
}

// New returns a Provider for c. Anthropic's own API needs a key; a key is
// optional for any other base URL (a proxy, a test server).
func New(c Config) (*Provider, error) {
	base := strings.TrimSuffix(cmp.Or(c.BaseURL, DefaultBaseURL), "/")
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("anthropic: base URL %q is not an http or https URL", base)
	}
	api := provider.API{Name: "anthropic", BaseURL: base, KeyEnv: KeyEnv, KeyURL: "https://console.anthropic.com/settings/keys"}
	if c.APIKey == "" && base == DefaultBaseURL {
		return nil, api.MissingKey()
	}
	opts := []option.RequestOption{
		// Credentials and base URL come from c, never from the SDK's own
		// reading of the environment.
		option.WithoutEnvironmentDefaults(),
		option.WithBaseURL(base),
		// Retries are provider.Retry's, the same for every provider.
		option.WithMaxRetries(0),
		option.WithMiddleware(api.Middleware),
	}
	if c.APIKey != "" {
		opts = append(opts, option.WithAPIKey(c.APIKey))
	}
	if c.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(c.HTTPClient))
	}
	return &Provider{client: sdk.NewClient(opts...), api: api, retry: c.Retry}, nil
}

// Stream implements provider.Provider.
func (p *Provider) Stream(ctx context.Context, req provider.Request, on func(provider.Event)) (*provider.Response, error) {
	params := params(req)
	return p.retry.Do(ctx, on, func(on func(provider.Event)) (*provider.Response, error) {
		return read(ctx, p.api, p.client.Messages.NewStreaming(ctx, params), on)
	})
}

func params(req provider.Request) sdk.MessageNewParams {
	p := sdk.MessageNewParams{
		Model:     req.Model,
		MaxTokens: int64(cmp.Or(req.MaxTokens, DefaultMaxTokens)),
		Messages:  messages(req.Messages),
		// Each turn of an agent's conversation extends the last one, so
		// caching up to the newest block makes every next turn cheaper.
		CacheControl: sdk.NewCacheControlEphemeralParam(),
	}
	if req.System != "" {
		p.System = []sdk.TextBlockParam{{Text: req.System}}
	}
	for _, t := range req.Tools {
		tool := sdk.ToolParam{Name: t.Name}
		if t.Description != "" {
			tool.Description = sdk.String(t.Description)
		}
		schema := t.Parameters
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		// The schema goes out exactly as the tool wrote it.
		tool.InputSchema = param.Override[sdk.ToolInputSchemaParam](schema)
		p.Tools = append(p.Tools, sdk.ToolUnionParam{OfTool: &tool})
	}
	return p
}

func messages(ms []provider.Message) []sdk.MessageParam {
	out := make([]sdk.MessageParam, 0, len(ms))
	for _, m := range ms {
		var results, blocks []sdk.ContentBlockParamUnion
		for _, part := range m.Parts {
			switch part := part.(type) {
			case provider.Text:
				// The API rejects empty text blocks.
				if part != "" {
					blocks = append(blocks, sdk.NewTextBlock(string(part)))
				}
			case provider.ToolCall:
				blocks = append(blocks, sdk.NewToolUseBlock(part.ID, input(part.Arguments), part.Name))
			case provider.ToolResult:
				results = append(results, sdk.NewToolResultBlock(part.CallID, part.Content, part.IsError))
			}
		}
		// The API wants a turn's tool results before anything else in it.
		blocks = append(results, blocks...)
		if m.Role == provider.Assistant {
			out = append(out, sdk.NewAssistantMessage(blocks...))
		} else {
			out = append(out, sdk.NewUserMessage(blocks...))
		}
	}
	return out
}

// input is a tool call's arguments as the API takes them back: a JSON
// object. Arguments the model garbled go back as {}; the tool's result
// tells the model what was wrong.
func input(args json.RawMessage) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(args, &obj) != nil || obj == nil {
		return json.RawMessage("{}")
	}
	return args
}

// read turns the event stream into provider events and the response.
func read(ctx context.Context, api provider.API, stream *ssestream.Stream[sdk.MessageStreamEventUnion], on func(provider.Event)) (*provider.Response, error) {
	defer stream.Close()
	a := assembler{api: api, on: on, open: map[int64]*block{}}
	for stream.Next() {
		if err := a.add(stream.Current()); err != nil {
			return nil, err
		}
		if a.stopped {
			break
		}
	}
	if err := stream.Err(); err != nil {
		var serr *sdk.Error // an error event in the stream
		if errors.As(err, &serr) && ctx.Err() == nil {
			return nil, api.StreamError([]byte(serr.RawJSON()))
		}
		return nil, api.Failure(ctx, err)
	}
	if !a.stopped {
		return nil, api.Malformed("it ended before message_stop")
	}
	return &a.res, nil
}

// An assembler builds a response from stream events.
type assembler struct {
	api     provider.API
	on      func(provider.Event)
	res     provider.Response
	open    map[int64]*block // content blocks started and not yet stopped
	started bool
	stopped bool
}

type block struct {
	kind string // "text", "tool_use", or another type, which is skipped
	text strings.Builder
	call provider.ToolCall
}

func (a *assembler) emit(ev provider.Event) {
	if a.on != nil {
		a.on(ev)
	}
}

func (a *assembler) add(ev sdk.MessageStreamEventUnion) error {
	if !a.started && ev.Type != "message_start" {
		return a.api.Malformed(fmt.Sprintf("%q before message_start", ev.Type))
	}
	switch ev.Type {
	case "message_start":
		if a.started {
			return a.api.Malformed("a second message_start")
		}
		a.started = true
		a.res.Message.Role = provider.Assistant
		u := ev.Message.Usage
		a.res.Usage.InputTokens = int(u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens)
		a.res.Usage.OutputTokens = int(u.OutputTokens)
	case "content_block_start":
		if a.open[ev.Index] != nil {
			return a.api.Malformed(fmt.Sprintf("block %d started twice", ev.Index))
		}
		b := &block{kind: ev.ContentBlock.Type}
		a.open[ev.Index] = b
		switch b.kind {
		case "text":
			a.text(b, ev.ContentBlock.Text)
		case "tool_use":
			b.call = provider.ToolCall{ID: ev.ContentBlock.ID, Name: ev.ContentBlock.Name}
		}
	case "content_block_delta":
		b := a.open[ev.Index]
		if b == nil {
			return a.api.Malformed(fmt.Sprintf("a delta for block %d, which is not open", ev.Index))
		}
		switch {
		case b.kind == "text" && ev.Delta.Type == "text_delta":
			a.text(b, ev.Delta.Text)
		case b.kind == "tool_use" && ev.Delta.Type == "input_json_delta":
			b.text.WriteString(ev.Delta.PartialJSON)
		}
	case "content_block_stop":
		b := a.open[ev.Index]
		if b == nil {
			return a.api.Malformed(fmt.Sprintf("a stop for block %d, which is not open", ev.Index))
		}
		delete(a.open, ev.Index)
		switch b.kind {
		case "text":
			if b.text.Len() > 0 {
				a.res.Message.Parts = append(a.res.Message.Parts, provider.Text(b.text.String()))
			}
		case "tool_use":
			b.call.Arguments = json.RawMessage(cmp.Or(b.text.String(), "{}"))
			a.res.Message.Parts = append(a.res.Message.Parts, b.call)
			a.emit(provider.Event{Kind: provider.ToolCallReady, ToolCall: b.call})
		}
	case "message_delta":
		a.res.StopReason = stopReason(ev.Delta.StopReason)
		a.res.Usage.OutputTokens = int(ev.Usage.OutputTokens)
	case "message_stop":
		for i := range a.open {
			return a.api.Malformed(fmt.Sprintf("message_stop with block %d still open", i))
		}
		a.stopped = true
	}
	return nil
}

func (a *assembler) text(b *block, s string) {
	if s != "" {
		b.text.WriteString(s)
		a.emit(provider.Event{Kind: provider.TextDelta, Text: s})
	}
}

func stopReason(r sdk.StopReason) provider.StopReason {
	switch r {
	case sdk.StopReasonEndTurn, sdk.StopReasonStopSequence:
		return provider.EndTurn
	case sdk.StopReasonToolUse:
		return provider.ToolUse
	case sdk.StopReasonMaxTokens:
		return provider.MaxTokens
	}
	return provider.Other
}
