// Package anthropic is the provider for Anthropic's Messages API, streamed,
// on net/http. Tools go out with their JSON Schema as input_schema; a
// tool's result goes back as a tool_result block, with is_error set when
// the tool failed.
package anthropic

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ikigai-tools/ikigai/internal/provider"
)

const (
	// DefaultMaxTokens bounds a response when the request does not; the
	// API needs a bound, and this one leaves room for writing a file.
	DefaultMaxTokens = 16384
	// DefaultBaseURL is Anthropic's API.
	DefaultBaseURL = "https://api.anthropic.com"
	// KeyEnv is the environment variable that holds the API key.
	KeyEnv = "ANTHROPIC_API_KEY"
	// version is the API version the requests and events below are of.
	version = "2023-06-01"
)

// Config is what a Provider needs to reach the API; BaseURL is
// DefaultBaseURL when empty.
type Config = provider.Config

// A Provider streams from the Messages API. It is safe for concurrent use.
type Provider struct {
	client *provider.Client
}

// New returns a Provider for c. Anthropic's own API needs a key; a key is
// optional for any other base URL (a proxy, a test server).
func New(c Config) (*Provider, error) {
	api := provider.API{Name: name, KeyEnv: KeyEnv, KeyURL: "https://console.anthropic.com/settings/keys"}
	client, err := provider.NewClient(api, DefaultBaseURL, c)
	if err != nil {
		return nil, err
	}
	if base := client.API.BaseURL; base != DefaultBaseURL {
		client.API.NotFound = notFound(base)
	}
	client.Header.Set("Anthropic-Version", version)
	if c.APIKey != "" {
		client.Header.Set("X-Api-Key", c.APIKey)
	}
	return &Provider{client}, nil
}

// notFound is what to suggest when a server at base answers 404.
func notFound(base string) []string {
	var steps []string
	if root, ok := strings.CutSuffix(base, "/v1"); ok {
		steps = append(steps, "Leave /v1 out of the base URL, which ikigai adds: --base-url "+root)
	}
	return append(steps, "If the server speaks OpenAI's API: --provider openai-compatible")
}

// Stream implements provider.Provider.
func (p *Provider) Stream(ctx context.Context, req provider.Request, on func(provider.Event)) (*provider.Response, error) {
	body, err := json.Marshal(newBody(req))
	if err != nil {
		// Only a tool's schema that is not JSON can get here.
		return nil, &provider.Error{Provider: p.client.API.Name, Kind: provider.BadRequest, URL: p.client.API.BaseURL, Err: err,
			Message: "the request cannot be encoded: " + err.Error()}
	}
	return p.client.Stream(ctx, "/v1/messages", body, on, read)
}

// request is the body of a Messages request. Its fields, and those of the
// types below, are in the order the official SDK writes them.
type request struct {
	MaxTokens    int          `json:"max_tokens"`
	Messages     []message    `json:"messages"`
	Model        string       `json:"model"`
	CacheControl cacheControl `json:"cache_control"`
	System       []textBlock  `json:"system,omitempty"`
	Thinking     *thinking    `json:"thinking,omitempty"`
	Tools        []tool       `json:"tools,omitempty"`
	Stream       bool         `json:"stream"`
}

type thinking struct {
	BudgetTokens int    `json:"budget_tokens"`
	Type         string `json:"type"`
}

// thinkingBlock and redactedBlock are thinking the API wrote, going back
// to it as it came.
type thinkingBlock struct {
	Signature string `json:"signature"`
	Thinking  string `json:"thinking"`
	Type      string `json:"type"`
}

type redactedBlock struct {
	Data string `json:"data"`
	Type string `json:"type"`
}

// Budgets are the thinking budgets, in tokens, of each reasoning level:
// high is the most that streams without the API's long-request warning.
var Budgets = map[provider.Reasoning]int{provider.ReasoningLow: 4000, provider.ReasoningMedium: 10000, provider.ReasoningHigh: 31999}

