// Package providertest is a fake model API for tests: an HTTP server on
// loopback that speaks Anthropic's Messages API and OpenAI's Chat
// Completions API with their real event streams, answers from a
// transcript, and records every request it gets.
//
//	srv := providertest.NewServer(providertest.Transcript{Replies: []providertest.Reply{
//		{ToolCalls: []providertest.Call{{Name: "bash", Arguments: json.RawMessage(`{"command":"ls"}`)}}},
//		{Text: "Done."},
//	}})
//	defer srv.Close()
//	// point an Anthropic client at srv.AnthropicURL(), an OpenAI one at srv.OpenAIURL()
//
// # Routes
//
// POST /v1/messages answers in Anthropic's format, POST /v1/chat/completions
// in OpenAI's, POST /v1beta/models/MODEL:streamGenerateContent?alt=sse in
// Gemini's; all take the next reply of the one transcript, so a transcript
// plays the same conversation to any provider. GET /v1/models lists
// Transcript.Models in OpenAI's format, as Ollama does, or in Anthropic's
// when the request has an anthropic-version header; GET /v1beta/models
// lists them in Gemini's. A message
// request is checked the way the real APIs check it (it streams, names a
// model, and every tool call is answered by a result with its id in the
// next message, and no result lacks its call); one that fails gets a 400
// in the API's format and does not use up a reply. A request after the
// last reply gets a 400 saying the transcript is exhausted.
//
// # Transcript format
//
// A transcript is a JSON object; unknown fields are an error, to catch
// typos in test scripts:
//
//	{
//	  "models": ["qwen3:8b"],               // optional: what GET /v1/models lists
//	  "replies": [                          // one per message request, in order
//	    {"text": "Hello there"},            // streamed a word at a time
//	    {"thinking": "The user greets me.", // reasoning before the text, to a request that asks for it
//	     "text": "Hi."},
//	    {"text": "Let me look.",            // text, then tool calls
//	     "tool_calls": [{"id": "toolu_a",   // optional; numbered ids by default
//	                     "name": "bash",
//	                     "arguments": {"command": "ls"}}],  // streamed in pieces
//	     "stop": "tool_use",                // end_turn, tool_use (the defaults), max_tokens, or any other
//	     "usage": {"input_tokens": 12, "output_tokens": 7}},
//	    {"status": 429, "error": "slow down",             // an HTTP error in the API's format
//	     "headers": {"retry-after": "1"}},                // extra response headers, for any reply
//	    {"status": 429, "error_type": "insufficient_quota"}, // the API's error type or code
//	    {"text": "partial", "stream_error": "overloaded_error"}, // an error event after the content
//	    {"text": "partial", "hang": true},  // the stream stays open until the client leaves
//	    {"stall_before_headers": true},     // no response at all until the client leaves
//	    {"text": "Hello", "stall_after_events": 2}, // the first 2 events, then silence until the client leaves
//	    {"raw": "event: nonsense\n\n"},     // a response body sent as it is, as an event stream
//	    {"status": 502, "raw": "<html>Bad Gateway</html>",  // any status and body: a proxy's page,
//	     "headers": {"content-type": "text/html"}},          // a JSON document where a stream belongs
//	    {"delay_ms": 200, "text": "late"},  // a wait before the response starts
//	    {"match": "You are agent-1", "text": "Done."} // only for a request whose body holds this
//	  ]
//	}
//
// A request gets the first reply not yet given that fits it: without
// "match", any. Retries wait about a second by default; an error reply with
// "headers": {"retry-after-ms": "10"} keeps a test that retries fast.
//
// # Recorded requests
//
// Every request is recorded, in order, with its method, path, headers and
// body (JSON as sent; anything else as a JSON string). Requests returns
// them; WriteRequests writes them to a file as an indented JSON array, so
// that a test script can grep it.
//
// # In test scripts
//
// A testscript command needs only ReadTranscript, NewServer, the URL
// methods and WriteRequests: "fakeprovider start transcript.json" reads the
// file, starts a server, sets the base URL in the script's environment and
// defers Close; "fakeprovider dump requests.json" writes what it got.
package providertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
)

