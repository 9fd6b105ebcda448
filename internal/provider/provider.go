// Package provider is what the agent knows about model APIs: one small
// interface, Provider, and the provider-neutral types it speaks. A request
// carries the conversation and the tools on offer; the answer streams back
// as events (text as it arrives, each tool call once its arguments are
// complete) and ends in the assistant's message, why the model stopped,
// and the tokens it used. Failures are *Error values whose Kind tells an
// authentication problem from a rate limit, an overloaded or failing
// server, an unreachable host, a rejected request or a garbled answer.
//
// The implementations live in the subpackages anthropic and openai, on
// net/http. They share a Client, which sends their requests and retries
// them, and read each answer through a Reader of its event stream
// (package sse); package pick chooses one from the user's settings and
// environment.
package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// A Provider sends a conversation to a model and streams its answer.
type Provider interface {
	// Stream sends req and calls on (which may be nil) for each event as it
	// arrives, in order, from the calling goroutine. It returns once the
	// model has finished its message. Retryable failures (rate limits,
	// overloaded or failing servers, network errors) are retried with
	// backoff, and reported to on as Retrying events, as long as nothing of
	// the answer has been reported yet. A failure is an *Error, or the
	// context's error when ctx ends first.
	Stream(ctx context.Context, req Request, on func(Event)) (*Response, error)
}

// A Request is one turn of a conversation: everything the model sees.
type Request struct {
	Model     string
	System    string // the system prompt; empty for none
	Messages  []Message
	Tools     []Tool
	MaxTokens int // the most the model may write; 0 for the provider's default
	Reasoning Reasoning
}

// A Tool is a function the model may call.
type Tool struct {
	Name        string
	Description string
	Parameters  json.RawMessage // a JSON Schema of type object; nil for none
}

// Role says who wrote a message.
type Role string

const (
	User      Role = "user"
	Assistant Role = "assistant"
)

// A Message is one turn of the conversation, made of parts: the user's
// text and tool results, or the assistant's text and tool calls.
type Message struct {
	Role  Role
	Parts []Part
}

// A Part is a Text, an Image, a ToolCall, a ToolResult or a Thinking.
type Part interface{ isPart() }

// Text is text written by the user or the model.
type Text string

// A ToolCall is the model asking for a tool to be run.
type ToolCall struct {
	ID   string // chosen by the API; the result must carry it back
	Name string
	// Arguments are the model's arguments as it sent them: a JSON object,
	// "{}" when it sent none. A model can send malformed JSON; it is kept
	// as sent so that the executor can reject it and the model can learn.
	Arguments json.RawMessage
	// Signature is what the API attached to the call for its own use
	// (Gemini's thoughtSignature), sent back to it with the call; empty
	// for none.
	Signature string
}

// A ToolResult answers the ToolCall with the same ID.
type ToolResult struct {
	CallID  string
	Content string // the envelope, a JSON document
	IsError bool   // the tool failed (the envelope's tool_success is false)
	// Images are the pictures the result carried (the protocol's
	// "images"), which the model sees with it.
	Images []Image
}

// An Image is a picture for the model: one the user's prompt mentions, or
// one a tool's result carried.
type Image struct {
	Name      string // what the conversation calls it: a path, or the tool it came from
	MediaType string // image/png, image/jpeg, image/gif or image/webp
	Data      []byte
}

// ImageTypes are the media types of the images every provider takes.
var ImageTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// Placeholder is the text that stands for the image where it cannot be
// sent, saying why.
func (i Image) Placeholder(why string) Text {
	// On a line of its own where a provider joins a message's texts.
	return Text(fmt.Sprintf("\n[image %s (%s, %d bytes) not sent: %s]", i.Name, i.MediaType, len(i.Data), why))
}

// WithoutImages returns ms with every image replaced by its placeholder
// (why says why), for a model that takes none. ms itself is left as it
// is; without images, it is what comes back.
func WithoutImages(ms []Message, why string) []Message {
	return ReplaceImages(ms, func(Image) string { return why })
}

