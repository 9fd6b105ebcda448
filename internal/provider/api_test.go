package provider

import (
	"context"
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

var testAPI = API{Name: "test", BaseURL: "https://api.example.com", KeyEnv: "TEST_API_KEY", KeyURL: "https://example.com/keys"}

// respond sends a request answered with status, headers and body.
func respond(status int, header http.Header, body string) (*http.Response, error) {
	req, _ := http.NewRequest("POST", "https://api.example.com/v1/messages", nil)
	return testAPI.Send(req, func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: status, Header: header, Body: io.NopCloser(strings.NewReader(body))}, nil
	})
}

func TestStatusErrors(t *testing.T) {
	for _, tc := range []struct {
		status  int
		body    string
		kind    Kind
		typ     string
		message string
	}{
		{401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`, Auth, "authentication_error", "authentication failed (HTTP 401): invalid x-api-key"},
		{403, `{"error":{"message":"no access to this model","type":"invalid_request_error","code":"model_not_allowed"}}`, Auth, "model_not_allowed", "authentication failed (HTTP 403): no access to this model"},
		{429, `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`, RateLimit, "rate_limit_exceeded", "rate limited (HTTP 429): Rate limit reached"},
		{529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, Overloaded, "overloaded_error", "overloaded (HTTP 529): Overloaded"},
		{503, `upstream connect error`, Overloaded, "", "overloaded (HTTP 503): upstream connect error"},
		{500, ``, Server, "", "server error (HTTP 500): Internal Server Error"},
		{408, `{"error":"timed out"}`, Server, "", "server error (HTTP 408): timed out"},
		{404, `{"error":{"message":"model 'llama9' not found","type":"not_found_error"}}`, BadRequest, "not_found_error", "not found (HTTP 404) at https://api.example.com/v1/messages: model 'llama9' not found"},
		{502, "<!DOCTYPE html>\n<html>\n<head><title>502 Bad Gateway</title></head>\n<body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body>\n</html>\n",
			Server, "", "server error (HTTP 502): 502 Bad Gateway"},
		{404, "<HTML><BODY>\n<script>var x = 1;</script>\n<H1>Not &amp; Found</H1>\n<p>No such page</p></BODY></HTML>", BadRequest, "", "not found (HTTP 404) at https://api.example.com/v1/messages: Not & Found"},
		{400, `{"message":"prompt is too long"}`, BadRequest, "", "request rejected (HTTP 400): prompt is too long"},
		{302, ``, BadResponse, "", "unexpected response (HTTP 302): Found"},
		{400, "line one\n\tline\xfftwo", BadRequest, "", "request rejected (HTTP 400): line one line\uFFFDtwo"},
	} {
		_, err := respond(tc.status, http.Header{}, tc.body)
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("%d: got %v, want an *Error", tc.status, err)
		}
		if e.Kind != tc.kind || e.Type != tc.typ || e.Message != tc.message || e.Status != tc.status || e.Provider != "test" {
			t.Errorf("%d %s:\ngot  %v %q %q\nwant %v %q %q", tc.status, tc.body, e.Kind, e.Type, e.Message, tc.kind, tc.typ, tc.message)
		}
		if (e.Kind == Auth) != (len(e.Steps) > 0) {
			t.Errorf("%d: steps %q", tc.status, e.Steps)
		}
	}
}

// A 404 from a base URL the user set carries the API's steps for it.
func TestNotFoundSteps(t *testing.T) {
	api := testAPI
	api.NotFound = []string{"Check the base URL"}
	req, _ := http.NewRequest("POST", "http://127.0.0.1:9/v1/messages", nil)
	for status, want := range map[int][]string{404: {"Check the base URL"}, 400: nil} {
		_, err := api.Send(req, func(*http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("404 page not found"))}, nil
		})
		if e := err.(*Error); !slices.Equal(e.Steps, want) {
			t.Errorf("%d: steps %q, want %q", status, e.Steps, want)
		}
	}
}

func TestSuccessPassesThrough(t *testing.T) {
	res, err := respond(200, http.Header{}, "data: x\n\n")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	if string(body) != "data: x\n\n" {
		t.Errorf("body %q", body)
	}
}

func TestRetryAfter(t *testing.T) {
	date := time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)
	for _, tc := range []struct {
		header http.Header
		min    time.Duration
		max    time.Duration
	}{
		{http.Header{"Retry-After": {"2"}}, 2 * time.Second, 2 * time.Second},
		{http.Header{"Retry-After": {"0.5"}}, 500 * time.Millisecond, 500 * time.Millisecond},
		{http.Header{"Retry-After-Ms": {"150"}, "Retry-After": {"1"}}, 150 * time.Millisecond, 150 * time.Millisecond},
		{http.Header{"Retry-After": {date}}, 59 * time.Minute, time.Hour},
		{http.Header{"Retry-After": {"Mon, 02 Jan 2006 15:04:05 GMT"}}, 0, 0}, // in the past
		{http.Header{"Retry-After": {"99999999999"}}, 24 * time.Hour, 24 * time.Hour},
		{http.Header{"Retry-After": {"-3"}}, 0, 0},
		{http.Header{"Retry-After": {"soon"}}, 0, 0},
		{http.Header{}, 0, 0},
	} {
		if got := retryAfter(tc.header); got < tc.min || got > tc.max {
			t.Errorf("%v: %v, want %v to %v", tc.header, got, tc.min, tc.max)
		}
	}
}

func TestUnreachable(t *testing.T) {
	for url, want := range map[string]string{
		"http://127.0.0.1:9/v1/chat/completions": "cannot reach 127.0.0.1:9 (http://127.0.0.1:9/v1/chat/completions): connection refused; is the server running?",
		"http://localhost:11434/v1/models":       "cannot reach localhost:11434 (http://localhost:11434/v1/models): connection refused; is the server running?",
		"https://api.example.com/v1/messages":    "cannot reach api.example.com (https://api.example.com/v1/messages): connection refused",
		"https://[::1]:8443/v1/chat/completions": "cannot reach [::1]:8443 (https://[::1]:8443/v1/chat/completions): connection refused; is the server running?",
	} {
		req, _ := http.NewRequest("POST", url, nil)
		_, err := testAPI.Send(req, func(*http.Request) (*http.Response, error) {
			return nil, errors.New("connection refused")
		})
		var e *Error
		if !errors.As(err, &e) || e.Kind != Network || e.Message != want || e.URL != url {
			t.Errorf("%s: got %v, want %q", url, err, want)
		}
	}

	// A cancelled request is not a network failure.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", "http://127.0.0.1:9/", nil)
	_, err := testAPI.Send(req, func(*http.Request) (*http.Response, error) { return nil, context.Canceled })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

func TestStreamError(t *testing.T) {
	for body, kind := range map[string]Kind{
		`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`: Overloaded,
		`{"type":"error","error":{"type":"rate_limit_error","message":"slow"}}`:       RateLimit,
		`{"type":"error","error":{"type":"permission_error","message":"no"}}`:         Auth,
		`{"type":"error","error":{"type":"invalid_request_error","message":"bad"}}`:   BadRequest,
		`{"error":{"message":"The server had an error","type":"server_error"}}`:       Server,
		`{"error":"boom"}`: Server,
		`not json`:         Server,
	} {
		if e := testAPI.StreamError([]byte(body)); e.Kind != kind {
			t.Errorf("%s: kind %v, want %v (%v)", body, e.Kind, kind, e)
		}
	}
}

func TestFailure(t *testing.T) {
	ctx := context.Background()
	if err := testAPI.Failure(ctx, io.ErrUnexpectedEOF); !isKind(err, Network) {
		t.Errorf("broken connection: %v", err)
	}
	if err := testAPI.Failure(ctx, errors.New("invalid character 'o'")); !isKind(err, BadResponse) {
		t.Errorf("bad JSON: %v", err)
	}
	own := &Error{Kind: Auth}
	if err := testAPI.Failure(ctx, own); err != own {
		t.Errorf("an *Error: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := testAPI.Failure(cancelled, io.ErrUnexpectedEOF); err != context.Canceled {
		t.Errorf("after cancel: %v", err)
	}
}

func isKind(err error, k Kind) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == k
}

func TestErrorText(t *testing.T) {
	e := testAPI.MissingKey()
	want := `test: no API key: TEST_API_KEY is not set
To fix it:
  1. Create a key at https://example.com/keys
  2. export TEST_API_KEY=<your key> (in your shell profile, to keep it)
  3. Or use another provider: --provider anthropic, openai, openai-compatible or google (see docs/providers.md)`
	if e.Error() != want {
		t.Errorf("got\n%s\nwant\n%s", e, want)
	}
	e = &Error{Provider: "openai", Kind: Server, Message: "server error (HTTP 500): oops", Attempts: 4}
	if got := e.Error(); got != "openai: server error (HTTP 500): oops (gave up after 4 attempts)" {
		t.Errorf("got %q", got)
	}
	if s := Kind(99).String(); s != "Kind(99)" {
		t.Errorf("unknown kind: %q", s)
	}
}

func TestRetryDo(t *testing.T) {
	ctx := context.Background()
	fast := Retry{Attempts: 3, Backoff: time.Millisecond}
	tries := func(errs ...error) (int, []Event, error) {
		n := 0
		var events []Event
		_, err := fast.Do(ctx, func(ev Event) { events = append(events, ev) }, func(on func(Event)) (*Response, error) {
			n++
			if n <= len(errs) {
				return nil, errs[n-1]
			}
			return &Response{}, nil
		})
		return n, events, err
	}
	if n, _, err := tries(errors.New("not a provider error")); n != 1 || err == nil {
		t.Errorf("a foreign error: %d tries, %v", n, err)
	}
	if n, events, err := tries(&Error{Kind: Server}, &Error{Kind: Network}); n != 3 || err != nil || len(events) != 2 {
		t.Errorf("two passing failures: %d tries, %d events, %v", n, len(events), err)
	}
	// Each wait is its nominal backoff, less up to a quarter.
	if n, events, _ := tries(&Error{Kind: Server}, &Error{Kind: Server}); n != 3 ||
		events[0].Wait < 750*time.Microsecond || events[0].Wait > time.Millisecond ||
		events[1].Wait < 1500*time.Microsecond || events[1].Wait > 2*time.Millisecond {
		t.Errorf("backoff: %v then %v, want about 1ms then 2ms", events[0].Wait, events[1].Wait)
	}
	// A Retrying event says which attempt comes next, of how many, and
	// its error reads as one failure, not as giving up.
	if _, events, _ := tries(&Error{Kind: Server, Message: "server error (HTTP 500): oops"}, &Error{Kind: Server, Message: "server error (HTTP 502): oops"}); len(events) != 2 ||
		events[0].Attempt != 2 || events[0].Attempts != 3 || events[1].Attempt != 3 || events[1].Attempts != 3 ||
		events[0].Err.Error() != "server error (HTTP 500): oops" || events[1].Err.Error() != "server error (HTTP 502): oops" {
		t.Errorf("retry events: %+v", events)
	}
	if n, _, err := tries(&Error{Kind: BadRequest}); n != 1 || !isKind(err, BadRequest) {
		t.Errorf("a bad request: %d tries, %v", n, err)
	}
	if n, _, err := tries(&Error{Kind: Server}, &Error{Kind: Server}, &Error{Kind: Server}); n != 3 || !isKind(err, Server) {
		t.Errorf("three failures: %d tries, %v", n, err)
	} else if err.(*Error).Attempts != 3 {
		t.Errorf("attempts %d", err.(*Error).Attempts)
	}

	// Once part of the answer is out, a failure is final.
	n := 0
	_, err := fast.Do(ctx, nil, func(on func(Event)) (*Response, error) {
		n++
		on(Event{Kind: TextDelta, Text: "Hal"})
		return nil, &Error{Kind: Network}
	})
	if n != 1 || !isKind(err, Network) {
		t.Errorf("after output: %d tries, %v", n, err)
	}
}

func TestOneLine(t *testing.T) {
	long := strings.Repeat("é", 400) // 800 bytes
	got := oneLine(long)
	if !utf8.ValidString(got) || len(got) > 503 || !strings.HasSuffix(got, "…") {
		t.Errorf("cut to %d bytes: %q", len(got), got)
	}
}

func FuzzAPIMessage(f *testing.F) {
	for _, s := range []string{
		`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
		`{"error":{"message":"m","type":"t","code":429}}`,
		`{"error":"plain"}`, `{"message":"x"}`, `[1,2]`, `null`, "\xff\xfe", "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		_, msg := apiMessage(body)
		if !utf8.ValidString(msg) || strings.ContainsAny(msg, "\n\r") || len(msg) > 503 {
			t.Errorf("message %q is not one short line", msg)
		}
	})
}
