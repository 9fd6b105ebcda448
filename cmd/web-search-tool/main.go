// Command web-search-tool searches the web through whichever search API
// the user has set up: Brave Search, Tavily, or a SearXNG instance.
package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/ikigai-tools/ikigai/toolsdk"
	"github.com/ikigai-tools/ikigai/toolsdk/output"
)

type params struct {
	Query string `json:"query" description:"What to search for"`
	Count int    `json:"count,omitempty" description:"How many results to return (default 10, at most 20)"`
	Site  string `json:"site,omitempty" description:"Search only this site, a domain such as go.dev"`
}

type result struct {
	Results   []item `json:"results" description:"The results, best first"`
	Backend   string `json:"backend" description:"The search API that answered: brave, tavily or searxng"`
	Truncated bool   `json:"truncated,omitempty" description:"The result's size limit left out some results"`
}

type item struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet"`
}

// Error codes besides those toolsdk reports (TIMEOUT, CANCELLED).
const (
	codeMissingCredentials = "MISSING_CREDENTIALS"
	codeAuthFailed         = "AUTH_FAILED"
	codeRateLimited        = "RATE_LIMITED"
	codeSearchFailed       = "SEARCH_FAILED"
)

const (
	defaultCount = 10
	maxCount     = 20
	// defaultTimeout is the time limit when the host gives none (run by hand).
	defaultTimeout = 30 * time.Second
	// maxResponse caps what is read of a search API's answer.
	maxResponse = 5 << 20
	// maxTitle and maxSnippet cap a result's text, in bytes.
	maxTitle, maxSnippet = 300, 1000
)

var tool = toolsdk.New(toolsdk.Schema{
	Name: "web_search",
	Description: "Search the web. Returns the best results for a query, each with its title, URL and a snippet; " +
		"fetch a result's page with web_fetch to read it. site restricts the search to one domain.",
	Annotations: &toolsdk.Annotations{ReadOnlyHint: true, OpenWorldHint: ptr(true)},
}, run)

func main() { tool.Main() }

func run(ctx context.Context, p params) (result, error) {
	p.Query = strings.TrimSpace(p.Query)
	if p.Query == "" {
		return result{}, toolsdk.InvalidField("query")
	}
	switch {
	case p.Count < 0:
		return result{}, toolsdk.InvalidField("count")
	case p.Count == 0:
		p.Count = defaultCount
	case p.Count > maxCount:
		p.Count = maxCount
	}
	site, ok := domain(p.Site)
	if !ok {
		return result{}, toolsdk.InvalidField("site")
	}
	p.Site = site

	b, err := chooseBackend(os.Getenv)
	if err != nil {
		return result{}, err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, defaultTimeout)
		defer cancel()
	}
	items, err := b.search(ctx, http.DefaultClient, p)
	if err != nil {
		if ctx.Err() != nil && !errors.Is(err, context.DeadlineExceeded) {
			return result{}, ctx.Err()
		}
		return result{}, b.failure(p.Query, err)
	}
	return fit(items, p.Count, b.name), nil
}

// domain returns the domain a site parameter names, accepting a URL for
// one, and whether it is one.
func domain(site string) (string, bool) {
	site = strings.TrimSpace(site)
	if i := strings.Index(site, "://"); i >= 0 {
		site = site[i+3:]
	}
	site, _, _ = strings.Cut(site, "/")
	return site, !strings.ContainsAny(site, " \t\r\n\"")
}

// fit returns up to count results, their text cleaned and capped, as many
// as fit in the output budget.
func fit(items []item, count int, backend string) result {
	res := result{Results: []item{}, Backend: backend}
	used := 0
	for _, it := range items {
		if len(res.Results) == count {
			break
		}
		it = item{Title: clean(it.Title, maxTitle), URL: strings.ToValidUTF8(it.URL, "\uFFFD"), Snippet: clean(it.Snippet, maxSnippet)}
		cost := output.EncodedLen(it.Title) + output.EncodedLen(it.URL) + output.EncodedLen(it.Snippet) + len(`{"title":"","url":"","snippet":""},`)
		if used+cost > output.DefaultBudget {
			res.Truncated = true
			break
		}
		used += cost
		res.Results = append(res.Results, it)
	}
	return res
}

// missingCredentials is the error when no backend is set up, with the
// steps for each.
func missingCredentials() error {
	return toolsdk.MissingCredentials(
		"Error: web search needs a search API, and none is set up: set BRAVE_SEARCH_API_KEY, TAVILY_API_KEY or SEARXNG_URL",
		"Brave Search: create an API key at https://api-dashboard.search.brave.com/app/keys (subscribe to a Search plan first), then export BRAVE_SEARCH_API_KEY=your-key",
		"Tavily: create an API key at https://app.tavily.com, then export TAVILY_API_KEY=your-key",
		"SearXNG (no key): run an instance with the JSON format enabled (in its settings.yml, search: formats: [html, json]), then set SEARXNG_URL to its address: export SEARXNG_URL=http://localhost:8888",
		"Put the export in your shell profile (~/.bashrc, ~/.zshrc) to keep it, and start ikigai again from that shell",
	)
}

// searchError is a search API's refusal: its HTTP status and what it said.
type searchError struct {
	status  int
	code    string // the API's own error code, when it gives one
	message string
}

func (e *searchError) Error() string {
	if e.message == "" {
		return fmt.Sprintf("HTTP %d %s", e.status, http.StatusText(e.status))
	}
	return fmt.Sprintf("HTTP %d: %s", e.status, e.message)
}

func ptr[T any](v T) *T { return &v }
