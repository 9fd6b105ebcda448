// Command web-fetch-tool fetches a web page and returns it as text a model
// can read: HTML as Markdown, text and JSON as they are, images as images.
// Long pages are read in windows of lines, as file_read reads a file.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ikigai-tools/ikigai/toolsdk"
	"github.com/ikigai-tools/ikigai/toolsdk/output"
)

type params struct {
	URL    string `json:"url" description:"The http:// or https:// URL to fetch"`
	Offset int    `json:"offset,omitempty" description:"First line of the converted page to return, counting from 1 (default: the first line)"`
	Limit  int    `json:"limit,omitempty" description:"How many lines to return (default: as many as fit in one result)"`
	Raw    bool   `json:"raw,omitempty" description:"Return the page as served (HTML source, JSON unindented) instead of converted"`
}

type result struct {
	Output      string  `json:"output" description:"The page: HTML as Markdown, text and JSON as text; for an image, its type and size"`
	URL         string  `json:"url" description:"The URL the page came from, after redirects"`
	Status      int     `json:"status" description:"The HTTP status"`
	ContentType string  `json:"content_type" description:"The page's media type"`
	Title       string  `json:"title,omitempty" description:"The HTML page's title"`
	Truncated   bool    `json:"truncated,omitempty" description:"The result's size limit ended the output before what was asked for"`
	NextOffset  int     `json:"next_offset,omitempty" description:"The offset to continue reading from; absent at the end of the page"`
	TimedOut    bool    `json:"timed_out,omitempty" description:"The time limit ended the download: output is the part that arrived"`
	Images      []image `json:"images,omitempty" description:"The image, for an image URL"`
}

// image is an image in a result, which the host shows the model as an
// image (docs/protocol.md, "Images in a result").
type image struct {
	MediaType string `json:"media_type"`
	Data      []byte `json:"data" description:"The image's bytes, base64-encoded"`
}

// Error codes besides those toolsdk reports (TIMEOUT, CANCELLED).
const (
	codeInvalidURL       = "INVALID_URL"
	codePrivateAddress   = "PRIVATE_ADDRESS"
	codeTooManyRedirects = "TOO_MANY_REDIRECTS"
	codeFetchFailed      = "FETCH_FAILED"
	codeHTTPError        = "HTTP_ERROR"
	codeTooLarge         = "RESPONSE_TOO_LARGE"
	codeUnsupported      = "UNSUPPORTED_CONTENT"
)

const (
	op = "fetching"
	// maxURL is the longest URL accepted, as most servers and CDNs do.
	maxURL = 8 << 10
	// defaultTimeout is the time limit when the host gives none (run by hand).
	defaultTimeout = 30 * time.Second
	// envAllowPrivate lets the tool fetch from private, loopback and
	// link-local addresses.
	envAllowPrivate = "IKIGAI_WEB_ALLOW_PRIVATE"
	// envMaxBytes changes the download cap.
	envMaxBytes = "IKIGAI_WEB_FETCH_MAX_BYTES"
)

var tool = toolsdk.New(toolsdk.Schema{
	Name: "web_fetch",
	Description: "Fetch a web page by URL and return its content: HTML converted to Markdown (navigation and scripts removed), " +
		"text and JSON as they are, images as images. Long pages come back in parts: pass offset (a 1-based line) and limit " +
		"(lines) to read a window, and continue from next_offset. Private and local network addresses are refused.",
	Annotations: &toolsdk.Annotations{ReadOnlyHint: true, OpenWorldHint: ptr(true)},
}, run)

func main() { tool.Main() }

func run(ctx context.Context, p params) (result, error) {
	f, err := newFetcher(os.Getenv(envAllowPrivate), os.Getenv(envMaxBytes))
	if err != nil {
		return result{}, err
	}
	return f.run(ctx, p)
}

func (f *fetcher) run(ctx context.Context, p params) (result, error) {
	if p.Offset < 0 {
		return result{}, toolsdk.InvalidField("offset")
	}
	if p.Limit < 0 {
		return result{}, toolsdk.InvalidField("limit")
	}
	u, err := checkURL(p.URL)
	if err != nil {
		return result{}, err
	}
	resp, err := f.get(ctx, u)
	if err != nil {
		return result{}, err
	}
	res := result{URL: resp.url, Status: resp.status, ContentType: resp.mediaType, TimedOut: resp.timedOut}
	if resp.kind == kindImage {
		res.Output = fmt.Sprintf("%s, %d bytes", resp.mediaType, len(resp.body))
		res.Images = []image{{MediaType: resp.mediaType, Data: resp.body}}
		return res, nil
	}
	text := resp.text()
	switch {
	case p.Raw:
	case resp.kind == kindHTML:
		pg, err := convertHTML([]byte(text), resp.url)
		if err != nil {
			return result{}, toolsdk.Errorf(codeUnsupported, "Error: %s '%s': converting the page: %v", op, p.URL, err)
		}
		text, res.Title = pg.markdown, pg.title
	case resp.kind == kindJSON:
		text = indentJSON(text)
	}
	w := window{offset: max(p.Offset, 1), limit: p.Limit, budget: output.DefaultBudget}
	res.Output, res.Truncated, res.NextOffset = w.cut(text)
	res.Truncated = res.Truncated || resp.timedOut
	return res, nil
}

// checkURL parses a URL the tool may fetch: absolute, http or https, with
// a host.
func checkURL(raw string) (*url.URL, error) {
	invalid := func(reason string) error {
		return toolsdk.Errorf(codeInvalidURL, "Error: %s '%s': %s", op, raw, reason)
	}
	if len(raw) > maxURL {
		return nil, toolsdk.Errorf(codeInvalidURL, "Error: %s: the URL is %d bytes long, more than %d", op, len(raw), maxURL)
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, invalid(strings.TrimPrefix(err.Error(), "parse "+strconv.Quote(strings.TrimSpace(raw))+": "))
	}
	switch {
	case u.Scheme == "":
		return nil, invalid("not an absolute URL; it must start with http:// or https://")
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, invalid(fmt.Sprintf("the %s scheme is not fetched; only http and https are", u.Scheme))
	case u.Host == "" || u.Hostname() == "":
		return nil, invalid("the URL has no host")
	}
	u.Fragment, u.RawFragment = "", ""
	return u, nil
}

// indentJSON indents a JSON document so that it can be read in windows of
// lines; text that is not JSON is returned as it is.
func indentJSON(text string) string {
	var b bytes.Buffer
	if json.Indent(&b, []byte(text), "", "  ") != nil {
		return text
	}
	return b.String()
}

func ptr[T any](v T) *T { return &v }
