package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ikigai-tools/ikigai/toolsdk"
)

// backend is one search API.
type backend struct {
	name   string
	search func(ctx context.Context, client *http.Client, p params) ([]item, error)
	// code is the error code for the API's refusal.
	code func(*searchError) string
}

// Environment variables that choose and configure a backend. The base URLs
// are for proxies and tests.
const (
	envBraveKey     = "BRAVE_SEARCH_API_KEY"
	envBraveURL     = "BRAVE_SEARCH_BASE_URL"
	envTavilyKey    = "TAVILY_API_KEY"
	envTavilyURL    = "TAVILY_BASE_URL"
	envSearXNGURL   = "SEARXNG_URL"
	defaultBraveURL = "https://api.search.brave.com"
	defaultTavily   = "https://api.tavily.com"
)

// chooseBackend returns the first backend that is set up, in the order
// Brave, Tavily, SearXNG.
func chooseBackend(getenv func(string) string) (*backend, error) {
	base := func(env, def string) string {
		if v := strings.TrimSpace(getenv(env)); v != "" {
			return strings.TrimRight(v, "/")
		}
		return def
	}
	if key := strings.TrimSpace(getenv(envBraveKey)); key != "" {
		return brave(key, base(envBraveURL, defaultBraveURL)), nil
	}
	if key := strings.TrimSpace(getenv(envTavilyKey)); key != "" {
		return tavily(key, base(envTavilyURL, defaultTavily)), nil
	}
	if u := strings.TrimSpace(getenv(envSearXNGURL)); u != "" {
		return searxng(strings.TrimSuffix(strings.TrimRight(u, "/"), "/search")), nil
	}
	return nil, missingCredentials()
}

// brave searches with the Brave Search API's web search.
func brave(key, baseURL string) *backend {
	return &backend{
		name: "brave",
		search: func(ctx context.Context, client *http.Client, p params) ([]item, error) {
			q := url.Values{"q": {withSite(p.Query, p.Site)}, "count": {strconv.Itoa(p.Count)}, "text_decorations": {"false"}}
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, baseURL+"/res/v1/web/search?"+q.Encode(), nil)
			if err != nil {
				return nil, err
			}
			req.Header.Set("Accept", "application/json")
			req.Header.Set("X-Subscription-Token", key)
			var answer struct {
				Web struct {
					Results []struct {
						Title       string `json:"title"`
						URL         string `json:"url"`
						Description string `json:"description"`
					} `json:"results"`
				} `json:"web"`
			}
			if err := call(client, req, &answer, braveError); err != nil {
				return nil, err
			}
			var items []item
			for _, r := range answer.Web.Results {
				items = append(items, item{r.Title, r.URL, r.Description})
			}
			return items, nil
		},
		code: func(e *searchError) string {
			switch {
			case e.status == 401 || e.status == 403 || strings.HasPrefix(e.code, "SUBSCRIPTION_TOKEN"):
				return codeAuthFailed
			case e.status == 429 || strings.HasPrefix(e.code, "RATE_LIMIT") || strings.HasPrefix(e.code, "QUOTA"):
				return codeRateLimited
			}
			return codeSearchFailed
		},
	}
}

// braveError reads Brave's error document:
// {"type": "ErrorResponse", "error": {"code", "detail", "meta"}}.
func braveError(status int, body []byte) *searchError {
	type apiError struct {
		Code   string `json:"code"`
		Detail string `json:"detail"`
		Meta   struct {
			Errors []struct {
				Msg string `json:"msg"`
			} `json:"errors"`
		} `json:"meta"`
	}
	var doc struct {
		Error  *apiError  `json:"error"`
		Errors []apiError `json:"errors"`
	}
	if json.Unmarshal(body, &doc) != nil || doc.Error == nil && len(doc.Errors) == 0 {
		return &searchError{status: status, message: bodyText(body)}
	}
	e := doc.Error
	if e == nil {
		e = &doc.Errors[0]
	}
	msg := e.Detail
	for _, m := range e.Meta.Errors {
		msg += " " + m.Msg
	}
	return &searchError{status: status, code: e.Code, message: strings.TrimSpace(e.Code + ": " + msg)}
}

// tavily searches with Tavily's search API.
func tavily(key, baseURL string) *backend {
	return &backend{
		name: "tavily",
		search: func(ctx context.Context, client *http.Client, p params) ([]item, error) {
			body := struct {
				Query          string   `json:"query"`
				MaxResults     int      `json:"max_results"`
				IncludeDomains []string `json:"include_domains,omitempty"`
			}{p.Query, p.Count, nil}
			if p.Site != "" {
				body.IncludeDomains = []string{p.Site}
			}
			b, err := json.Marshal(body)
			if err != nil {
				return nil, err
			}
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, baseURL+"/search", bytes.NewReader(b))
			if err != nil {
				return nil, err
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+key)
			var answer struct {
				Results []struct {
					Title   string `json:"title"`
					URL     string `json:"url"`
					Content string `json:"content"`
				} `json:"results"`
			}
			if err := call(client, req, &answer, tavilyError); err != nil {
				return nil, err
			}
			var items []item
			for _, r := range answer.Results {
				items = append(items, item{r.Title, r.URL, r.Content})
			}
			return items, nil
		},
		code: func(e *searchError) string {
			switch e.status {
			case 401, 403:
				return codeAuthFailed
			case 429, 432, 433: // 432 and 433: the plan's or the key's usage limit
				return codeRateLimited
			}
			return codeSearchFailed
		},
	}
}