// minBudget is the least budget the API takes.
const minBudget = 1024

// budget returns max_tokens and the thinking budget for req: the budget
// is added to the default max_tokens, or fitted under one the user set
// (half of it at most, so that the answer has room); 0 for no thinking.
func budget(req provider.Request) (maxTokens, think int) {
	think = Budgets[req.Reasoning]
	if req.MaxTokens == 0 {
		if think == 0 {
			return DefaultMaxTokens, 0
		}
		return DefaultMaxTokens + think, think
	}
	if think >= req.MaxTokens {
		think = req.MaxTokens / 2
	}
	if think < minBudget {
		think = 0
	}
	return req.MaxTokens, think
}

// toolTurnUnsigned reports whether the conversation ends in tool results
// for an assistant turn that has no thinking of Anthropic's: the API
// refuses thinking for that request (the turn began before the switch to
// Anthropic, or with thinking off), so it is asked without.
func toolTurnUnsigned(ms []provider.Message) bool {
	n := len(ms)
	if n < 2 || ms[n-2].Role != provider.Assistant || len(ms[n-2].ToolCalls()) == 0 {
		return false
	}
	for _, p := range ms[n-2].Parts {
		if t, ok := p.(provider.Thinking); ok && t.Provider == name {
			return false
		}
	}
	return true
}

// name is the API's name, as Thinking.Provider records it.
const name = "anthropic"

type cacheControl struct {
	Type string `json:"type"`
}

type message struct {
	Content []any  `json:"content,omitempty"` // textBlock, toolUseBlock, toolResultBlock
	Role    string `json:"role"`
}

type textBlock struct {
	Text string `json:"text"`
	Type string `json:"type"`
}

type toolUseBlock struct {
	ID    string          `json:"id"`
	Input json.RawMessage `json:"input"`
	Name  string          `json:"name"`
	Type  string          `json:"type"`
}

type toolResultBlock struct {
	ToolUseID string `json:"tool_use_id"`
	IsError   bool   `json:"is_error"`
	Content   []any  `json:"content"` // text, then the result's images
	Type      string `json:"type"`
}

type imageBlock struct {
	Source struct {
		Data      []byte `json:"data"` // base64, as encoding/json writes bytes
		MediaType string `json:"media_type"`
		Type      string `json:"type"`
	} `json:"source"`
	Type string `json:"type"`
}

func image(img provider.Image) imageBlock {
	var b imageBlock
	b.Type, b.Source.Type, b.Source.MediaType, b.Source.Data = "image", "base64", img.MediaType, img.Data
	return b
}

type tool struct {
	InputSchema json.RawMessage `json:"input_schema"`
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
}

func text(s string) textBlock { return textBlock{Text: s, Type: "text"} }

func newBody(req provider.Request) request {
	maxTokens, think := budget(req)
	if think > 0 && toolTurnUnsigned(req.Messages) {
		maxTokens, think = budget(provider.Request{MaxTokens: req.MaxTokens})
	}
	r := request{
		MaxTokens: maxTokens,
		Messages:  messages(req.Messages),
		Model:     req.Model,
		// Each turn of an agent's conversation extends the last one, so
		// caching up to the newest block makes every next turn cheaper.
		CacheControl: cacheControl{Type: "ephemeral"},
		Stream:       true,
	}
	if req.System != "" {
		r.System = []textBlock{text(req.System)}
	}
	if think > 0 {
		r.Thinking = &thinking{BudgetTokens: think, Type: "enabled"}
	}
	for _, t := range req.Tools {
		// The schema goes out exactly as the tool wrote it.
		schema := t.Parameters
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		r.Tools = append(r.Tools, tool{InputSchema: schema, Name: t.Name, Description: t.Description})
	}
	return r
}

