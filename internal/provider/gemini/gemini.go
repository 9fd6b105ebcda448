// Package gemini is the provider for Google's Gemini API
// (generateContent, streamed as server-sent events), on net/http. Tools go
// out as function declarations with their JSON Schema as
// parametersJsonSchema, unchanged; a tool's result goes back as a
// functionResponse under its call's name and id, in call order.
//
// Gemini's ways are absorbed here: function calls that come without ids
// get ids of their own; the thoughtSignature Gemini attaches to a call is
// kept on it and sent back; a blocked prompt or answer is an error that
// names the reason and the categories; a key the API refuses is an
// authentication failure, although Gemini says so with a 400.
package gemini

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ikigai-tools/ikigai/internal/lazyregexp"
	"github.com/ikigai-tools/ikigai/internal/plainjson"
	"github.com/ikigai-tools/ikigai/internal/provider"
)

const (
	// DefaultBaseURL is Google's Gemini API; requests go to
	// BASE/v1beta/models/MODEL:streamGenerateContent.
	DefaultBaseURL = "https://generativelanguage.googleapis.com"
	// KeyEnv is the environment variable that holds the API key;
	// AltKeyEnv is read when it is not set.
	KeyEnv    = "GEMINI_API_KEY"
	AltKeyEnv = "GOOGLE_API_KEY"
	// BaseURLEnv moves the API, as Google's own SDK lets it.
	BaseURLEnv = "GOOGLE_GEMINI_BASE_URL"
	// SkipSignature stands in for the thoughtSignature of a call Gemini
	// did not make (it came from another provider, or from before the
	// conversation moved to Gemini): Google's documented value for it.
	SkipSignature = "skip_thought_signature_validator"
)

// Config is what a Provider needs to reach the API; BaseURL is
// DefaultBaseURL when empty.
type Config = provider.Config

// A Provider streams from the Gemini API. It is safe for concurrent use.
type Provider struct {
	client *provider.Client
}

// New returns a Provider for c. Google's own API needs a key; a key is
// optional for any other base URL (a proxy, a test server).
func New(c Config) (*Provider, error) {
	api := provider.API{Name: "google", KeyEnv: KeyEnv, KeyURL: "https://aistudio.google.com/apikey"}
	client, err := provider.NewClient(api, DefaultBaseURL, c)
	if err != nil {
		return nil, err
	}
	if base := client.API.BaseURL; base != DefaultBaseURL {
		client.API.NotFound = notFound(base)
	}
	client.API.Refine = refine(client.API)
	if c.APIKey != "" {
		client.Header.Set("X-Goog-Api-Key", c.APIKey)
	}
	return &Provider{client}, nil
}

// notFound is what to suggest when a server at base answers 404.
func notFound(base string) []string {
	var steps []string
	for _, v := range []string{"/v1beta", "/v1"} {
		if root, ok := strings.CutSuffix(base, v); ok {
			steps = append(steps, "Leave "+v+" out of the base URL, which ikigai adds: --base-url "+root)
			break
		}
	}
	return append(steps, "Check the model name: --model gemini-2.5-pro")
}

// Stream implements provider.Provider.
func (p *Provider) Stream(ctx context.Context, req provider.Request, on func(provider.Event)) (*provider.Response, error) {
	body, _ := plainjson.Marshal(newBody(req)) // cannot fail: every value is a string, a number or checked JSON
	model := strings.TrimPrefix(req.Model, "models/")
	path := "/v1beta/models/" + url.PathEscape(model) + ":streamGenerateContent?alt=sse"
	return p.client.Stream(ctx, path, body, on, read)
}

// request is the body of a generateContent request.
type request struct {
	Contents          []content         `json:"contents"`
	SystemInstruction *content          `json:"systemInstruction,omitempty"`
	Tools             []tools           `json:"tools,omitempty"`
	GenerationConfig  *generationConfig `json:"generationConfig,omitempty"`
}

type content struct {
	Role  string `json:"role,omitempty"`
	Parts []part `json:"parts"`
}

