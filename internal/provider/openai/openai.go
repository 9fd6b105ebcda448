// Package openai is the provider for OpenAI's Chat Completions API,
// streamed, on net/http. Tools go out as functions with their JSON Schema
// as parameters; a tool's result goes back as a tool message with its
// call's id. NewCompatible makes it the provider for any server that
// copies the API: Ollama, llama.cpp's server, vLLM, LM Studio, OpenRouter.
package openai

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ikigai-tools/ikigai/internal/lazyregexp"
	"github.com/ikigai-tools/ikigai/internal/plainjson"
	"github.com/ikigai-tools/ikigai/internal/provider"
)

const (
	// DefaultBaseURL is OpenAI's API.
	DefaultBaseURL = "https://api.openai.com/v1"
	// KeyEnv is the environment variable that holds the API key, for
	// OpenAI and any compatible server that wants one.
	KeyEnv = "OPENAI_API_KEY"
)

// Config is what a Provider needs to reach the API; BaseURL is
// DefaultBaseURL when empty, and NewCompatible needs one.
type Config = provider.Config

// A Provider streams from a Chat Completions API. It is safe for
// concurrent use.
type Provider struct {
	client *provider.Client
	openAI bool // OpenAI's API, not a copy of it
}

// New returns a Provider for OpenAI's API: its own, or at c.BaseURL (a
// proxy, a gateway). OpenAI's own URL needs a key; for any other a key is
// sent only when there is one.
func New(c Config) (*Provider, error) {
	return newProvider(c, provider.API{Name: "openai", KeyEnv: KeyEnv, KeyURL: "https://platform.openai.com/api-keys"}, true)
}

// NewCompatible returns a Provider for a server that speaks OpenAI's API
// at c.BaseURL, which must be set. A key is sent only when there is one.
func NewCompatible(c Config) (*Provider, error) {
	if c.BaseURL == "" {
		return nil, errors.New("openai-compatible: no base URL: --base-url names the server")
	}
	return newProvider(c, provider.API{Name: "openai-compatible", KeyEnv: KeyEnv}, false)
}

func newProvider(c Config, api provider.API, openAI bool) (*Provider, error) {
	client, err := provider.NewClient(api, DefaultBaseURL, c)
	if err != nil {
		return nil, err
	}
	if base := client.API.BaseURL; base != DefaultBaseURL {
		client.API.NotFound = notFound(base)
	}
	if c.APIKey != "" {
		client.Header.Set("Authorization", "Bearer "+c.APIKey)
	}
	return &Provider{client: client, openAI: openAI}, nil
}

// notFound is what to suggest when a server at base answers 404.
func notFound(base string) []string {
	var steps []string
	if !strings.HasSuffix(base, "/v1") {
		steps = append(steps, "Most servers want /v1 at the end of the base URL: --base-url "+base+"/v1")
	}
	return append(steps, "If the server speaks Anthropic's API: --provider anthropic")
}

// Stream implements provider.Provider.
func (p *Provider) Stream(ctx context.Context, req provider.Request, on func(provider.Event)) (*provider.Response, error) {
	// Like the official SDK, the body keeps <, > and & as they are.
	body, _ := plainjson.Marshal(p.newBody(req)) // cannot fail: every value is a string, a number or checked JSON
	return p.client.Stream(ctx, "/chat/completions", body, on, read)
}

