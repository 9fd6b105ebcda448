package main

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/andybalholm/brotli"
	"github.com/ikigai-tools/ikigai/toolsdk"
	"github.com/ikigai-tools/ikigai/toolsdk/files"
	"golang.org/x/net/html/charset"
)

const (
	userAgent = "Mozilla/5.0 (compatible; ikigai-web-fetch/1.0; +https://github.com/ikigai-tools/ikigai)"
	// accept asks for Markdown first: a site that has it serves it instead
	// of HTML to convert.
	accept = "text/markdown, text/html;q=0.9, application/xhtml+xml;q=0.9, text/plain;q=0.8, application/json;q=0.8, */*;q=0.5"
	// maxRedirects is how many redirects are followed.
	maxRedirects = 5
	// defaultMaxBytes caps a download, decompressed.
	defaultMaxBytes = 10 << 20
	// maxImageBytes caps an image, which goes to the model whole.
	maxImageBytes = 5 << 20
	// errorSnippet is how much of an error response's text an HTTP_ERROR
	// quotes.
	errorSnippet = 300
)

// kind is how a response's content is returned.
type kind int

const (
	kindText kind = iota
	kindHTML
	kindJSON
	kindImage
)

// fetcher gets pages over HTTP, refusing addresses that refuse names.
type fetcher struct {
	client   *http.Client
	maxBytes int64
	// refuse says why an address may not be connected to, or "" if it may.
	refuse func(netip.Addr) string
}

// newFetcher returns a fetcher configured from the environment's values of
// IKIGAI_WEB_ALLOW_PRIVATE and IKIGAI_WEB_FETCH_MAX_BYTES.
func newFetcher(allowPrivate, maxBytes string) (*fetcher, error) {
	f := &fetcher{maxBytes: defaultMaxBytes, refuse: privateAddress}
	if allow, _ := strconv.ParseBool(allowPrivate); allow {
		f.refuse = func(netip.Addr) string { return "" }
	}
	if maxBytes != "" {
		n, err := strconv.ParseInt(maxBytes, 10, 64)
		if err != nil || n <= 0 {
			return nil, toolsdk.Errorf("INVALID_CONFIG", "Error: %s=%q is not a positive number of bytes", envMaxBytes, maxBytes)
		}
		f.maxBytes = n
	}
	f.client = f.newClient()
	return f, nil
}

func (f *fetcher) newClient() *http.Client {
	dialer := &net.Dialer{
		Timeout: 10 * time.Second,
		// Control sees the address actually being connected to, after name
		// resolution, for the first request and every redirect alike: a
		// name that resolves to a private address is refused however it
		// got there.
		Control: func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return err
			}
			if why := f.refuse(ap.Addr().Unmap()); why != "" {
				return &addressError{addr: ap.Addr().Unmap(), why: why}
			}
			return nil
		},
	}
	return &http.Client{
		Transport: &http.Transport{
			// No proxy: the address check must see where the tool connects.
			Proxy:                  nil,
			DialContext:            dialer.DialContext,
			ForceAttemptHTTP2:      true,
			TLSHandshakeTimeout:    10 * time.Second,
			DisableCompression:     true, // decoded below, under the size cap
			MaxResponseHeaderBytes: 1 << 20,
		},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > maxRedirects {
				return errTooManyRedirects
			}
			return nil
		},
	}
}

var errTooManyRedirects = errors.New("too many redirects")

// addressError is a connection refused because of where it goes.
type addressError struct {
	addr netip.Addr
	why  string
}

func (e *addressError) Error() string { return fmt.Sprintf("%s is %s", e.addr, e.why) }

var (
	sharedAddressSpace = netip.MustParsePrefix("100.64.0.0/10")
	thisNetwork        = netip.MustParsePrefix("0.0.0.0/8")
	broadcast          = netip.MustParseAddr("255.255.255.255")
)

// privateAddress says why a is not on the public internet, or "" if it is.
func privateAddress(a netip.Addr) string {
	a = a.Unmap()
	switch {
	case a.IsLoopback():
		return "a loopback address"
	case a.IsPrivate():
		return "a private address"
	case a.IsLinkLocalUnicast(), a.IsLinkLocalMulticast():
		return "a link-local address"
	case a.IsUnspecified(), thisNetwork.Contains(a):
		return "an unspecified address"
	case a.IsMulticast(), a.IsInterfaceLocalMulticast(), a == broadcast:
		return "a multicast or broadcast address"
	case sharedAddressSpace.Contains(a):
		return "a carrier-grade NAT address"
	}
	return ""
}