type part struct {
	Text             string            `json:"text,omitempty"`
	Thought          bool              `json:"thought,omitempty"`
	InlineData       *blob             `json:"inlineData,omitempty"`
	FunctionCall     *functionCall     `json:"functionCall,omitempty"`
	FunctionResponse *functionResponse `json:"functionResponse,omitempty"`
	ThoughtSignature string            `json:"thoughtSignature,omitempty"`
}

// blob is an image, its data in base64 (as encoding/json writes []byte).
type blob struct {
	MIMEType string `json:"mimeType"`
	Data     []byte `json:"data"`
}

func inline(img provider.Image) part {
	return part{InlineData: &blob{MIMEType: img.MediaType, Data: img.Data}}
}

type functionCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
}

type functionResponse struct {
	ID       string          `json:"id,omitempty"`
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

type tools struct {
	FunctionDeclarations []declaration `json:"functionDeclarations"`
}

type declaration struct {
	Name                 string          `json:"name"`
	Description          string          `json:"description,omitempty"`
	ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema"`
}

type generationConfig struct {
	MaxOutputTokens int             `json:"maxOutputTokens,omitempty"`
	ThinkingConfig  *thinkingConfig `json:"thinkingConfig,omitempty"`
}

type thinkingConfig struct {
	IncludeThoughts bool   `json:"includeThoughts,omitempty"`
	ThinkingBudget  *int   `json:"thinkingBudget,omitempty"`
	ThinkingLevel   string `json:"thinkingLevel,omitempty"`
}

// thinking is the thinkingConfig for reasoning r on model: a level for
// Gemini 3 and later, a budget for 2.5 and for names without a version
// (gemini-flash-latest), which every thinking model takes; nothing for a
// model that does not think (Gemini 2.0 and before, Gemma). Off is the
// least the model allows: the Pro models always think a little.
func thinking(model string, r provider.Reasoning) *thinkingConfig {
	if r == provider.ReasoningDefault || !strings.HasPrefix(model, "gemini-") {
		return nil
	}
	c := &thinkingConfig{IncludeThoughts: r != provider.ReasoningOff}
	pro := strings.Contains(model, "-pro")
	v := -1.0 // no version in the name
	if m := version().FindStringSubmatch(model); m != nil {
		v, _ = strconv.ParseFloat(m[1], 64)
	}
	switch {
	case v >= 0 && v < 2.5:
		return nil
	case v > 2.5:
		c.ThinkingLevel = strings.ToUpper(string(r))
		if r == provider.ReasoningOff {
			c.ThinkingLevel = "MINIMAL"
			if pro {
				c.ThinkingLevel = "LOW"
			}
		}
	default:
		budget := map[provider.Reasoning]int{provider.ReasoningLow: 1024, provider.ReasoningMedium: 8192, provider.ReasoningHigh: 24576}[r]
		if r == provider.ReasoningOff && pro {
			budget = 128
		}
		c.ThinkingBudget = &budget
	}
	return c
}

// version reads the version in a Gemini model's name: 2.5, 3, 3.1.
var version = lazyregexp.New(`^gemini-(\d+(?:\.\d+)?)`)

func newBody(req provider.Request) request {
	r := request{Contents: contents(req.Messages)}
	if req.System != "" {
		r.SystemInstruction = &content{Parts: []part{{Text: req.System}}}
	}
	if len(req.Tools) > 0 {
		var decls []declaration
		for _, t := range req.Tools {
			schema := t.Parameters
			if len(schema) == 0 {
				schema = json.RawMessage(`{"type":"object","properties":{}}`)
			}
			decls = append(decls, declaration{Name: t.Name, Description: t.Description, ParametersJSONSchema: schema})
		}
		r.Tools = []tools{{FunctionDeclarations: decls}}
	}
	model := strings.TrimPrefix(req.Model, "models/")
	if tc := thinking(model, req.Reasoning); req.MaxTokens > 0 || tc != nil {
		r.GenerationConfig = &generationConfig{MaxOutputTokens: req.MaxTokens, ThinkingConfig: tc}
	}
	return r
}

// contents writes the conversation as Gemini takes it: model turns with
// their calls, and the results as functionResponse parts, named after
// their calls, before any text of the user's turn.
func contents(ms []provider.Message) []content {
	// A result is named after the call it answers, in the turn before:
	// ids from another provider may repeat across turns.
	names := map[string]string{} // call id → tool name
	out := make([]content, 0, len(ms))
	for _, m := range ms {
		var parts []part
		if m.Role == provider.Assistant {
			parts = model(m)
			clear(names)
			for _, c := range m.ToolCalls() {
				names[c.ID] = c.Name
			}
		} else {
			// The results first, then the images they carried, each
			// result's introduced, then the user's own text and images.
			var carried, texts []part
			for _, p := range m.Parts {
				switch p := p.(type) {
				case provider.Text:
					if p != "" {
						texts = append(texts, part{Text: string(p)})
					}
				case provider.Image:
					texts = append(texts, inline(p))
				case provider.ToolResult:
					parts = append(parts, part{FunctionResponse: &functionResponse{ID: p.CallID, Name: names[p.CallID], Response: response(p)}})
					if len(p.Images) > 0 {
						carried = append(carried, part{Text: fmt.Sprintf("The images the result of call %s carried:", p.CallID)})
					}
					for _, img := range p.Images {
						carried = append(carried, inline(img))
					}
				}
			}
			parts = append(append(parts, carried...), texts...)
		}
		if len(parts) == 0 {
			continue // Gemini rejects a turn without parts
		}
		role := "user"
		if m.Role == provider.Assistant {
			role = "model"
		}
		out = append(out, content{Role: role, Parts: parts})
	}
	return out
}

// model writes an assistant message. Gemini checks the signature on the
// first call of each of its turns; a turn it did not write gets the value
// that says so.
func model(m provider.Message) []part {
	var parts []part
	signed := slices.ContainsFunc(m.ToolCalls(), func(c provider.ToolCall) bool { return c.Signature != "" })
	first := true
	for _, p := range m.Parts {
		switch p := p.(type) {
		case provider.Text:
			if p != "" {
				parts = append(parts, part{Text: string(p)})
			}
		case provider.ToolCall:
			fp := part{FunctionCall: &functionCall{ID: p.ID, Name: p.Name, Args: args(p.Arguments)}, ThoughtSignature: p.Signature}
			if first && !signed {
				fp.ThoughtSignature = SkipSignature
			}
			first = false
			parts = append(parts, fp)
		}
	}
	return parts
}

// args is a call's arguments as the API takes them back: a JSON object.
// Arguments the model garbled go back as {}; the tool's result tells the
// model what was wrong.
func args(a json.RawMessage) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(a, &obj) != nil || obj == nil {
		return json.RawMessage("{}")
	}
	return a
}

