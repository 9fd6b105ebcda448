package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ikigai-tools/ikigai/toolsdk/tooltest"
)

// request is what a fake search API received.
type request struct {
	Method, Path, Query, Body string
	Header                    map[string]string
}

// fakeAPI serves a file from testdata with a status, and records the
// requests it gets.
func fakeAPI(t *testing.T, status int, file string) (*httptest.Server, *[]request) {
	t.Helper()
	body, err := os.ReadFile("testdata/" + file)
	if err != nil {
		body = []byte(file) // an inline body
	}
	var got []request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = append(got, request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Body: string(b), Header: map[string]string{
			"Authorization":        r.Header.Get("Authorization"),
			"X-Subscription-Token": r.Header.Get("X-Subscription-Token"),
			"Content-Type":         r.Header.Get("Content-Type"),
		}})
		if json.Valid(body) {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv, &got
}

// setBackend clears every backend's variables and sets the given ones.
func setBackend(t *testing.T, env map[string]string) {
	for _, k := range []string{envBraveKey, envBraveURL, envTavilyKey, envTavilyURL, envSearXNGURL} {
		t.Setenv(k, env[k])
	}
}

func search(t *testing.T, input string) string {
	t.Helper()
	res := tooltest.Call(t, tool, input)
	if res.ExitCode != 0 || res.Stderr != "" {
		t.Fatalf("exit %d, stderr %q", res.ExitCode, res.Stderr)
	}
	return res.Stdout
}

