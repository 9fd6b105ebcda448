package providertest

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ikigai-tools/ikigai/internal/provider/sse"
)

func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	res, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(data)
}

func TestParseTranscript(t *testing.T) {
	good := `{"models":["m"],"replies":[
		{"text":"hi","tool_calls":[{"id":"a","name":"bash","arguments":{"command":"ls"}}],"stop":"tool_use","usage":{"input_tokens":1,"output_tokens":2}},
		{"status":429,"error":"slow","error_type":"rate_limit_error","headers":{"retry-after":"1"}},
		{"text":"x","stream_error":"overloaded_error"},{"text":"x","hang":true},{"raw":"data: [DONE]\n\n","delay_ms":5},
		{"status":502,"raw":"<html>","headers":{"content-type":"text/html"}}]}`
	tr, err := ParseTranscript([]byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Replies) != 6 || string(tr.Replies[0].ToolCalls[0].Arguments) != `{"command":"ls"}` || tr.Replies[1].Headers["retry-after"] != "1" {
		t.Errorf("parsed %+v", tr)
	}
	for bad, want := range map[string]string{
		`{"replies":[{"txt":"typo"}]}`:                             `unknown field "txt"`,
		`{"replies":[{"status":200}]}`:                             "reply 1: status 200 is not an HTTP error status",
		`{"replies":[{"status":500,"text":"x"}]}`:                  "reply 1: an error status goes with",
		`{"replies":[{"raw":"x","text":"y"}]}`:                     "reply 1: raw goes with",
		`{"replies":[{"raw":"x","error":"y"}]}`:                    "reply 1: raw goes with",
		`{"replies":[{},{"tool_calls":[{"arguments":{}}]}]}`:       "reply 2: tool call 1 has no name",
		`{"replies":[{"delay_ms":-1}]}`:                            "delay_ms is negative",
		`{"replies":[{"stall_after_events":-1}]}`:                  "stall_after_events is negative",
		`{"replies":[{"status":500,"stall_before_headers":true}]}`: "reply 1: an error status goes with",
		`{"replies":[{"raw":"x","stall_after_events":2}]}`:         "reply 1: raw goes with",
		`{"replies":[]} {}`:                                        "more than one JSON value",
		`[]`:                                                       "cannot unmarshal array",
	} {
		if _, err := ParseTranscript([]byte(bad)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", bad, err, want)
		}
	}
	path := filepath.Join(t.TempDir(), "t.json")
	os.WriteFile(path, []byte(`{"replies":[{"status":1}]}`), 0o644)
	if _, err := ReadTranscript(path); err == nil || !strings.HasPrefix(err.Error(), path+": ") {
		t.Errorf("got %v, want the file named", err)
	}
}