func messages(ms []provider.Message) []message {
	out := make([]message, 0, len(ms))
	ids := callIDs{seen: map[string]bool{}}
	for _, m := range ms {
		if m.Role == provider.Assistant {
			ids.turn = map[string]string{}
		}
		var results, blocks []any
		for _, part := range m.Parts {
			switch part := part.(type) {
			case provider.Text:
				// The API rejects empty text blocks.
				if part != "" {
					blocks = append(blocks, text(string(part)))
				}
			case provider.Thinking:
				// Only Anthropic's own thinking goes back, as it came.
				switch {
				case part.Provider != name:
				case part.Redacted != "":
					blocks = append(blocks, redactedBlock{Data: part.Redacted, Type: "redacted_thinking"})
				case part.Signature != "":
					blocks = append(blocks, thinkingBlock{Signature: part.Signature, Thinking: part.Text, Type: "thinking"})
				}
			case provider.Image:
				blocks = append(blocks, image(part))
			case provider.ToolCall:
				blocks = append(blocks, toolUseBlock{ID: ids.call(part.ID), Input: input(part.Arguments), Name: part.Name, Type: "tool_use"})
			case provider.ToolResult:
				content := []any{text(part.Content)}
				for _, img := range part.Images {
					content = append(content, image(img))
				}
				results = append(results, toolResultBlock{ToolUseID: ids.result(part.CallID), IsError: part.IsError,
					Content: content, Type: "tool_result"})
			}
		}
		// The API wants a turn's tool results before anything else in it.
		role := "user"
		if m.Role == provider.Assistant {
			role = "assistant"
		}
		content := append(results, blocks...)
		if len(content) == 0 && len(m.Parts) > 0 {
			// Only another vendor's thinking: the API refuses an empty
			// turn, and nothing of it is Anthropic's to read.
			continue
		}
		out = append(out, message{Content: content, Role: role})
	}
	return out
}

// callIDs makes the tool call ids of a conversation fit the API, which
// wants each unique and of letters, digits, _ and - only. Another
// provider's ids may repeat (servers that give none get call_1 in every
// answer) or hold other characters; such a call is renamed together with
// its result, which answers it in the next message.
type callIDs struct {
	seen map[string]bool
	turn map[string]string // the last assistant turn's ids as sent, by their own
}

func (c *callIDs) call(id string) string {
	out := strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, id)
	out = cmp.Or(out, "call")
	for base, n := out, 2; c.seen[out]; n++ {
		out = fmt.Sprintf("%s_%d", base, n)
	}
	c.seen[out] = true
	if c.turn != nil {
		c.turn[id] = out
	}
	return out
}

