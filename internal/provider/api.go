package provider

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ikigai-tools/ikigai/internal/buildinfo"
	"github.com/ikigai-tools/ikigai/internal/lazyregexp"
)

// UserAgent names ikigai and its version in every request to a model API.
var UserAgent = "ikigai/" + buildinfo.Version

// An API describes one model API for the implementations in the
// subpackages, so that their failures read alike: which API it is, where,
// and how a user gets a key for it.
type API struct {
	Name    string // "anthropic", "openai", "openai-compatible"
	BaseURL string
	KeyEnv  string // the environment variable that holds the key
	KeyURL  string // where keys are made; empty for a self-hosted server
	// NotFound is what to suggest when the API answers 404 at a base URL
	// the user set, which is most often the wrong URL or the wrong API.
	NotFound []string
	// Refine, when set, corrects the error an HTTP failure became, from
	// the body the API sent: an API whose bodies say more than the status
	// (Gemini's refused key is a 400).
	Refine func(e *Error, body []byte)
}

// MissingKey is the error for a request that cannot be sent without a key.
func (a API) MissingKey() *Error {
	return &Error{
		Provider: a.Name,
		Kind:     Auth,
		Message:  "no API key: " + a.KeyEnv + " is not set",
		URL:      a.BaseURL,
		Steps:    a.keySteps(false),
	}
}

func (a API) keySteps(refused bool) []string {
	var steps []string
	if refused {
		steps = append(steps, "Check "+a.KeyEnv+": the key it holds was refused (mistyped, revoked, or without access to this model)")
	}
	if a.KeyURL != "" {
		steps = append(steps, "Create a key at "+a.KeyURL)
	} else {
		steps = append(steps, "Get a key for the server at "+a.BaseURL)
	}
	return append(steps,
		"export "+a.KeyEnv+"=<your key> (in your shell profile, to keep it)",
		"Or use another provider: --provider anthropic, openai, openai-compatible or google (see docs/providers.md)")
}

// Send sends req with do (an http.Client's Do) and returns the response
// when its status is a success. Every HTTP error status becomes an *Error,
// and every transport failure a Network *Error, so that both providers
// classify failures alike.
func (a API) Send(req *http.Request, do func(*http.Request) (*http.Response, error)) (*http.Response, error) {
	res, err := do(req)
	if err != nil {
		if req.Context().Err() != nil {
			return nil, err
		}
		return nil, a.unreachable(req.URL, err)
	}
	if res.StatusCode < 300 {
		return res, nil
	}
	body, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	res.Body.Close()
	return nil, a.statusError(req.URL, res, body)
}

// Events sends req as Send does and returns the body of the response, which
// must be an event stream. A response of another media type (a whole JSON
// document, a proxy's HTML page) is a BadResponse that quotes it; one that
// names no media type is read as a stream.
func (a API) Events(req *http.Request, do func(*http.Request) (*http.Response, error)) (io.ReadCloser, error) {
	req.Header.Set("Accept", "text/event-stream")
	res, err := a.Send(req, do)
	if err != nil {
		return nil, err
	}
	ct := res.Header.Get("Content-Type")
	if mt, _, _ := mime.ParseMediaType(ct); ct == "" || mt == "text/event-stream" {
		return res.Body, nil
	}
	body, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	res.Body.Close()
	what := "the answer is " + ct + ", not an event stream"
	if _, msg := apiMessage(body); msg != "" {
		what += ": " + msg
	}
	return nil, a.Malformed(what)
}

func (a API) unreachable(u *url.URL, err error) *Error {
	msg := fmt.Sprintf("cannot reach %s (%s): %v", u.Host, u, cause(err))
	if isLoopback(u.Hostname()) {
		msg += "; is the server running?"
	}
	return &Error{Provider: a.Name, Kind: Network, Message: msg, URL: u.String(), Err: err}
}

