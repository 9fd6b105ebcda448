package provider

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/ikigai-tools/ikigai/internal/provider/sse"
)

// Config is what an implementation needs to reach its API: both
// anthropic.Config and openai.Config are this type.
type Config struct {
	APIKey     string
	BaseURL    string       // the API's own when empty
	HTTPClient *http.Client // http.DefaultClient when nil
	Retry      Retry
	// IdleTimeout is how long a request may go without receiving a byte,
	// waiting for the response to begin or within its stream, before it
	// counts as stalled; DefaultIdleTimeout when 0.
	IdleTimeout time.Duration
	// MaxResponseBytes caps one answer: the bytes of its text and of its
	// tool calls' names, ids and arguments; DefaultMaxResponseBytes when 0.
	MaxResponseBytes int
}

// A Client is what the implementations share: the API at its base URL,
// the headers every request carries, and the sending of a request whose
// answer is an event stream, retried as Config.Retry says.
type Client struct {
	API    API
	Header http.Header // sent with every request; the implementation adds its own
	http   *http.Client
	retry  Retry
	idle   time.Duration
	max    int
}

// DefaultMaxResponseBytes caps an answer by default: a thousand times a
// long answer, and far from what would strain memory or a session file.
const DefaultMaxResponseBytes = 4 << 20

// DefaultIdleTimeout is how long an answer may stay silent by default:
// long enough for a model that thinks before it writes (the APIs send
// pings and comments meanwhile), short enough that a dead connection does
// not hang a session.
const DefaultIdleTimeout = 90 * time.Second

// NewClient returns a Client for api at c.BaseURL, or at ownURL, the API's
// own, when that is empty. The API's own URL needs a key; any other (a
// proxy, a test server) does without.
func NewClient(api API, ownURL string, c Config) (*Client, error) {
	base := strings.TrimSuffix(cmp.Or(c.BaseURL, ownURL), "/")
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s: base URL %q is not an http or https URL", api.Name, base)
	}
	api.BaseURL = base
	if c.APIKey == "" && base == ownURL {
		return nil, api.MissingKey()
	}
	return &Client{
		API:    api,
		Header: http.Header{"User-Agent": {UserAgent}},
		http:   cmp.Or(c.HTTPClient, http.DefaultClient),
		retry:  c.Retry,
		idle:   cmp.Or(c.IdleTimeout, DefaultIdleTimeout),
		max:    cmp.Or(c.MaxResponseBytes, DefaultMaxResponseBytes),
	}, nil
}

// NewRequest returns a request to the endpoint at path under the base URL,
// with the Client's headers, and a JSON body when body is not nil.
func (c *Client) NewRequest(ctx context.Context, method, path string, body []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.API.BaseURL+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header = c.Header.Clone()
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// GetJSON gets the JSON document at path, under the API's base URL, into
// v: a listing endpoint's answer. what names the document in errors.
func (c *Client) GetJSON(ctx context.Context, path, what string, v any) error {
	req, err := c.NewRequest(ctx, http.MethodGet, path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	res, err := c.Send(req)
	if err != nil {
		return err
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, 16<<20))
	res.Body.Close()
	if err != nil {
		return c.API.Failure(ctx, err)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return c.API.Malformed(what + ": " + err.Error())
	}
	return nil
}

// Send sends req and returns the response when its status is a success,
// as API.Send does.
func (c *Client) Send(req *http.Request) (*http.Response, error) {
	return c.API.Send(req, c.http.Do)
}

// Stream posts body to the endpoint at path and reads the answer's event
// stream with read, which reports to on; a failure is retried as the
// Client's Retry says. An attempt that receives nothing for the idle
// timeout, before the response begins or within its stream, ends as a
// stalled Network failure, which is retried like any other.
func (c *Client) Stream(ctx context.Context, path string, body []byte, on func(Event), read func(*Reader) (*Response, error)) (*Response, error) {
	return c.retry.Do(ctx, on, func(on func(Event)) (*Response, error) {
		actx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		timer := time.AfterFunc(c.idle, func() { cancel(errStalled) })
		defer timer.Stop()
		req, err := c.NewRequest(actx, http.MethodPost, path, body)
		if err != nil {
			return nil, err
		}
		stream, err := c.API.Events(req, c.http.Do)
		if err != nil {
			return nil, c.stalled(actx, req, err, " before the response began")
		}
		defer stream.Close()
		r := NewReader(actx, c.API, idleReader{stream, timer, c.idle}, on)
		r.max, r.left = c.max, c.max
		res, err := read(r)
		if err != nil {
			return nil, c.stalled(actx, req, err, "")
		}
		return res, nil
	})
}

// errStalled is the cause of an attempt ended by the idle timeout.
var errStalled = errors.New("no data within the idle timeout")

// stalled returns err, or the stall error when the idle timeout ended the
// attempt that ctx is for.
func (c *Client) stalled(ctx context.Context, req *http.Request, err error, when string) error {
	if !errors.Is(context.Cause(ctx), errStalled) {
		return err
	}
	// Not err, which is the cancellation the timeout made: the caller did
	// not cancel anything.
	return &Error{Provider: c.API.Name, Kind: Network, URL: req.URL.String(), Err: errStalled,
		Message: "stream stalled for " + seconds(c.idle) + when}
}

// seconds writes d in seconds, as the setting takes it: 90s, 0.3s.
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s"
}