func (c *callIDs) result(id string) string {
	if out, ok := c.turn[id]; ok {
		return out
	}
	return id
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

// An event is a stream event's data: a union of the fields of every event
// type this package reads.
type event struct {
	Type  string `json:"type"`
	Index int64  `json:"index"`
	// message_start
	Message struct {
		Usage usage `json:"usage"`
	} `json:"message"`
	// content_block_start
	ContentBlock struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Thinking string `json:"thinking"`
		Data     string `json:"data"`
		ID       string `json:"id"`
		Name     string `json:"name"`
	} `json:"content_block"`
	// content_block_delta, message_delta
	Delta struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		PartialJSON string `json:"partial_json"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	// message_delta
	Usage usage `json:"usage"`
}

type usage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
}

// read turns the event stream into provider events and the response.
// Pings and events without data are skipped; an error event (by its name
// or its type) ends the stream with the error it carries.
func read(stream *provider.Reader) (*provider.Response, error) {
	api := stream.API()
	a := assembler{api: api, out: stream, open: map[int64]*block{}}
	for !a.stopped {
		msg, err := stream.Next()
		if errors.Is(err, io.EOF) {
			return nil, api.Malformed("it ended before message_stop")
		}
		if err != nil {
			return nil, err
		}
		if msg.Type == "ping" || len(msg.Data) == 0 {
			continue
		}
		var ev event
		if err := json.Unmarshal(msg.Data, &ev); err != nil && msg.Type != "error" {
			return nil, api.Malformed(fmt.Sprintf("%s event: %v", cmp.Or(msg.Type, "an"), err))
		}
		if msg.Type == "error" || ev.Type == "error" {
			return nil, api.StreamError(msg.Data)
		}
		if err := a.add(ev); err != nil {
			return nil, err
		}
	}
	return &a.res, nil
}

// An assembler builds a response from stream events.
type assembler struct {
	api     provider.API
	out     *provider.Reader // where text and calls are reported, and counted
	res     provider.Response
	open    map[int64]*block // content blocks started and not yet stopped
	started bool
	stopped bool
}

type block struct {
	kind      string // "text", "tool_use", "thinking", "redacted_thinking", or another type, which is skipped
	text      strings.Builder
	call      provider.ToolCall
	signature string
	data      string
}

func (a *assembler) add(ev event) error {
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
		a.res.Usage.CacheReadTokens, a.res.Usage.CacheWriteTokens = int(u.CacheReadInputTokens), int(u.CacheCreationInputTokens)
		a.res.Usage.OutputTokens = int(u.OutputTokens)
	case "content_block_start":
		if a.open[ev.Index] != nil {
			return a.api.Malformed(fmt.Sprintf("block %d started twice", ev.Index))
		}
		b := &block{kind: ev.ContentBlock.Type}
		a.open[ev.Index] = b
		switch b.kind {
		case "text":
			return a.text(b, ev.ContentBlock.Text)
		case "thinking":
			return a.thinking(b, ev.ContentBlock.Thinking)
		case "redacted_thinking":
			b.data = ev.ContentBlock.Data
			return a.out.Keep(len(b.data))
		case "tool_use":
			b.call = provider.ToolCall{ID: ev.ContentBlock.ID, Name: ev.ContentBlock.Name}
			return a.out.Keep(len(b.call.ID) + len(b.call.Name))
		}
	case "content_block_delta":
		b := a.open[ev.Index]
		if b == nil {
			return a.api.Malformed(fmt.Sprintf("a delta for block %d, which is not open", ev.Index))
		}
		switch {
		case b.kind == "text" && ev.Delta.Type == "text_delta":
			return a.text(b, ev.Delta.Text)
		case b.kind == "thinking" && ev.Delta.Type == "thinking_delta":
			return a.thinking(b, ev.Delta.Thinking)
		case b.kind == "thinking" && ev.Delta.Type == "signature_delta":
			b.signature += ev.Delta.Signature
			return a.out.Keep(len(ev.Delta.Signature))
		case b.kind == "tool_use" && ev.Delta.Type == "input_json_delta":
			if err := a.out.Keep(len(ev.Delta.PartialJSON)); err != nil {
				return err
			}
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
		case "thinking":
			a.res.Message.Parts = append(a.res.Message.Parts, provider.Thinking{Provider: name, Text: b.text.String(), Signature: b.signature})
		case "redacted_thinking":
			a.res.Message.Parts = append(a.res.Message.Parts, provider.Thinking{Provider: name, Redacted: b.data})
		case "tool_use":
			b.call.Arguments = json.RawMessage(cmp.Or(b.text.String(), "{}"))
			a.res.Message.Parts = append(a.res.Message.Parts, b.call)
			a.out.Emit(provider.Event{Kind: provider.ToolCallReady, ToolCall: b.call})
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

func (a *assembler) thinking(b *block, s string) error {
	if err := a.out.Thinking(s); err != nil {
		return err
	}
	b.text.WriteString(s)
	return nil
}

func (a *assembler) text(b *block, s string) error {
	if s == "" {
		return nil
	}
	if err := a.out.Text(s); err != nil {
		return err
	}
	b.text.WriteString(s)
	return nil
}

func stopReason(r string) provider.StopReason {
	switch r {
	case "end_turn", "stop_sequence":
		return provider.EndTurn
	case "tool_use":
		return provider.ToolUse
	case "max_tokens":
		return provider.MaxTokens
	}
	return provider.Other
}