// response is a result as Gemini takes it: a JSON object. The envelope is
// one; anything else goes under "output", or "error" when the tool failed.
func response(r provider.ToolResult) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(r.Content), &obj) == nil && obj != nil {
		return json.RawMessage(r.Content)
	}
	key := "output"
	if r.IsError {
		key = "error"
	}
	data, _ := json.Marshal(map[string]string{key: r.Content})
	return data
}

// A chunk is one event of the stream: a GenerateContentResponse, or an
// error.
type chunk struct {
	Candidates []struct {
		Content struct {
			Parts []part `json:"parts"`
		} `json:"content"`
		FinishReason  string   `json:"finishReason"`
		FinishMessage string   `json:"finishMessage"`
		SafetyRatings []rating `json:"safetyRatings"`
		Index         int64    `json:"index"`
	} `json:"candidates"`
	PromptFeedback *struct {
		BlockReason        string   `json:"blockReason"`
		BlockReasonMessage string   `json:"blockReasonMessage"`
		SafetyRatings      []rating `json:"safetyRatings"`
	} `json:"promptFeedback"`
	UsageMetadata *struct {
		PromptTokenCount        int64 `json:"promptTokenCount"`
		CandidatesTokenCount    int64 `json:"candidatesTokenCount"`
		CachedContentTokenCount int64 `json:"cachedContentTokenCount"`
		ThoughtsTokenCount      int64 `json:"thoughtsTokenCount"`
	} `json:"usageMetadata"`
	ResponseID string          `json:"responseId"`
	Error      json.RawMessage `json:"error"`
}

type rating struct {
	Category    string `json:"category"`
	Probability string `json:"probability"`
	Blocked     bool   `json:"blocked"`
}

