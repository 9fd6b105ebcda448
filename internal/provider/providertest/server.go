package providertest

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// A Server is a fake model API on loopback, answering from a transcript.
type Server struct {
	// URL is the server's root, http://127.0.0.1:PORT.
	URL string

	srv  *httptest.Server
	done chan struct{} // closed by Close, to end hanging streams

	mu       sync.Mutex
	models   []string
	replies  []Reply
	taken    []bool // which replies were given
	used     int
	calls    int // tool call ids handed out
	requests []Request
}

// A Request is a request the server got.
type Request struct {
	Method string          `json:"method"`
	Path   string          `json:"path"`
	Header http.Header     `json:"header"`
	Body   json.RawMessage `json:"body,omitempty"`
}

// NewServer starts a server that answers from t. Close it when done.
func NewServer(t Transcript) *Server {
	s := &Server{done: make(chan struct{}), models: t.Models, replies: t.Replies, taken: make([]bool, len(t.Replies))}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	return s
}

// AnthropicURL is the base URL for an Anthropic client.
func (s *Server) AnthropicURL() string { return s.URL }

// OpenAIURL is the base URL for an OpenAI client.
func (s *Server) OpenAIURL() string { return s.URL + "/v1" }

// GeminiURL is the base URL for a Gemini client.
func (s *Server) GeminiURL() string { return s.URL }

// Close ends any hanging stream and shuts the server down.
func (s *Server) Close() {
	select {
	case <-s.done:
	default:
		close(s.done)
	}
	s.srv.Close()
}

// Requests returns the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Pending returns how many replies of the transcript are still unused.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.replies) - s.used
}