// response is what a fetch got.
type response struct {
	url       string // after redirects
	status    int
	header    string // Content-Type as sent
	mediaType string
	kind      kind
	body      []byte // decompressed
	timedOut  bool   // the deadline ended the body early
}

// text returns a text body as UTF-8, decoded from the charset that the
// Content-Type header, a byte order mark or an HTML <meta> names. Without
// a charset, a body that is valid UTF-8 is taken as UTF-8 and any other as
// Windows-1252, as browsers do.
func (r *response) text() string {
	enc, name, certain := charset.DetermineEncoding(r.body, r.header)
	if name != "utf-8" && (certain || !utf8.Valid(r.body)) {
		if b, err := enc.NewDecoder().Bytes(r.body); err == nil {
			return strings.ToValidUTF8(string(b), "\uFFFD")
		}
	}
	return strings.ToValidUTF8(strings.TrimPrefix(string(r.body), "\uFEFF"), "\uFFFD")
}

// get fetches u within the context's deadline, keeping some of the time
// for converting what arrived.
func (f *fetcher) get(ctx context.Context, u *url.URL) (*response, error) {
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(defaultTimeout)
	}
	reserve := min(time.Until(deadline)/5, 2*time.Second)
	fetchCtx, cancel := context.WithDeadline(ctx, deadline.Add(-reserve))
	defer cancel()
	start := time.Now()

	req, err := http.NewRequestWithContext(fetchCtx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, toolsdk.Errorf(codeInvalidURL, "Error: %s '%s': %v", op, u, err)
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", accept)
	req.Header.Set("Accept-Encoding", "gzip, br")
	resp, err := f.client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, requestError(u, err, time.Since(start))
	}
	defer resp.Body.Close()

	r := &response{url: resp.Request.URL.String(), status: resp.StatusCode, header: resp.Header.Get("Content-Type")}
	r.mediaType, _, _ = mime.ParseMediaType(r.header)
	r.mediaType = strings.ToLower(r.mediaType)
	if resp.StatusCode >= 300 {
		return nil, httpError(r, resp)
	}
	limit := f.maxBytes
	known := r.mediaType != "" && r.mediaType != "application/octet-stream"
	if known {
		k, err := classify(r.mediaType)
		if err != nil {
			return nil, toolsdk.Errorf(codeUnsupported, "Error: %s '%s': %v", op, r.url, err)
		}
		r.kind = k
		if k == kindImage {
			limit = min(limit, maxImageBytes)
		}
	}
	if resp.ContentLength > limit {
		return nil, tooLarge(r.url, limit)
	}
	body, err := decode(resp)
	if err != nil {
		return nil, toolsdk.Errorf(codeFetchFailed, "Error: %s '%s': %v", op, r.url, err)
	}
	r.body, err = io.ReadAll(io.LimitReader(body, limit+1))
	switch {
	case err != nil && fetchCtx.Err() != nil && ctx.Err() == nil:
		// The time ran out mid-body: what arrived is returned.
		r.timedOut = true
	case err != nil && ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		return nil, toolsdk.Errorf(codeFetchFailed, "Error: %s '%s': the connection failed after %d bytes: %v", op, r.url, len(r.body), err)
	case int64(len(r.body)) > limit:
		return nil, tooLarge(r.url, limit)
	}
	if !known {
		r.mediaType, _, _ = mime.ParseMediaType(http.DetectContentType(r.body))
		if r.kind, err = classify(r.mediaType); err != nil {
			return nil, toolsdk.Errorf(codeUnsupported, "Error: %s '%s': %v", op, r.url, err)
		}
		if r.kind == kindImage && len(r.body) > maxImageBytes {
			return nil, tooLarge(r.url, maxImageBytes)
		}
	}
	if r.kind == kindImage && r.timedOut {
		return nil, toolsdk.Errorf("TIMEOUT", "Error: %s '%s': timed out after %d bytes of the image", op, r.url, len(r.body))
	}
	if r.kind != kindImage && !r.timedOut {
		if i := files.BinaryOffset(r.body[:min(len(r.body), files.BinaryProbe)]); i >= 0 {
			return nil, toolsdk.Errorf(codeUnsupported, "Error: %s '%s': served as %s but binary (NUL byte at offset %d)", op, r.url, r.mediaType, i)
		}
	}
	return r, nil
}