// The server refuses what the real APIs refuse, without using up a reply.
func TestChecks(t *testing.T) {
	srv := NewServer(Transcript{Replies: []Reply{{Text: "ok"}}})
	defer srv.Close()
	anthropic, openai := srv.URL+"/v1/messages", srv.URL+"/v1/chat/completions"
	for _, tc := range []struct{ url, body, want string }{
		{anthropic, `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`, "only streams"},
		{anthropic, `{"max_tokens":5,"stream":true,"messages":[{"role":"user","content":"hi"}]}`, "model: Field required"},
		{anthropic, `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`, "max_tokens: Field required"},
		{anthropic, `{"model":"m","max_tokens":5,"stream":true,"messages":[]}`, "at least one message"},
		{anthropic, `{"model":"m","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"hi"},
			{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"x","input":{}},{"type":"tool_use","id":"t2","name":"x","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"r"}]}]}`,
			"messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: t2"},
		{anthropic, `{"model":"m","max_tokens":5,"stream":true,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t9","content":"r"}]}]}`,
			"messages.0.content.0: unexpected `tool_use_id` found in `tool_result` blocks: t9"},
		{anthropic, `{not json`, "the body is not JSON"},
		{openai, `{"stream":true,"messages":[{"role":"user","content":"hi"}]}`, "you must provide a model parameter"},
		{openai, `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"},
			{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"x","arguments":"{}"}}]},
			{"role":"user","content":"and?"}]}`,
			"The following tool_call_ids did not have response messages: c1"},
		{openai, `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"},
			{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"x","arguments":"{}"}}]}]}`,
			"did not have response messages: c1"},
		{openai, `{"model":"m","stream":true,"messages":[{"role":"tool","tool_call_id":"c7","content":"r"}]}`, "(tool_call_id c7)"},
		{anthropic, `{"model":"m","max_tokens":5,"stream":true,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/bmp","data":"AA=="}}]}]}`,
			"messages.0.content.0.source.base64.media_type: Input should be"},
		{anthropic, `{"model":"m","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"hi"},
			{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"x","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"not base64!"}}]}]}]}`,
			"messages.2.content.0.content.0.source.base64.data: Invalid base64 data"},
		{openai, `{"model":"m","stream":true,"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,%%%"}}]}]}`,
			"image_url is only supported"},
		{openai, `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"},
			{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"x","arguments":"{}"}}]},
			{"role":"tool","tool_call_id":"c1","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,AA=="}}]}]}`,
			"for messages with role 'user'"},
	} {
		status, body := post(t, tc.url, tc.body)
		if status != 400 || !strings.Contains(body, tc.want) {
			t.Errorf("%s\ngot %d %s\nwant 400 saying %q", tc.body, status, body, tc.want)
		}
	}
	if srv.Pending() != 1 {
		t.Errorf("%d replies left, want 1", srv.Pending())
	}
	status, _ := post(t, openai, `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	status2, body := post(t, openai, `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	if status != 200 || status2 != 400 || !strings.Contains(body, "transcript is exhausted") {
		t.Errorf("after the last reply: %d %s", status2, body)
	}
}

func TestRoutes(t *testing.T) {
	srv := NewServer(Transcript{Models: []string{"a", "b"}})
	defer srv.Close()
	res, err := http.Get(srv.OpenAIURL() + "/models")
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Data []struct{ ID string } `json:"data"`
	}
	json.NewDecoder(res.Body).Decode(&list)
	res.Body.Close()
	if len(list.Data) != 2 || list.Data[0].ID != "a" || list.Data[1].ID != "b" {
		t.Errorf("models %+v", list)
	}
	if status, body := post(t, srv.URL+"/v2/complete", "{}"); status != 404 || !strings.Contains(body, "no route POST /v2/complete") {
		t.Errorf("unknown route: %d %s", status, body)
	}
}

// A raw reply is sent as it is: an event stream by default, or any status
// and media type the reply says.
func TestRawReplies(t *testing.T) {
	srv := NewServer(Transcript{Replies: []Reply{
		{Raw: "data: x\n\n"},
		{Status: 502, Raw: "<html>Bad Gateway</html>", Headers: map[string]string{"Content-Type": "text/html"}},
	}})
	defer srv.Close()
	for _, want := range []struct {
		status      int
		contentType string
		body        string
	}{
		{200, "text/event-stream", "data: x\n\n"},
		{502, "text/html", "<html>Bad Gateway</html>"},
	} {
		res, err := http.Post(srv.URL+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != want.status || res.Header.Get("Content-Type") != want.contentType || string(body) != want.body {
			t.Errorf("got %d %s %q, want %d %s %q", res.StatusCode, res.Header.Get("Content-Type"), body, want.status, want.contentType, want.body)
		}
	}
}

func TestWriteRequests(t *testing.T) {
	srv := NewServer(Transcript{Replies: []Reply{{Text: "ok"}}})
	defer srv.Close()
	post(t, srv.URL+"/v1/messages", `{"model":"m","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	post(t, srv.URL+"/v1/messages", `plain text`)
	path := filepath.Join(t.TempDir(), "requests.json")
	if err := srv.WriteRequests(path); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	var reqs []Request
	if err := json.Unmarshal(data, &reqs); err != nil {
		t.Fatal(err)
	}
	if len(reqs) != 2 || reqs[0].Method != "POST" || reqs[0].Path != "/v1/messages" || reqs[1].Body == nil {
		t.Fatalf("recorded %s", data)
	}
	// Indented, body and all, so that a script can grep one field a line.
	for _, want := range []string{`    "model": "m",`, `"content": "hi"`, `"body": "plain text"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("%s lacks %q", data, want)
		}
	}
}

