package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// fakeAPI is a loopback model API that speaks just enough of each peer's
// wire format to answer a one-line prompt: Anthropic's Messages API
// (streamed or not), OpenAI's Responses and Chat Completions APIs, and
// Gemini's generateContent and streamGenerateContent. It answers every
// model request with the same text and records when each request arrived
// and how big it was.
//
// It is the bench's own, not providertest's: it checks nothing, so that it
// costs every client the same and fails none of them on a field it does
// not know.
type fakeAPI struct {
	URL    string // http://127.0.0.1:PORT
	Answer string

	srv *http.Server

	mu   sync.Mutex
	seen []apiRequest
}

// An apiRequest is what the fake saw of one request.
type apiRequest struct {
	At       time.Time // when its headers arrived
	Method   string
	Path     string // with the query
	Bytes    int    // of the body, as sent
	Encoding string // the body's Content-Encoding, if any
	Model    bool   // a request for a model's answer (not a listing, not a token count)
	Known    bool   // a route the fake serves
}

func newFakeAPI(answer string) (*fakeAPI, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f := &fakeAPI{URL: "http://" + ln.Addr().String(), Answer: answer}
	f.srv = &http.Server{Handler: http.HandlerFunc(f.serve)}
	go f.srv.Serve(ln)
	return f, nil
}

func (f *fakeAPI) Close() { f.srv.Close() }

// Take returns the requests seen since the last call and forgets them.
func (f *fakeAPI) Take() []apiRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	seen := f.seen
	f.seen = nil
	return seen
}

// route names what a request asks for: "model" for a model's answer,
// "aux" for another route the fake serves, "" for one it does not.
func route(method, path string) string {
	if method == http.MethodGet && path == "/v1/models" {
		return "aux"
	}
	if method != http.MethodPost {
		return ""
	}
	switch path {
	case "/v1/messages", "/v1/responses", "/v1/chat/completions":
		return "model"
	case "/v1/messages/count_tokens":
		return "aux"
	}
	if rest, ok := strings.CutPrefix(path, "/v1beta/models/"); ok {
		switch _, method, _ := strings.Cut(rest, ":"); method {
		case "streamGenerateContent", "generateContent":
			return "model"
		case "countTokens":
			return "aux"
		}
	}
	return ""
}

func (f *fakeAPI) serve(w http.ResponseWriter, r *http.Request) {
	at := time.Now()
	body, _ := io.ReadAll(r.Body)
	path := r.URL.Path
	kind := route(r.Method, path)
	f.mu.Lock()
	f.seen = append(f.seen, apiRequest{At: at, Method: r.Method, Path: r.URL.RequestURI(), Bytes: len(body),
		Encoding: r.Header.Get("Content-Encoding"), Model: kind == "model", Known: kind != ""})
	f.mu.Unlock()
	var req struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	json.Unmarshal(body, &req)
	switch {
	case kind == "":
		http.Error(w, fmt.Sprintf("the bench's fake API has no route %s %s", r.Method, path), http.StatusNotFound)
	case path == "/v1/messages":
		f.anthropic(w, req.Model, req.Stream)
	case path == "/v1/messages/count_tokens":
		writeJSONBody(w, obj{"input_tokens": 10})
	case path == "/v1/responses":
		f.responses(w, req.Model)
	case path == "/v1/chat/completions":
		f.chat(w, req.Model)
	case path == "/v1/models":
		writeJSONBody(w, obj{"object": "list", "data": []any{}})
	case strings.HasSuffix(path, ":countTokens"):
		writeJSONBody(w, obj{"totalTokens": 10})
	default:
		model, method, _ := strings.Cut(strings.TrimPrefix(path, "/v1beta/models/"), ":")
		f.gemini(w, model, body, method == "streamGenerateContent")
	}
}