// A Transcript is what a Server answers, in order.
type Transcript struct {
	Models  []string `json:"models,omitempty"`
	Replies []Reply  `json:"replies"`
}

// A Reply is the answer to one message request: a streamed message, an
// HTTP error (Status), or a raw body (Raw, with Status when it is one). See
// the package documentation.
type Reply struct {
	Text string `json:"text,omitempty"`
	// Thinking is the model's reasoning, streamed before the text to a
	// request that asks to see it: Anthropic's with thinking enabled
	// (with a signature the fake checks when it comes back), Gemini's
	// with includeThoughts, and any Chat Completions request, as the
	// reasoning_content of the servers that think.
	Thinking  string `json:"thinking,omitempty"`
	ToolCalls []Call `json:"tool_calls,omitempty"`
	Stop      string `json:"stop,omitempty"`
	Usage     *Usage `json:"usage,omitempty"`

	Status    int               `json:"status,omitempty"`
	Error     string            `json:"error,omitempty"`
	ErrorType string            `json:"error_type,omitempty"`
	Headers   map[string]string `json:"headers,omitempty"`

	StreamError        string `json:"stream_error,omitempty"`
	Hang               bool   `json:"hang,omitempty"`
	StallBeforeHeaders bool   `json:"stall_before_headers,omitempty"`
	StallAfterEvents   int    `json:"stall_after_events,omitempty"`
	Raw                string `json:"raw,omitempty"`
	DelayMS            int    `json:"delay_ms,omitempty"`
	// Match, if set, gives the reply only to a request whose body holds
	// it: for conversations that run at once (a sub-agent in the
	// background), whose requests come in no set order.
	Match string `json:"match,omitempty"`
}

// A Call is a tool call in a reply.
type Call struct {
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Usage is the token count a reply reports.
type Usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// ReadTranscript reads a transcript file.
func ReadTranscript(path string) (Transcript, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Transcript{}, err
	}
	t, err := ParseTranscript(data)
	if err != nil {
		return Transcript{}, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// ParseTranscript decodes and checks a transcript.
func ParseTranscript(data []byte) (Transcript, error) {
	var t Transcript
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return Transcript{}, fmt.Errorf("transcript: %w", err)
	}
	if dec.More() {
		return Transcript{}, fmt.Errorf("transcript: more than one JSON value")
	}
	for i, r := range t.Replies {
		if err := r.check(); err != nil {
			return Transcript{}, fmt.Errorf("transcript: reply %d: %w", i+1, err)
		}
	}
	return t, nil
}

func (r Reply) check() error {
	switch {
	case r.Status != 0 && (r.Status < 400 || r.Status > 599):
		return fmt.Errorf("status %d is not an HTTP error status", r.Status)
	case r.Status != 0 && (r.Text != "" || len(r.ToolCalls) > 0 || r.StreamError != "" || r.Hang || r.StallBeforeHeaders || r.StallAfterEvents != 0):
		return fmt.Errorf("an error status goes with error, error_type, headers and raw only")
	case r.Raw != "" && (r.Text != "" || len(r.ToolCalls) > 0 || r.StreamError != "" || r.Hang || r.StallAfterEvents != 0 || r.Error != "" || r.ErrorType != ""):
		return fmt.Errorf("raw goes with status, headers, delay_ms and stall_before_headers only")
	case r.DelayMS < 0:
		return fmt.Errorf("delay_ms is negative")
	case r.StallAfterEvents < 0:
		return fmt.Errorf("stall_after_events is negative")
	}
	for i, c := range r.ToolCalls {
		if c.Name == "" {
			return fmt.Errorf("tool call %d has no name", i+1)
		}
	}
	return nil
}