// read turns the event stream into provider events and the response. The
// stream ends where the body does, after a chunk with a finishReason.
func read(stream *provider.Reader) (*provider.Response, error) {
	api := stream.API()
	a := assembler{api: api, out: stream}
	for {
		msg, err := stream.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(msg.Data) == 0 {
			continue
		}
		var c chunk
		if err := json.Unmarshal(msg.Data, &c); err != nil {
			return nil, api.Malformed(err.Error())
		}
		if len(c.Error) > 0 && string(c.Error) != "null" {
			return nil, streamError(api, c.Error)
		}
		if err := a.add(c); err != nil {
			return nil, err
		}
	}
	if a.finish == "" {
		return nil, api.Malformed("it ended before a finishReason")
	}
	return a.response()
}

// An assembler builds a response from chunks. Gemini sends each call
// whole, in one part.
type assembler struct {
	api     provider.API
	out     *provider.Reader
	text    strings.Builder
	thought strings.Builder
	calls   []provider.ToolCall
	finish  string
	ratings []rating
	message string
	usage   provider.Usage
	respID  string
}

func (a *assembler) add(c chunk) error {
	if f := c.PromptFeedback; f != nil && f.BlockReason != "" {
		return blocked(a.api, "the prompt was blocked", f.BlockReason, f.SafetyRatings, f.BlockReasonMessage)
	}
	if u := c.UsageMetadata; u != nil {
		a.usage = provider.Usage{InputTokens: int(u.PromptTokenCount), CacheReadTokens: int(u.CachedContentTokenCount),
			OutputTokens: int(u.CandidatesTokenCount + u.ThoughtsTokenCount), ThinkingTokens: int(u.ThoughtsTokenCount)}
	}
	a.respID = cmp.Or(a.respID, c.ResponseID)
	for _, cand := range c.Candidates {
		if cand.Index != 0 {
			continue // only one answer was asked for
		}
		for _, p := range cand.Content.Parts {
			switch {
			case p.FunctionCall != nil:
				if err := a.call(p); err != nil {
					return err
				}
			case p.Thought:
				if err := a.out.Thinking(p.Text); err != nil {
					return err
				}
				a.thought.WriteString(p.Text)
			case p.Text != "":
				if err := a.out.Text(p.Text); err != nil {
					return err
				}
				a.text.WriteString(p.Text)
			}
		}
		if cand.FinishReason != "" {
			a.finish, a.ratings, a.message = cand.FinishReason, cand.SafetyRatings, cand.FinishMessage
		}
	}
	return nil
}

func (a *assembler) call(p part) error {
	fc := p.FunctionCall
	c := provider.ToolCall{ID: fc.ID, Name: fc.Name, Arguments: fc.Args, Signature: p.ThoughtSignature}
	if c.ID == "" {
		// Gemini leaves ids out; the results are matched by order, and
		// each call needs an id of its own in the conversation.
		c.ID = fmt.Sprintf("call_%s_%d", cmp.Or(a.respID, nonce()), len(a.calls)+1)
	}
	if len(c.Arguments) == 0 || string(c.Arguments) == "null" {
		c.Arguments = json.RawMessage("{}")
	}
	if err := a.out.Keep(len(c.ID) + len(c.Name) + len(c.Arguments)); err != nil {
		return err
	}
	a.calls = append(a.calls, c)
	a.out.Emit(provider.Event{Kind: provider.ToolCallReady, ToolCall: c})
	return nil
}