// An idleReader restarts the idle timer whenever bytes arrive.
type idleReader struct {
	r     io.Reader
	timer *time.Timer
	idle  time.Duration
}

func (r idleReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if n > 0 {
		r.timer.Reset(r.idle)
	}
	return n, err
}

// A Reader is what an implementation reads one answer from: the events of
// its stream, with every failure already an *Error, the caller to report
// to, and what is left of the answer's cap.
type Reader struct {
	api    API
	ctx    context.Context
	events *sse.Reader
	on     func(Event)
	max    int // the cap
	left   int // bytes the answer may still keep
}

// NewReader returns a Reader of the event stream body, for api, that
// reports to on (which may be nil) and caps the answer at
// DefaultMaxResponseBytes. A failure while ctx is done is the context's
// error.
func NewReader(ctx context.Context, api API, body io.Reader, on func(Event)) *Reader {
	return &Reader{api: api, ctx: ctx, events: sse.NewReader(body), on: on, max: DefaultMaxResponseBytes, left: DefaultMaxResponseBytes}
}

// API returns the API the stream comes from, for its errors.
func (r *Reader) API() API { return r.api }

// Next returns the next event. At the end of the stream it returns io.EOF;
// any other failure is what API.Failure makes of it.
func (r *Reader) Next() (sse.Event, error) {
	ev, err := r.events.Next()
	if err != nil && !errors.Is(err, io.EOF) {
		return sse.Event{}, r.api.Failure(r.ctx, err)
	}
	return ev, err
}

// Emit reports ev to the caller.
func (r *Reader) Emit(ev Event) {
	if r.on != nil {
		r.on(ev)
	}
}

// Text reports text, unless it would take the answer past its cap.
func (r *Reader) Text(text string) error {
	if err := r.Keep(len(text)); err != nil {
		return err
	}
	r.Emit(Event{Kind: TextDelta, Text: text})
	return nil
}

// Keep counts n more bytes kept of the answer (a tool call's name, id or
// arguments) against its cap, and fails past it.
func (r *Reader) Keep(n int) error {
	if n > r.left {
		return &Error{Provider: r.api.Name, Kind: BadResponse, URL: r.api.BaseURL,
			Message: fmt.Sprintf("response too large: more than %s of text and tool calls (max_response_bytes)", size(r.max)),
			Steps:   []string{"If answers this large are expected, raise max_response_bytes"}}
	}
	r.left -= n
	return nil
}

// size writes n bytes in the largest unit that divides it.
func size(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