func writeJSONBody(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

type sseWriter struct{ w http.ResponseWriter }

func newSSE(w http.ResponseWriter) sseWriter {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return sseWriter{w}
}

// event writes one event; an empty name writes a data-only one.
func (s sseWriter) event(name string, data any) {
	var b strings.Builder
	if name != "" {
		fmt.Fprintf(&b, "event: %s\n", name)
	}
	d, _ := json.Marshal(data)
	fmt.Fprintf(&b, "data: %s\n\n", d)
	io.WriteString(s.w, b.String())
	http.NewResponseController(s.w).Flush()
}

type obj = map[string]any

func (f *fakeAPI) anthropic(w http.ResponseWriter, model string, stream bool) {
	usage := obj{"input_tokens": 10, "output_tokens": 1, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	msg := obj{"id": "msg_bench", "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}
	if !stream {
		msg["content"] = []any{obj{"type": "text", "text": f.Answer}}
		msg["stop_reason"] = "end_turn"
		writeJSONBody(w, msg)
		return
	}
	s := newSSE(w)
	s.event("message_start", obj{"type": "message_start", "message": msg})
	s.event("content_block_start", obj{"type": "content_block_start", "index": 0, "content_block": obj{"type": "text", "text": ""}})
	s.event("content_block_delta", obj{"type": "content_block_delta", "index": 0, "delta": obj{"type": "text_delta", "text": f.Answer}})
	s.event("content_block_stop", obj{"type": "content_block_stop", "index": 0})
	s.event("message_delta", obj{"type": "message_delta", "delta": obj{"stop_reason": "end_turn", "stop_sequence": nil},
		"usage": obj{"output_tokens": 1}})
	s.event("message_stop", obj{"type": "message_stop"})
}

func (f *fakeAPI) responses(w http.ResponseWriter, model string) {
	s := newSSE(w)
	resp := obj{"id": "resp_bench", "object": "response", "created_at": 1700000000, "status": "in_progress", "model": model, "output": []any{}}
	s.event("response.created", obj{"type": "response.created", "sequence_number": 0, "response": resp})
	item := obj{"id": "msg_bench", "type": "message", "status": "in_progress", "role": "assistant", "content": []any{}}
	s.event("response.output_item.added", obj{"type": "response.output_item.added", "sequence_number": 1, "output_index": 0, "item": item})
	part := obj{"type": "output_text", "text": "", "annotations": []any{}}
	s.event("response.content_part.added", obj{"type": "response.content_part.added", "sequence_number": 2, "item_id": "msg_bench",
		"output_index": 0, "content_index": 0, "part": part})
	s.event("response.output_text.delta", obj{"type": "response.output_text.delta", "sequence_number": 3, "item_id": "msg_bench",
		"output_index": 0, "content_index": 0, "delta": f.Answer})
	s.event("response.output_text.done", obj{"type": "response.output_text.done", "sequence_number": 4, "item_id": "msg_bench",
		"output_index": 0, "content_index": 0, "text": f.Answer})
	part["text"] = f.Answer
	s.event("response.content_part.done", obj{"type": "response.content_part.done", "sequence_number": 5, "item_id": "msg_bench",
		"output_index": 0, "content_index": 0, "part": part})
	item["status"], item["content"] = "completed", []any{part}
	s.event("response.output_item.done", obj{"type": "response.output_item.done", "sequence_number": 6, "output_index": 0, "item": item})
	resp["status"], resp["output"] = "completed", []any{item}
	resp["usage"] = obj{"input_tokens": 10, "input_tokens_details": obj{"cached_tokens": 0},
		"output_tokens": 1, "output_tokens_details": obj{"reasoning_tokens": 0}, "total_tokens": 11}
	s.event("response.completed", obj{"type": "response.completed", "sequence_number": 7, "response": resp})
}

func (f *fakeAPI) chat(w http.ResponseWriter, model string) {
	s := newSSE(w)
	chunk := func(delta obj, finish any) obj {
		return obj{"id": "chatcmpl-bench", "object": "chat.completion.chunk", "created": 1700000000, "model": model,
			"choices": []obj{{"index": 0, "delta": delta, "finish_reason": finish}}}
	}
	s.event("", chunk(obj{"role": "assistant", "content": f.Answer}, nil))
	s.event("", chunk(obj{}, "stop"))
	io.WriteString(w, "data: [DONE]\n\n")
}

// gemini answers generateContent and streamGenerateContent. A request
// that asks for JSON of a schema (gemini-cli's model router does, before
// the real request) gets the least value of that schema.
func (f *fakeAPI) gemini(w http.ResponseWriter, model string, body []byte, stream bool) {
	var req struct {
		GenerationConfig struct {
			ResponseJSONSchema json.RawMessage `json:"responseJsonSchema"`
			ResponseSchema     json.RawMessage `json:"responseSchema"`
		} `json:"generationConfig"`
	}
	json.Unmarshal(body, &req)
	text := f.Answer
	if schema := cmp.Or(string(req.GenerationConfig.ResponseJSONSchema), string(req.GenerationConfig.ResponseSchema)); schema != "" {
		var s jsonSchema
		json.Unmarshal([]byte(schema), &s)
		v, _ := json.Marshal(s.least())
		text = string(v)
	}
	res := obj{
		"candidates":    []obj{{"content": obj{"role": "model", "parts": []obj{{"text": text}}}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": obj{"promptTokenCount": 10, "candidatesTokenCount": 1, "totalTokenCount": 11},
		"modelVersion":  model,
		"responseId":    "bench",
	}
	if !stream {
		writeJSONBody(w, res)
		return
	}
	newSSE(w).event("", res)
}

// jsonSchema is as much of a JSON schema (or Gemini's Schema, whose types
// are upper case) as least needs.
type jsonSchema struct {
	Type       string                `json:"type"`
	Enum       []any                 `json:"enum"`
	Minimum    *float64              `json:"minimum"`
	Properties map[string]jsonSchema `json:"properties"`
	Required   []string              `json:"required"`
}

// least returns a small value that the schema accepts: every required
// property, the first of an enum, the minimum of a number.
func (s jsonSchema) least() any {
	if len(s.Enum) > 0 {
		return s.Enum[0]
	}
	switch strings.ToLower(s.Type) {
	case "object":
		o := obj{}
		for _, name := range s.Required {
			o[name] = s.Properties[name].least()
		}
		return o
	case "array":
		return []any{}
	case "integer", "number":
		if s.Minimum != nil {
			return *s.Minimum
		}
		return 1
	case "boolean":
		return false
	}
	return "bench"
}