// nonce stands in for the response's id when Gemini gave none.
func nonce() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func (a *assembler) response() (*provider.Response, error) {
	res := &provider.Response{Message: provider.Message{Role: provider.Assistant}, Usage: a.usage}
	if a.thought.Len() > 0 {
		res.Message.Parts = append(res.Message.Parts, provider.Thinking{Provider: a.api.Name, Text: a.thought.String()})
	}
	if a.text.Len() > 0 {
		res.Message.Parts = append(res.Message.Parts, provider.Text(a.text.String()))
	}
	for _, c := range a.calls {
		res.Message.Parts = append(res.Message.Parts, c)
	}
	switch a.finish {
	case "STOP":
		res.StopReason = provider.EndTurn
	case "MAX_TOKENS":
		res.StopReason = provider.MaxTokens
	case "SAFETY", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII", "RECITATION", "IMAGE_SAFETY":
		return nil, blocked(a.api, "the answer was blocked", a.finish, a.ratings, a.message)
	case "MALFORMED_FUNCTION_CALL":
		// The model wrote a call it could not parse; asked again, it
		// mostly writes it right.
		return nil, &provider.Error{Provider: a.api.Name, Kind: provider.Server, URL: a.api.BaseURL,
			Message: "the model wrote a malformed function call (MALFORMED_FUNCTION_CALL)" + detail(a.message)}
	default:
		res.StopReason = provider.Other
	}
	if len(a.calls) > 0 && res.StopReason == provider.EndTurn {
		res.StopReason = provider.ToolUse // Gemini says STOP after calls
	}
	return res, nil
}

func detail(msg string) string {
	if msg == "" {
		return ""
	}
	return ": " + msg
}

// blocked is the error for a prompt or an answer Gemini's safety filters
// stopped: the reason, and the categories that tripped.
func blocked(api provider.API, what, reason string, ratings []rating, msg string) *provider.Error {
	var cats []string
	for _, r := range ratings {
		if r.Blocked || r.Probability == "HIGH" || r.Probability == "MEDIUM" {
			cats = append(cats, r.Category)
		}
	}
	m := what + " (" + reason
	if len(cats) > 0 {
		m += ": " + strings.Join(cats, ", ")
	}
	m += ")" + detail(msg)
	return &provider.Error{Provider: api.Name, Kind: provider.BadRequest, Type: reason, URL: api.BaseURL, Message: m,
		Steps: []string{"Rephrase the request, or leave out what tripped the filter"}}
}

// apiError is Google's error body: {"error": {"code", "message", "status", "details"}}.
type apiError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Status  string `json:"status"`
	Details []struct {
		Type       string `json:"@type"`
		Reason     string `json:"reason"`
		RetryDelay string `json:"retryDelay"`
	} `json:"details"`
}

// refine reads what Gemini's error bodies say beyond the status: a refused
// key (a 400 with the reason API_KEY_INVALID), and how long to wait.
func refine(api provider.API) func(*provider.Error, []byte) {
	return func(e *provider.Error, body []byte) {
		var doc struct {
			Error apiError `json:"error"`
		}
		if json.Unmarshal(body, &doc) != nil {
			return
		}
		e.Type = cmp.Or(e.Type, doc.Error.Status)
		for _, d := range doc.Error.Details {
			if d.Reason == "API_KEY_INVALID" {
				e.Type = d.Reason
				api.KeyRefused(e)
			}
			if wait, err := time.ParseDuration(d.RetryDelay); err == nil && wait > 0 && e.RetryAfter == 0 {
				e.RetryAfter = wait
			}
		}
	}
}

// streamError is the error for an error in the middle of the stream, by
// its code and status.
func streamError(api provider.API, raw json.RawMessage) *provider.Error {
	var ae apiError
	json.Unmarshal(raw, &ae)
	e := &provider.Error{Provider: api.Name, Type: ae.Status, URL: api.BaseURL,
		Message: "the response stream failed: " + cmp.Or(ae.Status, "error") + ": " + cmp.Or(ae.Message, "no message")}
	switch {
	case ae.Code == 401 || ae.Code == 403 || ae.Status == "UNAUTHENTICATED" || ae.Status == "PERMISSION_DENIED":
		api.KeyRefused(e)
		e.Message = "the response stream failed: " + cmp.Or(ae.Status, "error") + ": " + cmp.Or(ae.Message, "no message")
	case ae.Code == 429 || ae.Status == "RESOURCE_EXHAUSTED":
		e.Kind = provider.RateLimit
	case ae.Code == 503 || ae.Status == "UNAVAILABLE":
		e.Kind = provider.Overloaded
	case ae.Code == 400 || ae.Status == "INVALID_ARGUMENT" || ae.Status == "FAILED_PRECONDITION":
		e.Kind = provider.BadRequest
	default:
		e.Kind = provider.Server
	}
	return e
}