// Models lists the models the server offers, in its order.
func (p *Provider) Models(ctx context.Context) ([]string, error) {
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := p.client.GetJSON(ctx, "/models", "the model list", &list); err != nil {
		return nil, err
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
	ReasoningEffort     string        `json:"reasoning_effort,omitempty"`
	StreamOptions       streamOptions `json:"stream_options"`
	Tools               []tool        `json:"tools,omitempty"`
	Stream              bool          `json:"stream"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

type message struct {
	// Content is a *string, or []contentPart for a user message with
	// images; nil for an assistant message of tool calls only.
	Content    any        `json:"content,omitempty"`
	ToolCalls  []toolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
	Role       string     `json:"role"`
}

// A contentPart is text or an image of a user message.
type contentPart struct {
	Type     string    `json:"type"` // "text" or "image_url"
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"` // a data: URL
}

func imagePart(img provider.Image) contentPart {
	return contentPart{Type: "image_url", ImageURL: &imageURL{URL: "data:" + img.MediaType + ";base64," + base64.StdEncoding.EncodeToString(img.Data)}}
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
	r.ReasoningEffort = p.effort(req.Model, req.Reasoning)
	if req.MaxTokens > 0 {
		// OpenAI's newer models refuse max_tokens; the servers that copy
		// the API know max_tokens better than its successor.
		if p.openAI {
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

var (
	// oSeries and firstGPT5 are OpenAI's reasoning models whose least
	// effort is "low" and "minimal"; the later gpt-5.x take "none".
	oSeries   = lazyregexp.New(`^o[0-9]`)
	firstGPT5 = lazyregexp.New(`^gpt-5($|-)`)
	laterGPT5 = lazyregexp.New(`^gpt-5\.`)
)

// effort is the reasoning_effort for reasoning r on model. OpenAI's models
// that do not reason get none (the API refuses it); off is the least the
// model takes. Other servers get low, medium or high, which those that
// reason understand, and nothing for off, which they spell differently.
func (p *Provider) effort(model string, r provider.Reasoning) string {
	if r == provider.ReasoningDefault {
		return ""
	}
	if !p.openAI {
		if r == provider.ReasoningOff {
			return ""
		}
		return string(r)
	}
	switch {
	case r != provider.ReasoningOff && (oSeries().MatchString(model) || firstGPT5().MatchString(model) || laterGPT5().MatchString(model)):
		return string(r)
	case oSeries().MatchString(model):
		return "low"
	case firstGPT5().MatchString(model):
		return "minimal"
	case laterGPT5().MatchString(model):
		return "none"
	}
	return ""
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
		// answer the assistant message just before. They can hold only
		// text: the images they carried follow in the user's message.
		results := 0
		var parts []contentPart
		for _, part := range m.Parts {
			switch p := part.(type) {
			case provider.ToolResult:
				out = append(out, message{Content: &p.Content, ToolCallID: p.CallID, Role: "tool"})
				results++
				if len(p.Images) > 0 {
					parts = append(parts, contentPart{Type: "text", Text: fmt.Sprintf("The images the result of call %s carried:", p.CallID)})
				}
				for _, img := range p.Images {
					parts = append(parts, imagePart(img))
				}
			case provider.Text:
				if p != "" {
					parts = append(parts, contentPart{Type: "text", Text: string(p)})
				}
			case provider.Image:
				parts = append(parts, imagePart(p))
			}
		}
		if len(m.Images()) == 0 {
			// Plain text, as a string: what every compatible server takes.
			if text := m.Text(); text != "" || results == 0 {
				out = append(out, message{Content: &text, Role: "user"})
			}
		} else {
			out = append(out, message{Content: parts, Role: "user"})
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
			Content string `json:"content"`
			Refusal string `json:"refusal"`
			// The thinking of servers that show it: reasoning_content
			// (DeepSeek, vLLM, llama.cpp), reasoning (Ollama, OpenRouter).
			ReasoningContent string `json:"reasoning_content"`
			Reasoning        string `json:"reasoning"`
			ToolCalls        []struct {
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
		PromptTokens        int64 `json:"prompt_tokens"`
		CompletionTokens    int64 `json:"completion_tokens"`
		PromptTokensDetails struct {
			CachedTokens int64 `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
		CompletionTokensDetails struct {
			ReasoningTokens int64 `json:"reasoning_tokens"`
		} `json:"completion_tokens_details"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// read turns the event stream into provider events and the response. The
// stream ends at data: [DONE], or where the body does; events without data
// are skipped, and one that carries an error ends it with that error.
func read(stream *provider.Reader) (*provider.Response, error) {
	api := stream.API()
	a := assembler{out: stream, byIndex: map[int64]*call{}, api: api.Name}
	for {
		msg, err := stream.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
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
		if err := a.add(c); err != nil {
			return nil, err
		}
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
	out     *provider.Reader // where text and calls are reported, and counted
	api     string
	text    strings.Builder
	thought strings.Builder
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

func (a *assembler) add(ch chunk) error {
	if u := ch.Usage; u.PromptTokens > 0 || u.CompletionTokens > 0 {
		a.usage = provider.Usage{InputTokens: int(u.PromptTokens), OutputTokens: int(u.CompletionTokens),
			CacheReadTokens: int(u.PromptTokensDetails.CachedTokens), ThinkingTokens: int(u.CompletionTokensDetails.ReasoningTokens)}
	}
	for _, choice := range ch.Choices {
		if choice.Index != 0 {
			continue // only one answer was asked for
		}
		d := choice.Delta
		for _, s := range []string{d.ReasoningContent, d.Reasoning} {
			if err := a.out.Thinking(s); err != nil {
				return err
			}
			a.thought.WriteString(s)
		}
		for _, s := range []string{d.Content, d.Refusal} {
			if s != "" {
				if err := a.out.Text(s); err != nil {
					return err
				}
				a.text.WriteString(s)
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
			if err := a.out.Keep(len(frag.ID) + len(frag.Function.Name) + len(frag.Function.Arguments)); err != nil {
				return err
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
	return nil
}

// flush reports the calls not yet reported.
func (a *assembler) flush() {
	for ; a.ready < len(a.calls); a.ready++ {
		c := a.calls[a.ready]
		if c.ID == "" {
			c.ID = fmt.Sprintf("call_%d", a.ready+1) // a server that gives no ids
		}
		c.Arguments = json.RawMessage(cmp.Or(c.args.String(), "{}"))
		a.out.Emit(provider.Event{Kind: provider.ToolCallReady, ToolCall: c.ToolCall})
	}
}

func (a *assembler) response() *provider.Response {
	a.flush()
	res := &provider.Response{Message: provider.Message{Role: provider.Assistant}, Usage: a.usage}
	if a.thought.Len() > 0 {
		// Shown and kept, never sent back: no server wants it again.
		res.Message.Parts = append(res.Message.Parts, provider.Thinking{Provider: a.api, Text: a.thought.String()})
	}
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
