package providertest

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/provider/sse"
)

// Connect returns a provider that sends its requests to the server at
// rootURL (a Server's URL, or an address where nothing listens), with c's
// settings other than BaseURL.
type Connect func(t *testing.T, rootURL string, c provider.Config) provider.Provider

// TestProvider checks that a provider keeps provider.Provider's contract
// against a Server: text and tool calls stream as events and add up to the
// response; tool calls keep their ids and arguments; passing failures are
// retried, as Retry-After asks, and others are not; every failure is an
// *provider.Error of the right kind, or the context's error.
func TestProvider(t *testing.T, connect Connect) {
	// Retries in tests wait a millisecond, unless a test says otherwise.
	fast := provider.Retry{Attempts: 3, Backoff: time.Millisecond}
	call := func(id, name, args string) provider.ToolCall {
		return provider.ToolCall{ID: id, Name: name, Arguments: json.RawMessage(args)}
	}
	hello := []provider.Message{provider.UserText("hello")}

	// stream plays replies to the provider and returns what it reported.
	stream := func(t *testing.T, retry provider.Retry, msgs []provider.Message, replies ...Reply) (*Server, []provider.Event, *provider.Response, error) {
		t.Helper()
		srv := NewServer(Transcript{Replies: replies})
		t.Cleanup(srv.Close)
		p := connect(t, srv.URL, provider.Config{Retry: retry})
		var events []provider.Event
		res, err := p.Stream(context.Background(), provider.Request{Model: "test-model", Messages: msgs}, func(ev provider.Event) {
			events = append(events, ev)
		})
		return srv, events, res, err
	}

	t.Run("text", func(t *testing.T) {
		_, events, res, err := stream(t, fast, hello, Reply{Text: "Hello there, world", Usage: &Usage{InputTokens: 12, OutputTokens: 7}})
		if err != nil {
			t.Fatal(err)
		}
		want := []provider.Event{
			{Kind: provider.TextDelta, Text: "Hello "},
			{Kind: provider.TextDelta, Text: "there, "},
			{Kind: provider.TextDelta, Text: "world"},
		}
		diff(t, "events", want, events)
		diff(t, "response", &provider.Response{
			Message:    provider.Message{Role: provider.Assistant, Parts: []provider.Part{provider.Text("Hello there, world")}},
			StopReason: provider.EndTurn,
			Usage:      provider.Usage{InputTokens: 12, OutputTokens: 7},
		}, res)
	})

	t.Run("one tool call", func(t *testing.T) {
		args := `{"command":"echo hi"}`
		_, events, res, err := stream(t, fast, hello, Reply{ToolCalls: []Call{{ID: "tc_1", Name: "bash", Arguments: json.RawMessage(args)}}})
		if err != nil {
			t.Fatal(err)
		}
		diff(t, "events", []provider.Event{{Kind: provider.ToolCallReady, ToolCall: call("tc_1", "bash", args)}}, events)
		diff(t, "parts", []provider.Part{call("tc_1", "bash", args)}, res.Message.Parts)
		if res.StopReason != provider.ToolUse {
			t.Errorf("stop reason %q, want %q", res.StopReason, provider.ToolUse)
		}
	})

	t.Run("three tool calls in one response", func(t *testing.T) {
		calls := []provider.ToolCall{
			call("call_01", "file_read", `{"file_path":"notes/été.txt","limit":10}`),
			call("call_02", "grep", `{"pattern":"TODO|FIXME","path":"src","glob":"*.go"}`),
			call("call_03", "glob", `{}`),
		}
		var reply Reply
		reply.Text = "Reading three things."
		for _, c := range calls {
			reply.ToolCalls = append(reply.ToolCalls, Call{Name: c.Name, Arguments: c.Arguments})
		}
		_, events, res, err := stream(t, fast, hello, reply)
		if err != nil {
			t.Fatal(err)
		}
		var ready []provider.ToolCall
		var text strings.Builder
		for _, ev := range events {
			switch ev.Kind {
			case provider.ToolCallReady:
				ready = append(ready, ev.ToolCall)
			case provider.TextDelta:
				if len(ready) > 0 {
					t.Errorf("text %q after a tool call", ev.Text)
				}
				text.WriteString(ev.Text)
			}
		}
		diff(t, "calls reported", calls, ready)
		diff(t, "calls in the response", calls, res.Message.ToolCalls())
		if got := res.Message.Text(); got != reply.Text || text.String() != reply.Text {
			t.Errorf("text %q, streamed as %q, want %q", got, text.String(), reply.Text)
		}
	})

	t.Run("max tokens", func(t *testing.T) {
		_, _, res, err := stream(t, fast, hello, Reply{Text: "It was the best of", Stop: "max_tokens"})
		if err != nil {
			t.Fatal(err)
		}
		if res.StopReason != provider.MaxTokens {
			t.Errorf("stop reason %q, want %q", res.StopReason, provider.MaxTokens)
		}
	})

	t.Run("tool results go back under their ids", func(t *testing.T) {
		srv := NewServer(Transcript{Replies: []Reply{
			{ToolCalls: []Call{{Name: "bash", Arguments: json.RawMessage(`{"command":"ls"}`)}, {Name: "glob", Arguments: json.RawMessage(`{"pattern":"*"}`)}}},
			{Text: "Two files."},
		}})
		t.Cleanup(srv.Close)
		p := connect(t, srv.URL, provider.Config{Retry: fast})
		ctx := context.Background()
		msgs := hello
		first, err := p.Stream(ctx, provider.Request{Model: "m", Messages: msgs}, nil)
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, first.Message, provider.Message{Role: provider.User, Parts: []provider.Part{
			provider.ToolResult{CallID: first.Message.ToolCalls()[0].ID, Content: `{"tool_success":true,"result":{"output":"a b","exit_code":0}}`},
			provider.ToolResult{CallID: first.Message.ToolCalls()[1].ID, Content: `{"tool_success":false,"error":"Tool 'glob' crashed","error_code":"TOOL_CRASHED"}`, IsError: true},
		}})
		second, err := p.Stream(ctx, provider.Request{Model: "m", Messages: msgs}, nil)
		if err != nil {
			t.Fatal(err) // the server rejects results that do not match their calls
		}
		if second.Message.Text() != "Two files." {
			t.Errorf("second answer %q", second.Message.Text())
		}

		// A result under the wrong id is refused, as the real API does.
		msgs[2].Parts[0] = provider.ToolResult{CallID: "nonesuch", Content: "{}"}
		_, err = p.Stream(ctx, provider.Request{Model: "m", Messages: msgs}, nil)
		e := kind(t, err, provider.BadRequest)
		if e.Status != 400 || !strings.Contains(e.Message, "nonesuch") {
			t.Errorf("got %v, want a 400 naming the id", err)
		}
	})

	t.Run("server error, then success", func(t *testing.T) {
		srv, events, res, err := stream(t, fast, hello, Reply{Status: 500, Error: "internal trouble"}, Reply{Text: "ok"})
		if err != nil {
			t.Fatal(err)
		}
		if len(events) != 2 || events[0].Kind != provider.Retrying || events[0].Err.Kind != provider.Server ||
			events[0].Err.Status != 500 || events[1].Text != "ok" {
			t.Errorf("events %+v, want a retry after a 500 and then the text", events)
		}
		if res.Message.Text() != "ok" || len(srv.Requests()) != 2 {
			t.Errorf("answer %q after %d requests, want ok after 2", res.Message.Text(), len(srv.Requests()))
		}
	})

	t.Run("rate limit waits as retry-after asks", func(t *testing.T) {
		srv := NewServer(Transcript{Replies: []Reply{
			{Status: 429, Error: "slow down", Headers: map[string]string{"Retry-After-Ms": "20"}},
			{Text: "ok"},
		}})
		t.Cleanup(srv.Close)
		// Backing off by itself, the provider would wait an hour.
		p := connect(t, srv.URL, provider.Config{Retry: provider.Retry{Attempts: 3, Backoff: time.Hour, MaxWait: 2 * time.Hour}})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		res, err := p.Stream(ctx, provider.Request{Model: "m", Messages: hello}, func(ev provider.Event) {
			if ev.Kind == provider.Retrying && (ev.Err.Kind != provider.RateLimit || ev.Wait != 20*time.Millisecond) {
				t.Errorf("retrying after %v for %v, want 20ms for the rate limit", ev.Wait, ev.Err)
				cancel()
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if res.Message.Text() != "ok" {
			t.Errorf("answer %q", res.Message.Text())
		}
	})

	t.Run("rate limit longer than the longest wait", func(t *testing.T) {
		srv, _, _, err := stream(t, fast, hello, Reply{Status: 429, Headers: map[string]string{"Retry-After": "3600"}}, Reply{Text: "ok"})
		e := kind(t, err, provider.RateLimit)
		if e.RetryAfter != time.Hour || e.Attempts != 1 || len(srv.Requests()) != 1 || !strings.HasSuffix(e.Message, "asks to wait 1h0m0s before trying again") {
			t.Errorf("%q: retry after %v, %d attempts, %d requests; want 1h, 1, 1", e.Message, e.RetryAfter, e.Attempts, len(srv.Requests()))
		}
	})

	t.Run("gives up after the last attempt", func(t *testing.T) {
		srv, _, _, err := stream(t, fast, hello, Reply{Status: 503}, Reply{Status: 502}, Reply{Status: 500, Error: "still broken"}, Reply{Text: "too late"})
		e := kind(t, err, provider.Server)
		if e.Attempts != 3 || len(srv.Requests()) != 3 || !strings.Contains(e.Error(), "still broken (gave up after 3 attempts)") {
			t.Errorf("%q after %d requests, want the third failure after 3", e, len(srv.Requests()))
		}
	})

	t.Run("unauthorised", func(t *testing.T) {
		srv, _, _, err := stream(t, fast, hello, Reply{Status: 401, Error: "invalid x-api-key"}, Reply{Text: "never"})
		e := kind(t, err, provider.Auth)
		msg := e.Error()
		if e.Status != 401 || len(e.Steps) == 0 || !strings.Contains(msg, "invalid x-api-key") || !strings.Contains(msg, "To fix it:") {
			t.Errorf("got %q, want the API's message and the steps to fix it", msg)
		}
		if n := len(srv.Requests()); n != 1 {
			t.Errorf("%d requests, want 1: a refused key is not retried", n)
		}
	})

	t.Run("bad request", func(t *testing.T) {
		_, _, _, err := stream(t, fast, hello, Reply{Status: 400, Error: "max_tokens: 99999999 is too many"})
		e := kind(t, err, provider.BadRequest)
		if !strings.Contains(e.Message, "max_tokens: 99999999 is too many") {
			t.Errorf("got %q, want the API's message", e.Message)
		}
	})

	t.Run("an error page that is not JSON", func(t *testing.T) {
		page := "<html>\n<head><title>502 Bad Gateway</title></head>\n<body>nginx</body>\n</html>\n"
		_, _, _, err := stream(t, provider.Retry{Attempts: 1}, hello,
			Reply{Status: 502, Raw: page, Headers: map[string]string{"Content-Type": "text/html"}})
		e := kind(t, err, provider.Server)
		if e.Status != 502 || e.Message != "server error (HTTP 502): 502 Bad Gateway" {
			t.Errorf("got %q, want the page's title", e.Message)
		}
	})

	t.Run("a success that is not an event stream", func(t *testing.T) {
		for body, want := range map[string]string{
			`{"id":"x","choices":[{"index":0,"message":{"content":"hi"}}]}`: "malformed response: the answer is application/json, not an event stream",
			`{"error":{"message":"the gateway has no route"}}`:              "malformed response: the answer is application/json, not an event stream: the gateway has no route",
		} {
			_, _, _, err := stream(t, fast, hello, Reply{Raw: body, Headers: map[string]string{"Content-Type": "application/json"}})
			if e := kind(t, err, provider.BadResponse); e.Message != want {
				t.Errorf("got %q, want %q", e.Message, want)
			}
		}
	})

	t.Run("a line longer than the limit", func(t *testing.T) {
		_, _, _, err := stream(t, fast, hello, Reply{Raw: "data: " + strings.Repeat("x", sse.MaxLine) + "\n\n"})
		if e := kind(t, err, provider.BadResponse); !strings.Contains(e.Message, "longer than 16 MiB") {
			t.Errorf("got %q, want the limit named", e.Message)
		}
	})

	t.Run("stream error before any content is retried", func(t *testing.T) {
		_, events, res, err := stream(t, fast, hello, Reply{StreamError: "overloaded_error"}, Reply{Text: "ok"})
		if err != nil {
			t.Fatal(err)
		}
		if events[0].Kind != provider.Retrying || events[0].Err.Kind != provider.Overloaded || res.Message.Text() != "ok" {
			t.Errorf("events %+v, answer %q; want an overloaded retry, then ok", events, res.Message.Text())
		}
	})

	t.Run("stream error after content is not retried", func(t *testing.T) {
		srv, events, _, err := stream(t, fast, hello, Reply{Text: "Half an", StreamError: "overloaded_error"}, Reply{Text: "ok"})
		kind(t, err, provider.Overloaded)
		if len(events) != 2 || events[0].Text != "Half " || len(srv.Requests()) != 1 {
			t.Errorf("events %+v after %d requests, want the text shown once", events, len(srv.Requests()))
		}
	})

	// A stream that goes silent is a passing failure: retried as long as
	// nothing of the answer has been shown.
	idle := provider.Config{Retry: fast, IdleTimeout: 250 * time.Millisecond}
	req := provider.Request{Model: "m", Messages: hello}
	t.Run("a stall before the response begins is retried", func(t *testing.T) {
		p := Play(t, connect, idle, req, Reply{StallBeforeHeaders: true}, Reply{Text: "ok"})
		if p.Err != nil {
			t.Fatal(p.Err)
		}
		if len(p.Events) != 2 || p.Events[0].Kind != provider.Retrying || p.Events[0].Err.Kind != provider.Network ||
			p.Events[0].Err.Message != "stream stalled for 0.25s before the response began" || p.Response.Message.Text() != "ok" {
			t.Errorf("events %+v, answer %q; want a retry for the stall, then ok", p.Events, p.Response.Message.Text())
		}
	})

	t.Run("a stall before any text is retried", func(t *testing.T) {
		p := Play(t, connect, idle, req, Reply{Text: "Hello", StallAfterEvents: 1}, Reply{Text: "ok"})
		if p.Err != nil {
			t.Fatal(p.Err)
		}
		if len(p.Events) != 2 || p.Events[0].Kind != provider.Retrying || p.Events[0].Err.Kind != provider.Network ||
			p.Events[0].Err.Message != "stream stalled for 0.25s" || p.Response.Message.Text() != "ok" {
			t.Errorf("events %+v, answer %q; want a retry for the stall, then ok", p.Events, p.Response.Message.Text())
		}
	})

	t.Run("a stall after text is final", func(t *testing.T) {
		p := Play(t, connect, idle, req, Reply{Text: "a b c d e f g h", StallAfterEvents: 6}, Reply{Text: "never"})
		e := kind(t, p.Err, provider.Network)
		if e.Message != "stream stalled for 0.25s" || len(p.Requests) != 1 || len(p.Events) == 0 || p.Events[0].Kind != provider.TextDelta {
			t.Errorf("%q after %d requests and events %+v; want the stall, after the text, unretried", e.Message, len(p.Requests), p.Events)
		}
	})

	t.Run("every attempt stalls", func(t *testing.T) {
		p := Play(t, connect, idle, req, Reply{Text: "Hi", StallAfterEvents: 1}, Reply{StallBeforeHeaders: true}, Reply{Text: "Hi", StallAfterEvents: 1}, Reply{Text: "never"})
		e := kind(t, p.Err, provider.Network)
		if e.Attempts != 3 || len(p.Requests) != 3 || !strings.HasSuffix(e.Error(), "stream stalled for 0.25s (gave up after 3 attempts)") {
			t.Errorf("%q after %d requests, want the third stall after 3", e, len(p.Requests))
		}
		// The request was ended by the timeout, not by whoever asked.
		if errors.Is(e, context.Canceled) || errors.Is(e, context.DeadlineExceeded) {
			t.Errorf("%v reads as a cancellation", e)
		}
	})

	// An answer is capped: its text and its tool calls' names, ids and
	// arguments. Past the cap the stream is stopped, not retried.
	capped := provider.Config{Retry: fast, MaxResponseBytes: 100}
	t.Run("an answer up to the cap", func(t *testing.T) {
		text := strings.Repeat("abcd ", 20)[:99] + "."
		p := Play(t, connect, capped, req, Reply{Text: text})
		if p.Err != nil || p.Response.Message.Text() != text {
			t.Errorf("got %v, want the whole answer", p.Err)
		}
	})

	t.Run("text past the cap", func(t *testing.T) {
		p := Play(t, connect, capped, req, Reply{Text: strings.Repeat("abcd ", 60)}, Reply{Text: "never"})
		e := kind(t, p.Err, provider.BadResponse)
		var shown int
		for _, ev := range p.Events {
			shown += len(ev.Text)
		}
		if e.Message != "response too large: more than 100 bytes of text and tool calls (max_response_bytes)" || shown > 100 || len(p.Requests) != 1 {
			t.Errorf("%q after %d requests, %d bytes shown; want the cap named, at most 100 bytes shown, 1 request", e.Message, len(p.Requests), shown)
		}
	})

	t.Run("tool call arguments past the cap", func(t *testing.T) {
		args := json.RawMessage(`{"content":"` + strings.Repeat("x", 200) + `"}`)
		p := Play(t, connect, capped, req, Reply{ToolCalls: []Call{{Name: "file_write", Arguments: args}}}, Reply{Text: "never"})
		e := kind(t, p.Err, provider.BadResponse)
		if !strings.HasPrefix(e.Message, "response too large") || len(p.Events) != 0 {
			t.Errorf("%q with events %+v; want the cap, and no call reported", e.Message, p.Events)
		}
	})

	t.Run("unreachable", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close() // nothing listens there now
		p := connect(t, "http://"+addr, provider.Config{Retry: provider.Retry{Attempts: 2, Backoff: time.Millisecond}})
		var retries int
		_, err = p.Stream(context.Background(), provider.Request{Model: "m", Messages: hello}, func(ev provider.Event) {
			if ev.Kind == provider.Retrying {
				retries++
			}
		})
		e := kind(t, err, provider.Network)
		if !strings.Contains(e.Error(), addr) || !strings.Contains(e.Error(), "is the server running?") || retries != 1 {
			t.Errorf("got %q after %d retries, want the address named, after 1 retry", e, retries)
		}
	})

	t.Run("cancelled mid-stream", func(t *testing.T) {
		srv := NewServer(Transcript{Replies: []Reply{{Text: "This goes on", Hang: true}}})
		t.Cleanup(srv.Close)
		p := connect(t, srv.URL, provider.Config{Retry: fast})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		_, err := p.Stream(ctx, provider.Request{Model: "m", Messages: hello}, func(ev provider.Event) {
			if ev.Kind == provider.TextDelta {
				cancel()
			}
		})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("got %v, want context.Canceled", err)
		}
	})

	t.Run("cancelled while waiting to retry", func(t *testing.T) {
		srv := NewServer(Transcript{Replies: []Reply{{Status: 500}, {Text: "never"}}})
		t.Cleanup(srv.Close)
		p := connect(t, srv.URL, provider.Config{Retry: provider.Retry{Attempts: 3, Backoff: time.Hour, MaxWait: time.Hour}})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		_, err := p.Stream(ctx, provider.Request{Model: "m", Messages: hello}, func(ev provider.Event) {
			if ev.Kind == provider.Retrying {
				cancel()
			}
		})
		if !errors.Is(err, context.Canceled) || len(srv.Requests()) != 1 {
			t.Errorf("got %v after %d requests, want context.Canceled after 1", err, len(srv.Requests()))
		}
	})
}

// kind checks that err is a *provider.Error of kind k, and returns it.
func kind(t *testing.T, err error, k provider.Kind) *provider.Error {
	t.Helper()
	var e *provider.Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v (%T), want a provider error of kind %v", err, err, k)
	}
	if e.Kind != k {
		t.Fatalf("got kind %v (%v), want %v", e.Kind, err, k)
	}
	return e
}

func diff(t *testing.T, what string, want, got any) {
	t.Helper()
	// A call's signature is the API's own business.
	if d := cmp.Diff(want, got, cmpopts.IgnoreFields(provider.ToolCall{}, "Signature")); d != "" {
		t.Errorf("%s (-want +got):\n%s", what, d)
	}
}