// tavilyError reads Tavily's error document: {"detail": {"error": "..."}}.
func tavilyError(status int, body []byte) *searchError {
	var doc struct {
		Detail json.RawMessage `json:"detail"`
	}
	var detail struct {
		Error string `json:"error"`
	}
	var text string
	switch {
	case json.Unmarshal(body, &doc) != nil || doc.Detail == nil:
	case json.Unmarshal(doc.Detail, &detail) == nil && detail.Error != "":
		return &searchError{status: status, message: detail.Error}
	case json.Unmarshal(doc.Detail, &text) == nil && text != "":
		return &searchError{status: status, message: text}
	}
	return &searchError{status: status, message: bodyText(body)}
}

// searxng searches with a SearXNG instance's JSON API.
func searxng(baseURL string) *backend {
	return &backend{
		name: "searxng",
		search: func(ctx context.Context, client *http.Client, p params) ([]item, error) {
			q := url.Values{"q": {withSite(p.Query, p.Site)}, "format": {"json"}}
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, baseURL+"/search?"+q.Encode(), nil)
			if err != nil {
				return nil, err
			}
			req.Header.Set("Accept", "application/json")
			var answer struct {
				Results []struct {
					Title   string `json:"title"`
					URL     string `json:"url"`
					Content string `json:"content"`
				} `json:"results"`
			}
			if err := call(client, req, &answer, func(status int, body []byte) *searchError {
				e := &searchError{status: status, message: bodyText(body)}
				if status == http.StatusForbidden {
					e.message = strings.TrimSpace(e.message + " (the instance refuses JSON: enable it in its settings.yml, search: formats: [html, json])")
				}
				return e
			}); err != nil {
				return nil, err
			}
			var items []item
			for _, r := range answer.Results {
				items = append(items, item{r.Title, r.URL, r.Content})
			}
			return items, nil
		},
		code: func(e *searchError) string {
			switch e.status {
			case 401:
				return codeAuthFailed
			case 429:
				return codeRateLimited
			}
			return codeSearchFailed
		},
	}
}

// withSite adds a site: operator to a query.
func withSite(query, site string) string {
	if site == "" {
		return query
	}
	return query + " site:" + site
}

// call sends req and decodes a 200 answer's JSON into v; any other status
// is the searchError apiError reads from the body.
func call(client *http.Client, req *http.Request, v any, apiError func(status int, body []byte) *searchError) error {
	req.Header.Set("User-Agent", "ikigai-web-search/1.0")
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	switch {
	case err != nil:
		return err
	case len(body) > maxResponse:
		return fmt.Errorf("the answer is more than %d MiB", maxResponse>>20)
	case resp.StatusCode != http.StatusOK:
		return apiError(resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("the answer is not the JSON expected: %s", bodyText(body))
	}
	return nil
}

// failure is the operation error for a failed search.
func (b *backend) failure(query string, err error) error {
	var apiErr *searchError
	if errors.As(err, &apiErr) {
		return toolsdk.Errorf(b.code(apiErr), "Error: searching %s for '%s': %v", b.name, query, apiErr)
	}
	if errors.Is(err, context.DeadlineExceeded) || os.IsTimeout(err) {
		return toolsdk.Errorf("TIMEOUT", "Error: searching %s for '%s': no answer in time", b.name, query)
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		err = urlErr.Err // the URL may hold a password
	}
	return toolsdk.Errorf(codeSearchFailed, "Error: searching %s for '%s': %v", b.name, query, err)
}

// bodyText returns the start of a response body as one line of text,
// without markup.
func bodyText(body []byte) string {
	var b strings.Builder
	inTag := false
	for _, r := range string(body[:min(len(body), 4000)]) {
		switch {
		case r == '<':
			inTag = true
		case r == '>' && inTag:
			inTag = false
		case !inTag:
			b.WriteRune(r)
		}
	}
	return clean(b.String(), 200)
}

// highlights are the tags search APIs mark matches with. Other text that
// looks like a tag (Vec<T>) is a result's own.
var highlights = strings.NewReplacer("<strong>", "", "</strong>", "", "<b>", "", "</b>", "", "<em>", "", "</em>", "")

// clean returns s as plain text: highlighting removed, entities decoded,
// white space collapsed, valid UTF-8, and at most limit bytes, cut at a
// character boundary with an ellipsis.
func clean(s string, limit int) string {
	s = html.UnescapeString(highlights.Replace(strings.ToValidUTF8(s, "\uFFFD")))
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= limit {
		return s
	}
	end := limit - len("…")
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end] + "…"
}