// cause strips the *url.Error wrapper, which would repeat the URL.
func cause(err error) error {
	var uerr *url.Error
	if errors.As(err, &uerr) {
		return uerr.Err
	}
	return err
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (a API) statusError(u *url.URL, res *http.Response, body []byte) *Error {
	typ, msg := apiMessage(body)
	if msg == "" {
		msg = http.StatusText(res.StatusCode)
	}
	e := &Error{
		Provider:   a.Name,
		Status:     res.StatusCode,
		Type:       typ,
		URL:        u.String(),
		RetryAfter: retryAfter(res.Header),
	}
	var what, where string
	switch s := res.StatusCode; {
	case s == 401 || s == 403:
		e.Kind, what, e.Steps = Auth, "authentication failed", a.keySteps(true)
	case s == 429:
		e.Kind, what = RateLimit, "rate limited"
	case s == 503 || s == 529 || typ == "overloaded_error":
		e.Kind, what = Overloaded, "overloaded"
	case s == 408 || s >= 500:
		e.Kind, what = Server, "server error"
	case s == 404:
		// A wrong base URL or an unknown model: the URL tells which.
		e.Kind, what, where, e.Steps = BadRequest, "not found", " at "+u.String(), a.NotFound
	case s >= 400:
		e.Kind, what = BadRequest, "request rejected"
	default:
		e.Kind, what = BadResponse, "unexpected response"
	}
	e.Message = fmt.Sprintf("%s (HTTP %d)%s: %s", what, res.StatusCode, where, msg)
	if a.Refine != nil {
		a.Refine(e, body)
	}
	return e
}

// KeyRefused makes e an authentication failure, with the steps to fix it:
// for an API that says so other than by a 401 or 403.
func (a API) KeyRefused(e *Error) {
	e.Kind, e.Steps = Auth, a.keySteps(true)
	if _, rest, ok := strings.Cut(e.Message, ": "); ok {
		e.Message = fmt.Sprintf("authentication failed (HTTP %d): %s", e.Status, rest)
	}
}

// StreamError is the error for an error event in the middle of a response
// stream: body is the event's data, {"error": {"type", "message"}}. It has
// no HTTP status, so the error type decides its kind.
func (a API) StreamError(body []byte) *Error {
	typ, msg := apiMessage(body)
	e := &Error{Provider: a.Name, Type: typ, URL: a.BaseURL}
	switch typ {
	case "authentication_error", "permission_error":
		e.Kind, e.Steps = Auth, a.keySteps(true)
	case "rate_limit_error", "rate_limit_exceeded":
		e.Kind = RateLimit
	case "overloaded_error":
		e.Kind = Overloaded
	case "invalid_request_error":
		e.Kind = BadRequest
	default:
		e.Kind = Server
	}
	e.Message = "the response stream failed: " + cmp.Or(typ, "error") + ": " + cmp.Or(msg, "no message")
	return e
}

// Failure returns what a failed stream should report: the context's error
// when ctx has ended, an *Error as it is, a broken connection as a Network
// error, and anything else (a malformed event, a line too long) as a
// BadResponse.
func (a API) Failure(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var nerr net.Error
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &nerr) {
		return &Error{Provider: a.Name, Kind: Network, URL: a.BaseURL, Err: err,
			Message: fmt.Sprintf("connection to %s broke mid-answer: %v", a.BaseURL, err)}
	}
	return a.Malformed(err.Error())
}

// Malformed is the error for an answer that breaks the API's wire format.
func (a API) Malformed(what string) *Error {
	return &Error{Provider: a.Name, Kind: BadResponse, URL: a.BaseURL,
		Message: "malformed response: " + what}
}

// apiMessage digs the error type and message out of an error body in any
// of the shapes APIs use: {"error": {"type", "code", "message"}},
// {"error": "..."}, {"message": "..."}, an HTML page (its title), or plain
// text.
func apiMessage(body []byte) (typ, msg string) {
	var doc struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &doc) != nil {
		if title, ok := pageTitle(string(body)); ok {
			return "", oneLine(title)
		}
		return "", oneLine(string(body))
	}
	var detail struct {
		Type    string `json:"type"`
		Code    any    `json:"code"`
		Message string `json:"message"`
	}
	if json.Unmarshal(doc.Error, &detail) == nil {
		typ = detail.Type
		if code, ok := detail.Code.(string); ok && code != "" {
			typ = code
		}
		return typ, oneLine(detail.Message)
	}
	var s string
	if json.Unmarshal(doc.Error, &s) == nil {
		return "", oneLine(s)
	}
	return "", oneLine(doc.Message)
}

var (
	htmlStart = lazyregexp.New(`(?i)^\s*<(!doctype\s+html|html|head|title|body)\b`)
	htmlTitle = lazyregexp.New(`(?is)<title\b[^>]*>(.*?)</title>`)
	htmlCode  = lazyregexp.New(`(?is)<script\b.*?</script>|<style\b.*?</style>`)
	htmlTag   = lazyregexp.New(`(?s)<[^>]*>`)
)

// pageTitle reduces an HTML page (a proxy's or a web server's error page)
// to what it says in a few words: its title, else its first line of text.
// It reports false for a body that is not HTML.
func pageTitle(body string) (string, bool) {
	if !htmlStart().MatchString(body) {
		return "", false
	}
	if m := htmlTitle().FindStringSubmatch(body); m != nil && strings.TrimSpace(m[1]) != "" {
		return html.UnescapeString(m[1]), true
	}
	text := htmlTag().ReplaceAllString(htmlCode().ReplaceAllString(body, ""), "\n")
	for line := range strings.Lines(text) {
		if line = strings.TrimSpace(html.UnescapeString(line)); line != "" {
			return line, true
		}
	}
	return "", true
}

// oneLine makes s fit in a one-line message: valid UTF-8, spaces for
// line breaks, at most 500 bytes.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
	if len(s) > 500 {
		cut := 500
		for !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// retryAfter reads how long the API asks to wait: retry-after-ms (OpenAI),
// then retry-after in seconds or as an HTTP date.
func retryAfter(h http.Header) time.Duration {
	// A day stands for any longer wait, and keeps the product in range.
	const day = 24 * 60 * 60
	if ms, err := strconv.ParseFloat(h.Get("Retry-After-Ms"), 64); err == nil && ms > 0 {
		return time.Duration(min(ms, day*1000) * float64(time.Millisecond))
	}
	v := h.Get("Retry-After")
	if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 {
		return time.Duration(min(s, day) * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}