// ReplaceImages returns ms with each image for which why returns a reason
// replaced by its placeholder saying so; why sees the images in order,
// oldest first. ms itself is left as it is; when nothing is replaced, it
// is what comes back.
func ReplaceImages(ms []Message, why func(Image) string) []Message {
	var out []Message
	for i, m := range ms {
		if !m.hasImages() {
			continue
		}
		var parts, notes []Part
		changed := false
		for _, p := range m.Parts {
			switch p := p.(type) {
			case Image:
				if reason := why(p); reason != "" {
					parts, changed = append(parts, p.Placeholder(reason)), true
					continue
				}
			case ToolResult:
				var kept []Image
				for _, img := range p.Images {
					if reason := why(img); reason != "" {
						notes = append(notes, img.Placeholder(reason))
					} else {
						kept = append(kept, img)
					}
				}
				p.Images = kept
				parts = append(parts, p)
				continue
			}
			parts = append(parts, p)
		}
		if !changed && notes == nil {
			continue
		}
		if out == nil {
			out = slices.Clone(ms)
		}
		// A tool result's notes come after the message's parts: text
		// follows a provider's tool results.
		out[i].Parts = append(parts, notes...)
	}
	if out == nil {
		return ms
	}
	return out
}

func (m Message) hasImages() bool {
	for _, p := range m.Parts {
		switch p := p.(type) {
		case Image:
			return true
		case ToolResult:
			if len(p.Images) > 0 {
				return true
			}
		}
	}
	return false
}

// Images returns the message's images, its own and its tool results', in
// order.
func (m Message) Images() []Image {
	var images []Image
	for _, p := range m.Parts {
		switch p := p.(type) {
		case Image:
			images = append(images, p)
		case ToolResult:
			images = append(images, p.Images...)
		}
	}
	return images
}

func (Text) isPart()       {}
func (Image) isPart()      {}
func (ToolCall) isPart()   {}
func (ToolResult) isPart() {}

// UserText returns a user message holding text.
func UserText(text string) Message {
	return Message{Role: User, Parts: []Part{Text(text)}}
}

// Text returns the message's text parts joined together.
func (m Message) Text() string {
	var b strings.Builder
	for _, p := range m.Parts {
		if t, ok := p.(Text); ok {
			b.WriteString(string(t))
		}
	}
	return b.String()
}

// ToolCalls returns the message's tool calls in the order the model made them.
func (m Message) ToolCalls() []ToolCall {
	var calls []ToolCall
	for _, p := range m.Parts {
		if c, ok := p.(ToolCall); ok {
			calls = append(calls, c)
		}
	}
	return calls
}

// EventKind says what an Event reports.
type EventKind int

const (
	// TextDelta: Event.Text is the next piece of the model's text.
	TextDelta EventKind = iota + 1
	// ToolCallReady: Event.ToolCall is complete, arguments and all.
	ToolCallReady
	// Retrying: the request failed with Event.Err and is sent again after
	// Event.Wait, as attempt Event.Attempt of Event.Attempts.
	Retrying
	// ThinkingDelta: Event.Text is the next piece of the model's reasoning.
	ThinkingDelta
)

// An Event is something the model's answer brought, as it arrived.
type Event struct {
	Kind     EventKind
	Text     string
	ToolCall ToolCall
	Err      *Error
	Wait     time.Duration
	Attempt  int // Retrying: the attempt about to be made, from 2
	Attempts int // Retrying: how many attempts there will be at most
}

// StopReason says why the model stopped writing.
type StopReason string

const (
	EndTurn   StopReason = "end_turn"   // it finished its answer
	ToolUse   StopReason = "tool_use"   // it waits for the results of its tool calls
	MaxTokens StopReason = "max_tokens" // it reached Request.MaxTokens
	Other     StopReason = "other"      // anything else: a refusal, a content filter
)

// Usage counts the tokens a request used.
type Usage struct {
	InputTokens  int // everything the model read, cached or not
	OutputTokens int
	// CacheReadTokens and CacheWriteTokens are the part of InputTokens
	// read from the provider's prompt cache, and written to it.
	CacheReadTokens, CacheWriteTokens int
	// ThinkingTokens is the part of OutputTokens spent reasoning, when
	// the API says.
	ThinkingTokens int
}

// Add returns the sum of u and v.
func (u Usage) Add(v Usage) Usage {
	return Usage{u.InputTokens + v.InputTokens, u.OutputTokens + v.OutputTokens, u.CacheReadTokens + v.CacheReadTokens,
		u.CacheWriteTokens + v.CacheWriteTokens, u.ThinkingTokens + v.ThinkingTokens}
}

// A Response is the model's complete answer to a Request.
type Response struct {
	Message    Message // Role is Assistant
	StopReason StopReason
	Usage      Usage
}