// WriteRequests writes the requests received so far to path, as an
// indented JSON array.
func (s *Server) WriteRequests(path string) error {
	data, err := json.MarshalIndent(s.Requests(), "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// A format writes replies in one API's wire format.
type format interface {
	// check returns what the real API would say about a request body it
	// rejects, or "".
	check(body []byte) string
	// fail writes an HTTP error.
	fail(w http.ResponseWriter, status int, typ, msg string)
	// stream writes a reply as an event stream: its text and tool calls,
	// then its end, or an error event (StreamError), or nothing (Hang).
	stream(w *eventWriter, r Reply, calls []Call, q query)
}

// query is what a request asks of its answer's form.
type query struct {
	model     string
	withUsage bool // OpenAI's stream_options.include_usage
	thinking  bool // the request asks to see the model's thinking
}

// asksThinking reports whether a request's body asks to see the model's
// thinking: Anthropic's thinking enabled, Gemini's includeThoughts, or any
// Chat Completions request (servers that think say so unasked).
func asksThinking(f format, body []byte) bool {
	var req struct {
		Thinking struct {
			Type string `json:"type"`
		} `json:"thinking"`
		GenerationConfig struct {
			ThinkingConfig struct {
				IncludeThoughts bool `json:"includeThoughts"`
			} `json:"thinkingConfig"`
		} `json:"generationConfig"`
	}
	json.Unmarshal(body, &req)
	switch f.(type) {
	case anthropic:
		return req.Thinking.Type == "enabled"
	case gemini:
		return req.GenerationConfig.ThinkingConfig.IncludeThoughts
	}
	return true
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.record(r, body)
	var f format
	model, isGemini := geminiRoute(r.URL.Path)
	switch {
	case r.Method == http.MethodPost && isGemini:
		f = gemini{}
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
		f = anthropic{}
	case r.Method == http.MethodPost && r.URL.Path == "/v1/chat/completions":
		f = openai{}
	case r.Method == http.MethodGet && r.URL.Path == "/v1beta/models":
		s.listGeminiModels(w)
		return
	case r.Method == http.MethodGet && r.URL.Path == "/v1/models":
		if r.Header.Get("Anthropic-Version") != "" {
			s.listAnthropicModels(w)
		} else {
			s.listModels(w)
		}
		return
	default:
		openai{}.fail(w, http.StatusNotFound, "", fmt.Sprintf("the fake provider has no route %s %s", r.Method, r.URL.Path))
		return
	}
	var req struct {
		Model         string `json:"model"`
		Stream        bool   `json:"stream"`
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		f.fail(w, http.StatusBadRequest, "", "the body is not JSON: "+err.Error())
		return
	}
	if isGemini {
		req.Model, req.Stream = model, r.URL.Query().Get("alt") == "sse"
	}
	if msg := f.check(body); msg != "" {
		f.fail(w, http.StatusBadRequest, "", msg)
		return
	}
	if !req.Stream {
		f.fail(w, http.StatusBadRequest, "", "the fake provider only streams: set stream to true (Gemini: streamGenerateContent?alt=sse)")
		return
	}
	reply, calls, ok := s.next(body)
	if !ok {
		f.fail(w, http.StatusBadRequest, "", "the fake provider's transcript is exhausted: no reply left for this request")
		return
	}
	if !s.wait(r, time.Duration(reply.DelayMS)*time.Millisecond) {
		return
	}
	if reply.StallBeforeHeaders {
		s.wait(r, -1)
		return
	}
	if reply.Raw != "" {
		w.Header().Set("Content-Type", "text/event-stream")
	}
	for k, v := range reply.Headers {
		w.Header().Set(k, v)
	}
	switch {
	case reply.Raw != "":
		w.WriteHeader(cmp.Or(reply.Status, http.StatusOK))
		io.WriteString(w, reply.Raw)
	case reply.Status != 0:
		f.fail(w, reply.Status, reply.ErrorType, reply.Error)
	default:
		if reply.Usage == nil {
			reply.Usage = estimateUsage(body, reply, calls)
		}
		stream := newEventWriter(w)
		if reply.StallAfterEvents > 0 {
			stream.left = reply.StallAfterEvents
		}
		f.stream(stream, reply, calls, query{model: req.Model, withUsage: req.StreamOptions.IncludeUsage, thinking: asksThinking(f, body)})
		if reply.Hang || reply.StallAfterEvents > 0 {
			s.wait(r, -1)
		}
	}
}

func (s *Server) record(r *http.Request, body []byte) {
	if len(body) > 0 && !json.Valid(body) {
		body, _ = json.Marshal(string(body))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
}

// next takes the first reply not yet given that fits the request's body
// (see Reply.Match), with every tool call given an id.
func (s *Server) next(body []byte) (Reply, []Call, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := -1
	for k, r := range s.replies {
		if !s.taken[k] && (r.Match == "" || bytes.Contains(body, []byte(r.Match))) {
			i = k
			break
		}
	}
	if i < 0 {
		return Reply{}, nil, false
	}
	r := s.replies[i]
	s.taken[i] = true
	s.used++
	calls := make([]Call, len(r.ToolCalls))
	for i, c := range r.ToolCalls {
		s.calls++
		if c.ID == "" {
			c.ID = fmt.Sprintf("call_%02d", s.calls)
		}
		if len(c.Arguments) == 0 {
			c.Arguments = json.RawMessage("{}")
		}
		calls[i] = c
	}
	return r, calls, true
}

// wait waits d, or until the client leaves or the server closes, and
// reports whether the whole wait passed. A negative d waits for the end.
func (s *Server) wait(r *http.Request, d time.Duration) bool {
	if d == 0 {
		return true
	}
	var timeout <-chan time.Time
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-timeout:
		return true
	case <-r.Context().Done():
	case <-s.done:
	}
	return false
}

func (s *Server) listModels(w http.ResponseWriter) {
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	list := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list", Data: []model{}}
	s.mu.Lock()
	for _, m := range s.models {
		list.Data = append(list.Data, model{ID: m, Object: "model", Created: created, OwnedBy: "library"})
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, list)
}

// listGeminiModels answers as Gemini's /v1beta/models does: each model
// by its resource name, able to generate content.
func (s *Server) listGeminiModels(w http.ResponseWriter) {
	type model struct {
		Name        string   `json:"name"`
		DisplayName string   `json:"displayName"`
		Methods     []string `json:"supportedGenerationMethods"`
	}
	list := struct {
		Models []model `json:"models"`
	}{Models: []model{}}
	s.mu.Lock()
	for _, m := range s.models {
		list.Models = append(list.Models, model{Name: "models/" + m, DisplayName: m, Methods: []string{"generateContent", "countTokens"}})
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, list)
}

// listAnthropicModels answers as Anthropic's /v1/models does: one page,
// the newest model first, which the fake takes to be the first listed.
func (s *Server) listAnthropicModels(w http.ResponseWriter) {
	type model struct {
		Type        string `json:"type"`
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
		CreatedAt   string `json:"created_at"`
	}
	list := struct {
		Data    []model `json:"data"`
		HasMore bool    `json:"has_more"`
		FirstID *string `json:"first_id"`
		LastID  *string `json:"last_id"`
	}{Data: []model{}}
	s.mu.Lock()
	for _, m := range s.models {
		list.Data = append(list.Data, model{Type: "model", ID: m, DisplayName: m, CreatedAt: time.Unix(created, 0).UTC().Format(time.RFC3339)})
	}
	s.mu.Unlock()
	if n := len(list.Data); n > 0 {
		list.FirstID, list.LastID = &list.Data[0].ID, &list.Data[n-1].ID
	}
	writeJSON(w, http.StatusOK, list)
}

// created is the fixed timestamp of every answer, for stable output.
const created = 1700000000

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// An eventWriter writes server-sent events, flushing each as it goes.
type eventWriter struct {
	w    http.ResponseWriter
	left int // how many more events it writes; -1 for all
}

func newEventWriter(w http.ResponseWriter) *eventWriter {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	http.NewResponseController(w).Flush()
	return &eventWriter{w: w, left: -1}
}

// event writes one event; an empty name writes a data-only event.
func (e *eventWriter) event(name string, data any) {
	if e.left == 0 {
		return
	}
	e.left--
	var b bytes.Buffer
	if name != "" {
		fmt.Fprintf(&b, "event: %s\n", name)
	}
	b.WriteString("data: ")
	if s, ok := data.(string); ok {
		b.WriteString(s)
	} else {
		json.NewEncoder(&b).Encode(data) // ends in the newline that ends the line
		b.Truncate(b.Len() - 1)
	}
	b.WriteString("\n\n")
	e.w.Write(b.Bytes())
	http.NewResponseController(e.w).Flush()
}

// words splits text after each space, the way a model streams it.
func words(text string) []string {
	var out []string
	for _, w := range strings.SplitAfter(text, " ") {
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}

// pieces splits s into pieces of about n bytes, never inside a character,
// the way an API streams a tool call's arguments.
func pieces(s string, n int) []string {
	var out []string
	for len(s) > n {
		cut := n
		for cut < len(s) && !utf8.RuneStart(s[cut]) {
			cut++
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return append(out, s)
}

func (r Reply) stop(calls []Call) string {
	switch {
	case r.Stop != "":
		return r.Stop
	case len(calls) > 0:
		return "tool_use"
	}
	return "end_turn"
}

func (r Reply) usage() Usage {
	if r.Usage != nil {
		return *r.Usage
	}
	return Usage{InputTokens: 10, OutputTokens: 10}
}

// estimateUsage is the usage a reply without one reports: about a token
// for every four bytes of the request and of the answer, as a real API
// would count them roughly, so that a client's accounting has something
// to go on.
func estimateUsage(body []byte, r Reply, calls []Call) *Usage {
	out := len(r.Text) + len(r.Thinking)
	for _, c := range calls {
		out += len(c.Name) + len(c.Arguments)
	}
	return &Usage{InputTokens: max(1, len(body)/4), OutputTokens: max(1, out/4)}
}