// classify says how content of a media type is returned, or why it is not.
func classify(mediaType string) (kind, error) {
	switch {
	case mediaType == "text/html" || mediaType == "application/xhtml+xml":
		return kindHTML, nil
	case mediaType == "application/json" || strings.HasSuffix(mediaType, "+json"):
		return kindJSON, nil
	case strings.HasPrefix(mediaType, "text/") || strings.HasSuffix(mediaType, "+xml") || textTypes[mediaType]:
		return kindText, nil
	case modelImages[mediaType]:
		return kindImage, nil
	case mediaType == "application/pdf":
		return 0, errors.New("PDF is not converted to text; download it with bash (curl -sLo page.pdf URL) and extract its text with a tool such as pdftotext")
	}
	return 0, fmt.Errorf("%s content is not text, and cannot be shown", mediaType)
}

// textTypes are media types outside text/ whose content is text.
var textTypes = map[string]bool{
	"application/xml": true, "application/javascript": true, "application/x-javascript": true,
	"application/ecmascript": true, "application/x-yaml": true, "application/yaml": true,
	"application/toml": true, "application/x-sh": true, "application/sql": true,
	"application/graphql": true, "application/x-ndjson": true, "application/jsonl": true,
	"application/rss+xml": true, "application/atom+xml": true, "application/x-httpd-php": true,
}

// modelImages are the image types model APIs accept.
var modelImages = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// decode returns the response body with its Content-Encoding undone.
func decode(resp *http.Response) (io.Reader, error) {
	switch enc := strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
		return resp.Body, nil
	case "gzip", "x-gzip":
		return gzip.NewReader(resp.Body)
	case "br":
		return brotli.NewReader(resp.Body), nil
	default:
		return nil, fmt.Errorf("the response has Content-Encoding %q, which is not supported", enc)
	}
}

// requestError turns a failed request into the operation error that says
// why.
func requestError(u *url.URL, err error, elapsed time.Duration) error {
	at := u.String()
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		at = urlErr.URL // the redirect that failed, when one did
	}
	var addrErr *addressError
	switch {
	case errors.As(err, &addrErr):
		host := u.Hostname()
		if p, err := url.Parse(at); err == nil {
			host = p.Hostname()
		}
		return toolsdk.Errorf(codePrivateAddress, "Error: %s '%s': %s resolves to %s, %s; private, loopback and link-local addresses are refused (set %s=1 to allow them)",
			op, at, host, addrErr.addr, addrErr.why, envAllowPrivate)
	case errors.Is(err, errTooManyRedirects):
		return toolsdk.Errorf(codeTooManyRedirects, "Error: %s '%s': stopped after %d redirects", op, u, maxRedirects)
	case errors.Is(err, context.DeadlineExceeded) || os.IsTimeout(err):
		return toolsdk.Errorf("TIMEOUT", "Error: %s '%s': no response after %.1f s", op, at, elapsed.Seconds())
	}
	reason := err.Error()
	if urlErr != nil {
		reason = urlErr.Err.Error()
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
		reason = fmt.Sprintf("no such host %s", dnsErr.Name)
	}
	return toolsdk.Errorf(codeFetchFailed, "Error: %s '%s': %s", op, at, reason)
}

// httpError is the HTTP_ERROR for a response with an error status, quoting
// the start of its body when that is text.
func httpError(r *response, resp *http.Response) error {
	msg := fmt.Sprintf("Error: %s '%s': HTTP %s", op, r.url, resp.Status)
	if resp.Status == "" || !strings.Contains(resp.Status, " ") {
		msg = fmt.Sprintf("Error: %s '%s': HTTP %d %s", op, r.url, resp.StatusCode, http.StatusText(resp.StatusCode))
	}
	if k, err := classify(r.mediaType); err == nil && (k == kindText || k == kindJSON) && resp.Header.Get("Content-Encoding") == "" {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, errorSnippet))
		if s := strings.Join(strings.Fields(strings.ToValidUTF8(string(b), "\uFFFD")), " "); s != "" {
			msg += ": " + s
		}
	}
	return toolsdk.Errorf(codeHTTPError, "%s", msg)
}

func tooLarge(at string, limit int64) error {
	return toolsdk.Errorf(codeTooLarge, "Error: %s '%s': the response is more than the %s that can be fetched", op, at, size(limit))
}

// size formats a byte count in MiB when it is a whole number of them.
func size(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}