// A reply can stall before its headers, or after its first events, and
// stays so until the client leaves.
func TestStalls(t *testing.T) {
	srv := NewServer(Transcript{Replies: []Reply{{StallBeforeHeaders: true}, {Text: "one two three", StallAfterEvents: 3}}})
	defer srv.Close()
	post := func(timeout time.Duration) (*http.Response, error) {
		client := &http.Client{Transport: &http.Transport{ResponseHeaderTimeout: timeout}}
		return client.Post(srv.URL+"/v1/messages", "application/json",
			strings.NewReader(`{"model":"m","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	}
	if _, err := post(100 * time.Millisecond); err == nil || !strings.Contains(err.Error(), "timeout awaiting response headers") {
		t.Errorf("stall before headers: got %v, want no headers", err)
	}

	res, err := post(0)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	events := make(chan string)
	go func() {
		defer close(events)
		stream := sse.NewReader(res.Body)
		for {
			ev, err := stream.Next()
			if err != nil {
				return
			}
			events <- ev.Type
		}
	}()
	var got []string
	for range 3 {
		got = append(got, <-events)
	}
	if d := cmp.Diff([]string{"message_start", "ping", "content_block_start"}, got); d != "" {
		t.Errorf("events before the stall (-want +got):\n%s", d)
	}
	select {
	case ev, ok := <-events:
		t.Errorf("after the stall: event %q (open %v), want none", ev, ok)
	case <-time.After(100 * time.Millisecond):
	}
}

// Close ends a reply that waits, whether before its answer or in the
// middle of its stream, instead of waiting for it.
func TestCloseEndsWaits(t *testing.T) {
	srv := NewServer(Transcript{Replies: []Reply{{DelayMS: 3600_000}, {Text: "x", Hang: true}}})
	done := make(chan struct{})
	for range 2 {
		go func() {
			res, err := http.Post(srv.URL+"/v1/messages", "application/json",
				strings.NewReader(`{"model":"m","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"hi"}]}`))
			if err == nil {
				io.Copy(io.Discard, res.Body)
				res.Body.Close()
			}
			done <- struct{}{}
		}()
	}
	for srv.Pending() > 0 {
		runtime.Gosched()
	}
	srv.Close()
	<-done
	<-done
}

// A reply with match goes only to a request that holds it, whatever the
// order the requests come in; one without goes to any.
func TestMatch(t *testing.T) {
	srv := NewServer(Transcript{Replies: []Reply{
		{Match: "parent", Raw: "data: p1\n\n"},
		{Match: "child", Raw: "data: c1\n\n"},
		{Raw: "data: any\n\n"},
		{Match: "parent", Raw: "data: p2\n\n"},
	}})
	defer srv.Close()
	for _, tc := range []struct{ says, want string }{{"child", "data: c1\n\n"}, {"parent", "data: p1\n\n"}, {"parent", "data: any\n\n"}, {"parent", "data: p2\n\n"}} {
		status, body := post(t, srv.URL+"/v1/chat/completions", `{"model":"m","stream":true,"messages":[{"role":"user","content":"`+tc.says+`"}]}`)
		if status != 200 || body != tc.want {
			t.Errorf("%s: got %d %q, want %q", tc.says, status, body, tc.want)
		}
	}
	if status, _ := post(t, srv.URL+"/v1/chat/completions", `{"model":"m","stream":true,"messages":[{"role":"user","content":"child"}]}`); status != 400 || srv.Pending() != 0 {
		t.Errorf("after the last reply: %d, %d pending", status, srv.Pending())
	}
}