func TestBackends(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		env     func(url string) map[string]string
		input   string
		want    string
		request request
	}{
		{
			name: "brave",
			file: "brave.json",
			env: func(u string) map[string]string {
				return map[string]string{envBraveKey: "BSA-key", envBraveURL: u + "/"}
			},
			input: `{"query":"go generics tutorial","count":5,"site":"go.dev"}`,
			want: `{"results":[` +
				`{"title":"Tutorial: Getting started with generics - The Go Programming Language","url":"https://go.dev/doc/tutorial/generics","snippet":"In this tutorial, you'll declare two simple non-generic functions, then capture the same logic in a single generic function."},` +
				`{"title":"An Introduction To Generics - The Go Programming Language","url":"https://go.dev/blog/intro-generics","snippet":"The Go 1.18 release adds support for generics: type parameters for functions and types, e.g. func Map[T any](s []T) and Vec<T> in other languages."}` +
				`],"backend":"brave"}` + "\n",
			request: request{Method: "GET", Path: "/res/v1/web/search", Query: "count=5&q=go+generics+tutorial+site%3Ago.dev&text_decorations=false",
				Header: map[string]string{"X-Subscription-Token": "BSA-key"}},
		},
		{
			name:  "tavily",
			file:  "tavily.json",
			env:   func(u string) map[string]string { return map[string]string{envTavilyKey: "tvly-key", envTavilyURL: u} },
			input: `{"query":"go generics tutorial","site":"https://go.dev/doc/"}`,
			want: `{"results":[` +
				`{"title":"Tutorial: Getting started with generics - The Go Programming Language","url":"https://go.dev/doc/tutorial/generics","snippet":"This tutorial introduces the basics of generics in Go. With generics, you can declare and use functions or types that are written to work with any of a set of types provided by calling code."},` +
				`{"title":"Go by Example: Generics","url":"https://gobyexample.com/generics","snippet":"Starting with version 1.18, Go has added support for generics, also known as type parameters. As an example of a generic function, SlicesIndex takes a slice of any comparable type."}` +
				`],"backend":"tavily"}` + "\n",
			request: request{Method: "POST", Path: "/search", Body: `{"query":"go generics tutorial","max_results":10,"include_domains":["go.dev"]}`,
				Header: map[string]string{"Authorization": "Bearer tvly-key", "Content-Type": "application/json"}},
		},
		{
			name:  "searxng",
			file:  "searxng.json",
			env:   func(u string) map[string]string { return map[string]string{envSearXNGURL: u + "/searx/"} },
			input: `{"query":"go generics tutorial","count":2}`,
			want: `{"results":[` +
				`{"title":"Tutorial: Getting started with generics","url":"https://go.dev/doc/tutorial/generics","snippet":"This tutorial introduces the basics of generics in Go."},` +
				`{"title":"An Introduction To Generics","url":"https://go.dev/blog/intro-generics","snippet":"Introduction. This blog post is based on our talk at GopherCon 2021: Generics!"}` +
				`],"backend":"searxng"}` + "\n",
			request: request{Method: "GET", Path: "/searx/search", Query: "format=json&q=go+generics+tutorial", Header: map[string]string{}},
		},
		{
			name:    "searxng, its address given with /search",
			file:    `{"results":[]}`,
			env:     func(u string) map[string]string { return map[string]string{envSearXNGURL: u + "/search"} },
			input:   `{"query":"nothing at all","count":50}`,
			want:    `{"results":[],"backend":"searxng"}` + "\n",
			request: request{Method: "GET", Path: "/search", Query: "format=json&q=nothing+at+all", Header: map[string]string{}},
		},
		{
			name:  "brave with no web results",
			file:  `{"type":"search","query":{"original":"zzqx"},"mixed":{"type":"mixed","main":[]}}`,
			env:   func(u string) map[string]string { return map[string]string{envBraveKey: "k", envBraveURL: u} },
			input: `{"query":"zzqx","count":50}`,
			want:  `{"results":[],"backend":"brave"}` + "\n",
			request: request{Method: "GET", Path: "/res/v1/web/search", Query: "count=20&q=zzqx&text_decorations=false",
				Header: map[string]string{"X-Subscription-Token": "k"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, got := fakeAPI(t, 200, tt.file)
			setBackend(t, tt.env(srv.URL))
			if diff := cmp.Diff(tt.want, search(t, tt.input)); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			for k, v := range (*got)[0].Header {
				if v == "" {
					delete((*got)[0].Header, k)
				}
			}
			if diff := cmp.Diff([]request{tt.request}, *got); diff != "" {
				t.Errorf("requests (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBackendErrors(t *testing.T) {
	brave := func(u string) map[string]string { return map[string]string{envBraveKey: "k", envBraveURL: u} }
	tavily := func(u string) map[string]string { return map[string]string{envTavilyKey: "k", envTavilyURL: u} }
	searx := func(u string) map[string]string { return map[string]string{envSearXNGURL: u} }
	tests := []struct {
		name   string
		status int
		file   string
		env    func(string) map[string]string
		want   string
	}{
		{"brave: an invalid key", 422, "brave-invalid-token.json", brave,
			`{"error":"Error: searching brave for 'q': HTTP 422: SUBSCRIPTION_TOKEN_INVALID: The provided subscription token is invalid.","error_code":"AUTH_FAILED"}`},
		{"brave: rate limited", 429, "brave-rate-limited.json", brave,
			`{"error":"Error: searching brave for 'q': HTTP 429: RATE_LIMITED: Request rate limit exceeded for plan.","error_code":"RATE_LIMITED"}`},
		{"brave: a bad request", 422, "brave-validation.json", brave,
			`{"error":"Error: searching brave for 'q': HTTP 422: VALIDATION: Unable to validate request parameter(s). Input should be less than or equal to 20","error_code":"SEARCH_FAILED"}`},
		{"brave: a proxy's error page", 502, "<html><body><h1>502 Bad Gateway</h1></body></html>", brave,
			`{"error":"Error: searching brave for 'q': HTTP 502: 502 Bad Gateway","error_code":"SEARCH_FAILED"}`},
		{"brave: not JSON", 200, "<html>captcha</html>", brave,
			`{"error":"Error: searching brave for 'q': the answer is not the JSON expected: captcha","error_code":"SEARCH_FAILED"}`},
		{"tavily: an invalid key", 401, "tavily-unauthorized.json", tavily,
			`{"error":"Error: searching tavily for 'q': HTTP 401: Unauthorized: missing or invalid API key.","error_code":"AUTH_FAILED"}`},
		{"tavily: over the plan's limit", 432, "tavily-usage-limit.json", tavily,
			`{"error":"Error: searching tavily for 'q': HTTP 432: This request exceeds your plan's set usage limit. Please upgrade your plan or contact support@tavily.com","error_code":"RATE_LIMITED"}`},
		{"tavily: rate limited", 429, `{"detail":{"error":"Rate limit exceeded"}}`, tavily,
			`{"error":"Error: searching tavily for 'q': HTTP 429: Rate limit exceeded","error_code":"RATE_LIMITED"}`},
		{"tavily: a validation error", 400, `{"detail":"Invalid request"}`, tavily,
			`{"error":"Error: searching tavily for 'q': HTTP 400: Invalid request","error_code":"SEARCH_FAILED"}`},
		{"searxng: JSON not enabled", 403, "<!doctype html>\n<html lang=en>\n<title>403 Forbidden</title>\n<h1>Forbidden</h1>\n<p>You don't have the permission to access the requested resource.</p>\n", searx,
			`{"error":"Error: searching searxng for 'q': HTTP 403: 403 Forbidden Forbidden You don't have the permission to access the requested resource. (the instance refuses JSON: enable it in its settings.yml, search: formats: [html, json])","error_code":"SEARCH_FAILED"}`},
		{"searxng: rate limited", 429, "Too Many Requests", searx,
			`{"error":"Error: searching searxng for 'q': HTTP 429: Too Many Requests","error_code":"RATE_LIMITED"}`},
		{"searxng: behind a password", 401, "", searx,
			`{"error":"Error: searching searxng for 'q': HTTP 401 Unauthorized","error_code":"AUTH_FAILED"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := fakeAPI(t, tt.status, tt.file)
			setBackend(t, tt.env(srv.URL))
			if diff := cmp.Diff(tt.want+"\n", search(t, `{"query":"q"}`)); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}

	closed := httptest.NewServer(nil)
	closed.Close()
	setBackend(t, map[string]string{envSearXNGURL: "http://user:secret@" + strings.TrimPrefix(closed.URL, "http://")})
	out := search(t, `{"query":"q"}`)
	if strings.Contains(out, "secret") || !strings.Contains(out, `connection refused","error_code":"SEARCH_FAILED"}`) {
		t.Errorf("unreachable instance: %s", out)
	}
}

// With nothing set up, the error says how to set up each backend.
func TestMissingCredentials(t *testing.T) {
	setBackend(t, nil)
	want := `{"error":"Error: web search needs a search API, and none is set up: set BRAVE_SEARCH_API_KEY, TAVILY_API_KEY or SEARXNG_URL",` +
		`"error_code":"MISSING_CREDENTIALS","help":{"steps":[` +
		`"Brave Search: create an API key at https://api-dashboard.search.brave.com/app/keys (subscribe to a Search plan first), then export BRAVE_SEARCH_API_KEY=your-key",` +
		`"Tavily: create an API key at https://app.tavily.com, then export TAVILY_API_KEY=your-key",` +
		`"SearXNG (no key): run an instance with the JSON format enabled (in its settings.yml, search: formats: [html, json]), then set SEARXNG_URL to its address: export SEARXNG_URL=http://localhost:8888",` +
		`"Put the export in your shell profile (~/.bashrc, ~/.zshrc) to keep it, and start ikigai again from that shell"]}}` + "\n"
	if diff := cmp.Diff(want, search(t, `{"query":"anything"}`)); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
}

// Brave wins over Tavily, which wins over SearXNG.
func TestBackendOrder(t *testing.T) {
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{envBraveKey: "a", envTavilyKey: "b", envSearXNGURL: "http://c"}, "brave"},
		{map[string]string{envTavilyKey: "b", envSearXNGURL: "http://c"}, "tavily"},
		{map[string]string{envSearXNGURL: "http://c"}, "searxng"},
		{map[string]string{envBraveKey: "  "}, ""},
	} {
		b, err := chooseBackend(func(k string) string { return tt.env[k] })
		got := ""
		if err == nil {
			got = b.name
		}
		if got != tt.want {
			t.Errorf("%v: backend %q, want %q", tt.env, got, tt.want)
		}
	}
}

func TestFit(t *testing.T) {
	long := strings.Repeat("word ", 400)
	items := []item{
		{Title: "<b>Bold</b> &amp; <T>", URL: "https://a", Snippet: "  spread\n\tout  "},
		{Title: "two", URL: "https://b", Snippet: long},
		{Title: "three", URL: "https://c", Snippet: "3"},
	}
	got := fit(items, 2, "x")
	want := result{Backend: "x", Results: []item{
		{Title: "Bold & <T>", URL: "https://a", Snippet: "spread out"},
		{Title: "two", URL: "https://b", Snippet: long[:997] + "…"},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fit (-want +got):\n%s", diff)
	}

	many := make([]item, 20)
	for i := range many {
		many[i] = item{Title: strings.Repeat("t", 300), URL: "https://example.com/" + strings.Repeat("u", 2000), Snippet: long}
	}
	got = fit(many, 20, "x")
	if !got.Truncated || len(got.Results) == 0 || len(got.Results) == 20 {
		t.Errorf("20 long results: %d kept, truncated %v", len(got.Results), got.Truncated)
	}
	b, _ := json.Marshal(got)
	if len(b) > 33<<10 {
		t.Errorf("the result is %d bytes", len(b))
	}
}

func TestSearchInputErrors(t *testing.T) {
	setBackend(t, map[string]string{envSearXNGURL: "http://127.0.0.1:1"})
	for input, want := range map[string]string{
		`{}`:                             "web-search-tool: missing or invalid query field\n",
		`{"query":"  "}`:                 "web-search-tool: missing or invalid query field\n",
		`{"query":"q","count":-1}`:       "web-search-tool: missing or invalid count field\n",
		`{"query":"q","count":"5"}`:      "web-search-tool: missing or invalid count field\n",
		`{"query":"q","site":"a b.com"}`: "web-search-tool: missing or invalid site field\n",
	} {
		res := tooltest.Call(t, tool, input)
		if res.ExitCode != 1 || res.Stderr != want || res.Stdout != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1, stderr %q", input, res.ExitCode, res.Stdout, res.Stderr, want)
		}
	}
}
