package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/google/go-cmp/cmp"
	"github.com/ikigai-tools/ikigai/toolsdk/output"
	"github.com/ikigai-tools/ikigai/toolsdk/tooltest"
)

// serve starts a loopback server with the given routes and lets the tool
// fetch from loopback addresses.
func serve(t *testing.T, routes map[string]http.HandlerFunc) *httptest.Server {
	t.Helper()
	t.Setenv(envAllowPrivate, "1")
	mux := http.NewServeMux()
	for pattern, h := range routes {
		mux.HandleFunc(pattern, h)
	}
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// fetch runs the tool on args and returns its stdout, failing unless it
// exits 0.
func fetch(t *testing.T, args any, opts ...tooltest.Option) string {
	t.Helper()
	input, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	res := tooltest.Call(t, tool, string(input), opts...)
	if res.ExitCode != 0 || res.Stderr != "" {
		t.Fatalf("exit %d, stderr %q", res.ExitCode, res.Stderr)
	}
	return res.Stdout
}

// serveBody answers with a fixed body and content type.
func serveBody(contentType, body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		io.WriteString(w, body)
	}
}

func TestFetchHTML(t *testing.T) {
	docs, err := os.ReadFile("testdata/docs.html")
	if err != nil {
		t.Fatal(err)
	}
	var got http.Header
	srv := serve(t, map[string]http.HandlerFunc{
		"/doc/effective_go": func(w http.ResponseWriter, r *http.Request) {
			got = r.Header.Clone()
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.Write(docs)
		},
	})
	out := fetch(t, map[string]any{"url": srv.URL + "/doc/effective_go#formatting"})
	md := "# Effective Go\n\n" +
		"Go is a *new* language. See the [specification](" + srv.URL + "/ref/spec) and [package fmt](https://pkg.go.dev/fmt).\n\n" +
		"## Formatting\n\nRun `gofmt` on your code:\n\n" +
		"```go\ntype T struct {\n    name  string // name of the object\n    value int    // its value\n}\n```\n\n" +
		"- Indentation: tabs\n- Line length: no limit\n\n" +
		"| Verb | Meaning   |\n|------|-----------|\n| %v   | the value |\n| %T   | its type  |\n\n" +
		"a gopher ![Gopher](" + srv.URL + "/images/gopher.png)"
	want := result{Output: md, URL: srv.URL + "/doc/effective_go", Status: 200, ContentType: "text/html", Title: "Effective Go · Docs"}
	checkResult(t, out, want)

	if ua := got.Get("User-Agent"); !strings.Contains(ua, "ikigai-web-fetch") {
		t.Errorf("User-Agent %q does not name the tool", ua)
	}
	if ae := got.Get("Accept-Encoding"); ae != "gzip, br" {
		t.Errorf("Accept-Encoding %q, want gzip, br", ae)
	}

	raw := fetch(t, map[string]any{"url": srv.URL + "/doc/effective_go", "raw": true, "limit": 2})
	checkResult(t, raw, result{Output: "<!DOCTYPE html>\n<html lang=\"en\">\n", URL: srv.URL + "/doc/effective_go",
		Status: 200, ContentType: "text/html", NextOffset: 3})
}

// checkResult compares a result line with want, exactly.
func checkResult(t *testing.T, out string, want result) {
	t.Helper()
	var wantLine bytes.Buffer
	enc := json.NewEncoder(&wantLine)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(want); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantLine.String(), out); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
}

// checkError checks that out is an operation error with code, whose
// message matches the regular expression message.
func checkError(t *testing.T, out, code, message string) {
	t.Helper()
	var e struct {
		Error     string `json:"error"`
		ErrorCode string `json:"error_code"`
	}
	if err := json.Unmarshal([]byte(out), &e); err != nil || e.ErrorCode == "" {
		t.Fatalf("not an operation error: %.500s", out)
	}
	if e.ErrorCode != code {
		t.Errorf("error_code %s, want %s (%s)", e.ErrorCode, code, e.Error)
	}
	if !regexp.MustCompile("^" + message + "$").MatchString(e.Error) {
		t.Errorf("error %q\ndoes not match %q", e.Error, message)
	}
}

func TestFetchTextAndJSON(t *testing.T) {
	srv := serve(t, map[string]http.HandlerFunc{
		"/a.txt":    serveBody("text/plain; charset=utf-8", "line 1\nline 2\n"),
		"/data":     serveBody("application/json", `{"name":"ikigai","tools":["bash","grep"],"html":"<b>&</b>"}`),
		"/problem":  serveBody("application/problem+json", `{"title":"x"}`),
		"/bad.json": serveBody("application/json", `{"unterminated": `),
		"/markdown": serveBody("text/markdown", "# Title\n\nText\n"),
		"/unlabeled": func(w http.ResponseWriter, r *http.Request) {
			w.Header()["Content-Type"] = nil
			io.WriteString(w, "just text")
		},
	})
	tests := []struct {
		name string
		args map[string]any
		want result
	}{
		{"plain text passes through", map[string]any{"url": srv.URL + "/a.txt"},
			result{Output: "line 1\nline 2\n", ContentType: "text/plain"}},
		{"JSON is indented to read in windows", map[string]any{"url": srv.URL + "/data"},
			result{Output: "{\n  \"name\": \"ikigai\",\n  \"tools\": [\n    \"bash\",\n    \"grep\"\n  ],\n  \"html\": \"<b>&</b>\"\n}", ContentType: "application/json"}},
		{"raw JSON is as served", map[string]any{"url": srv.URL + "/data", "raw": true},
			result{Output: `{"name":"ikigai","tools":["bash","grep"],"html":"<b>&</b>"}`, ContentType: "application/json"}},
		{"a +json type is JSON", map[string]any{"url": srv.URL + "/problem"},
			result{Output: "{\n  \"title\": \"x\"\n}", ContentType: "application/problem+json"}},
		{"invalid JSON passes through", map[string]any{"url": srv.URL + "/bad.json"},
			result{Output: `{"unterminated": `, ContentType: "application/json"}},
		{"Markdown passes through", map[string]any{"url": srv.URL + "/markdown"},
			result{Output: "# Title\n\nText\n", ContentType: "text/markdown"}},
		{"no Content-Type: sniffed", map[string]any{"url": srv.URL + "/unlabeled"},
			result{Output: "just text", ContentType: "text/plain"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.want.URL, tt.want.Status = tt.args["url"].(string), 200
			checkResult(t, fetch(t, tt.args), tt.want)
		})
	}
}

func TestFetchContentTypes(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")
	srv := serve(t, map[string]http.HandlerFunc{
		"/pixel.png":  serveBody("image/png", string(png)),
		"/mislabeled": serveBody("application/octet-stream", string(png)),
		"/doc.pdf":    serveBody("application/pdf", "%PDF-1.7\n"),
		"/a.zip":      serveBody("application/zip", "PK\x03\x04"),
		"/icon":       serveBody("image/x-icon", "\x00\x00\x01\x00"),
		"/binary":     serveBody("text/plain", "text\x00with a NUL"),
		"/octets":     serveBody("application/octet-stream", "\x00\x01\x02\x03"),
		"/big.png":    serveBody("image/png", string(png)+strings.Repeat("\x00", maxImageBytes)),
		"/big-octets": serveBody("application/octet-stream", string(png)+strings.Repeat("\x00", maxImageBytes)),
	})
	checkResult(t, fetch(t, map[string]any{"url": srv.URL + "/pixel.png"}), result{
		Output: fmt.Sprintf("image/png, %d bytes", len(png)), URL: srv.URL + "/pixel.png", Status: 200, ContentType: "image/png",
		Images: []image{{MediaType: "image/png", Data: png}},
	})
	out := fetch(t, map[string]any{"url": srv.URL + "/pixel.png"})
	if want := `"images":[{"media_type":"image/png","data":"` + base64.StdEncoding.EncodeToString(png) + `"}]`; !strings.Contains(out, want) {
		t.Errorf("%s\ndoes not hold %s", out, want)
	}
	checkResult(t, fetch(t, map[string]any{"url": srv.URL + "/mislabeled"}), result{
		Output: fmt.Sprintf("image/png, %d bytes", len(png)), URL: srv.URL + "/mislabeled", Status: 200, ContentType: "image/png",
		Images: []image{{MediaType: "image/png", Data: png}},
	})

	for _, tt := range []struct{ path, code, message string }{
		{"/doc.pdf", codeUnsupported, `Error: fetching '.*/doc.pdf': PDF is not converted to text; download it with bash \(curl -sLo page.pdf URL\) and extract its text with a tool such as pdftotext`},
		{"/a.zip", codeUnsupported, `Error: fetching '.*/a.zip': application/zip content is not text, and cannot be shown`},
		{"/icon", codeUnsupported, `Error: fetching '.*/icon': image/x-icon content is not text, and cannot be shown`},
		{"/binary", codeUnsupported, `Error: fetching '.*/binary': served as text/plain but binary \(NUL byte at offset 4\)`},
		{"/octets", codeUnsupported, `Error: fetching '.*/octets': application/octet-stream content is not text, and cannot be shown`},
		{"/big.png", codeTooLarge, `Error: fetching '.*/big.png': the response is more than the 5 MiB that can be fetched`},
		{"/big-octets", codeTooLarge, `Error: fetching '.*/big-octets': the response is more than the 5 MiB that can be fetched`},
	} {
		t.Run(tt.path, func(t *testing.T) {
			checkError(t, fetch(t, map[string]any{"url": srv.URL + tt.path}), tt.code, tt.message)
		})
	}
}

func TestFetchRedirects(t *testing.T) {
	srv := serve(t, map[string]http.HandlerFunc{
		// /hops/N redirects N more times before the page.
		"/hops/{n}": func(w http.ResponseWriter, r *http.Request) {
			var n int
			fmt.Sscan(r.PathValue("n"), &n)
			if n == 0 {
				serveBody("text/plain", "arrived")(w, r)
				return
			}
			http.Redirect(w, r, fmt.Sprintf("/hops/%d", n-1), http.StatusFound)
		},
	})
	checkResult(t, fetch(t, map[string]any{"url": srv.URL + "/hops/5"}),
		result{Output: "arrived", URL: srv.URL + "/hops/0", Status: 200, ContentType: "text/plain"})
	checkError(t, fetch(t, map[string]any{"url": srv.URL + "/hops/6"}), codeTooManyRedirects,
		`Error: fetching '`+srv.URL+`/hops/6': stopped after 5 redirects`)
}

func TestFetchRefusesPrivateAddresses(t *testing.T) {
	srv := httptest.NewServer(serveBody("text/plain", "secret"))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]

	t.Setenv(envAllowPrivate, "")
	// A name is checked once resolved: localhost is 127.0.0.1 by then.
	checkError(t, fetch(t, map[string]any{"url": "http://localhost:" + port + "/"}), codePrivateAddress,
		`Error: fetching 'http://localhost:`+port+`/': localhost resolves to (127\.0\.0\.1|::1), a loopback address; `+
			`private, loopback and link-local addresses are refused \(set IKIGAI_WEB_ALLOW_PRIVATE=1 to allow them\)`)
	checkError(t, fetch(t, map[string]any{"url": srv.URL}), codePrivateAddress,
		`Error: fetching '`+srv.URL+`': 127.0.0.1 resolves to 127.0.0.1, a loopback address; .*`)
	t.Setenv(envAllowPrivate, "0")
	checkError(t, fetch(t, map[string]any{"url": srv.URL}), codePrivateAddress, `.*`)

	t.Setenv(envAllowPrivate, "1")
	checkResult(t, fetch(t, map[string]any{"url": srv.URL}),
		result{Output: "secret", URL: srv.URL, Status: 200, ContentType: "text/plain"})
}

// A redirect to a refused address is refused, however allowed the first
// address was. Here 127.0.0.1 stands for a public address and 127.0.0.2
// for a private one.
func TestFetchRefusesRedirectToPrivateAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Skipf("cannot listen on 127.0.0.2: %v", err)
	}
	var private atomic.Int32
	inside := &httptest.Server{Listener: ln, Config: &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		private.Add(1)
		io.WriteString(w, "secret")
	})}}
	inside.Start()
	defer inside.Close()
	outside := httptest.NewServer(http.RedirectHandler(inside.URL+"/admin", http.StatusFound))
	defer outside.Close()

	f, err := newFetcher("", "")
	if err != nil {
		t.Fatal(err)
	}
	f.refuse = func(a netip.Addr) string {
		if a == netip.MustParseAddr("127.0.0.2") {
			return "a private address"
		}
		return ""
	}
	f.client = f.newClient()
	_, err = f.run(t.Context(), params{URL: outside.URL + "/start"})
	var out bytes.Buffer
	json.NewEncoder(&out).Encode(err)
	checkError(t, out.String(), codePrivateAddress,
		`Error: fetching '`+inside.URL+`/admin': 127.0.0.2 resolves to 127.0.0.2, a private address; .*`)
	if n := private.Load(); n != 0 {
		t.Errorf("the private server was reached %d times", n)
	}
}

func TestPrivateAddress(t *testing.T) {
	for addr, want := range map[string]string{
		"127.0.0.1":        "a loopback address",
		"127.1.2.3":        "a loopback address",
		"::1":              "a loopback address",
		"::ffff:127.0.0.1": "a loopback address",
		"10.1.2.3":         "a private address",
		"172.16.0.1":       "a private address",
		"192.168.1.1":      "a private address",
		"fd00::1":          "a private address",
		"169.254.169.254":  "a link-local address",
		"fe80::1":          "a link-local address",
		"0.0.0.0":          "an unspecified address",
		"0.1.2.3":          "an unspecified address",
		"::":               "an unspecified address",
		"100.100.100.200":  "a carrier-grade NAT address",
		"224.0.0.1":        "a link-local address",
		"239.1.2.3":        "a multicast or broadcast address",
		"255.255.255.255":  "a multicast or broadcast address",
		"8.8.8.8":          "",
		"172.32.0.1":       "",
		"2001:4860::8888":  "",
	} {
		if got := privateAddress(netip.MustParseAddr(addr)); got != want {
			t.Errorf("privateAddress(%s) = %q, want %q", addr, got, want)
		}
	}
}

func TestFetchDeadline(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	srv := serve(t, map[string]http.HandlerFunc{
		// /slow sends the start of a page, then nothing until the client gives up.
		"/slow": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, "<title>Slow</title><h1>Part one</h1><p>first paragraph</p>")
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
			case <-release:
			}
		},
		"/silent": func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-release:
			}
		},
	})
	out := fetch(t, map[string]any{"url": srv.URL + "/slow"}, tooltest.WithTimeout(time.Second))
	checkResult(t, out, result{Output: "# Part one\n\nfirst paragraph", URL: srv.URL + "/slow", Status: 200,
		ContentType: "text/html", Title: "Slow", Truncated: true, TimedOut: true})

	out = fetch(t, map[string]any{"url": srv.URL + "/silent"}, tooltest.WithTimeout(time.Second))
	checkError(t, out, "TIMEOUT", `Error: fetching '`+srv.URL+`/silent': no response after [0-9.]+ s`)
}

func TestFetchSizeCap(t *testing.T) {
	var written atomic.Int64
	huge := func(declare bool) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			if declare {
				w.Header().Set("Content-Length", fmt.Sprint(50<<20))
			}
			chunk := bytes.Repeat([]byte("0123456789abcde\n"), 4096)
			for range (50 << 20) / len(chunk) {
				n, err := w.Write(chunk)
				written.Add(int64(n))
				if err != nil {
					return
				}
			}
		}
	}
	srv := serve(t, map[string]http.HandlerFunc{"/declared": huge(true), "/streamed": huge(false)})
	for _, path := range []string{"/declared", "/streamed"} {
		t.Run(path, func(t *testing.T) {
			written.Store(0)
			checkError(t, fetch(t, map[string]any{"url": srv.URL + path}), codeTooLarge,
				`Error: fetching '`+srv.URL+path+`': the response is more than the 10 MiB that can be fetched`)
			srv.CloseClientConnections()
			if n := written.Load(); n >= 50<<20 {
				t.Errorf("the server sent all %d bytes", n)
			}
		})
	}

	t.Setenv(envMaxBytes, "10")
	checkError(t, fetch(t, map[string]any{"url": srv.URL + "/streamed"}), codeTooLarge,
		`Error: fetching '`+srv.URL+`/streamed': the response is more than the 10 bytes that can be fetched`)
	t.Setenv(envMaxBytes, "ten")
	checkError(t, fetch(t, map[string]any{"url": srv.URL + "/streamed"}), "INVALID_CONFIG",
		`Error: IKIGAI_WEB_FETCH_MAX_BYTES="ten" is not a positive number of bytes`)
}

func TestFetchCompressed(t *testing.T) {
	const html = "<title>Zipped</title><p>compressed <b>text</b></p>"
	compressed := func(encoding string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.Header().Set("Content-Encoding", encoding)
			var zw io.WriteCloser
			switch encoding {
			case "gzip":
				zw = gzip.NewWriter(w)
			case "br":
				zw = brotli.NewWriter(w)
			default:
				zw = nopCloser{w}
			}
			io.WriteString(zw, html)
			zw.Close()
		}
	}
	srv := serve(t, map[string]http.HandlerFunc{
		"/gzip": compressed("gzip"), "/br": compressed("br"), "/zstd": compressed("zstd"),
		"/broken": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Encoding", "gzip")
			io.WriteString(w, "not gzip at all")
		},
	})
	for _, enc := range []string{"gzip", "br"} {
		t.Run(enc, func(t *testing.T) {
			checkResult(t, fetch(t, map[string]any{"url": srv.URL + "/" + enc}), result{
				Output: "compressed **text**", URL: srv.URL + "/" + enc, Status: 200, ContentType: "text/html", Title: "Zipped"})
		})
	}
	checkError(t, fetch(t, map[string]any{"url": srv.URL + "/zstd"}), codeFetchFailed,
		`Error: fetching '`+srv.URL+`/zstd': the response has Content-Encoding "zstd", which is not supported`)
	checkError(t, fetch(t, map[string]any{"url": srv.URL + "/broken"}), codeFetchFailed,
		`Error: fetching '`+srv.URL+`/broken': gzip: invalid header`)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

func TestFetchCharsets(t *testing.T) {
	srv := serve(t, map[string]http.HandlerFunc{
		// "Café – €5" in each encoding.
		"/meta":       serveBody("text/html", "<meta charset=\"iso-8859-1\"><title>Caf\xe9</title><p>Caf\xe9</p>"),
		"/header":     serveBody("text/html; charset=windows-1252", "<p>Caf\xe9 \x96 \x805</p>"),
		"/sjis":       serveBody("text/plain; charset=Shift_JIS", "\x93\xfa\x96\x7b\x8c\xea"),
		"/undeclared": serveBody("text/plain", "Caf\xe9"),
		// Valid UTF-8 past the first kilobyte, with no charset declared.
		"/late-utf8": serveBody("text/plain", strings.Repeat("a", 2000)+"Café"),
		"/bom":       serveBody("text/plain", "\xef\xbb\xbfCafé"),
	})
	for path, want := range map[string]string{
		"/meta":       "Café",
		"/header":     "Café – €5",
		"/sjis":       "日本語",
		"/undeclared": "Café",
		"/late-utf8":  strings.Repeat("a", 2000) + "Café",
		"/bom":        "Café",
	} {
		t.Run(path, func(t *testing.T) {
			var res result
			if err := json.Unmarshal([]byte(fetch(t, map[string]any{"url": srv.URL + path})), &res); err != nil {
				t.Fatal(err)
			}
			if res.Output != want {
				t.Errorf("output %q, want %q", res.Output, want)
			}
		})
	}
}

func TestFetchWindows(t *testing.T) {
	var text strings.Builder
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&text, "line %d of a long page\n", i)
	}
	srv := serve(t, map[string]http.HandlerFunc{"/long.txt": serveBody("text/plain", text.String())})
	url := srv.URL + "/long.txt"
	base := result{URL: url, Status: 200, ContentType: "text/plain"}

	// A whole page does not fit: the first lines that do, and where to go on.
	var first result
	if err := json.Unmarshal([]byte(fetch(t, map[string]any{"url": url})), &first); err != nil {
		t.Fatal(err)
	}
	if !first.Truncated || first.NextOffset < 100 || output.EncodedLen(first.Output) > output.DefaultBudget {
		t.Fatalf("truncated %v, next_offset %d, %d bytes", first.Truncated, first.NextOffset, len(first.Output))
	}
	if want := strings.Count(first.Output, "\n"); first.NextOffset != want+1 {
		t.Errorf("next_offset %d after %d lines", first.NextOffset, want)
	}

	want := base
	want.Output, want.NextOffset = "line 2 of a long page\nline 3 of a long page\n", 4
	checkResult(t, fetch(t, map[string]any{"url": url, "offset": 2, "limit": 2}), want)
	want.Output, want.NextOffset = "line 5000 of a long page\n", 0
	checkResult(t, fetch(t, map[string]any{"url": url, "offset": 5000}), want)
	want.Output = ""
	checkResult(t, fetch(t, map[string]any{"url": url, "offset": 6000}), want)
}

func TestFetchErrors(t *testing.T) {
	srv := serve(t, map[string]http.HandlerFunc{
		"/missing": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"message": "no such page"}`)
		},
		"/gone": func(w http.ResponseWriter, r *http.Request) { http.Error(w, "", http.StatusGone) },
		"/error": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(500)
			io.WriteString(w, "<h1>oops</h1>")
		},
		"/redirect": func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "ftp://example.com/", http.StatusFound)
		},
	})
	closed := httptest.NewServer(nil)
	closed.Close()
	for _, tt := range []struct{ url, code, message string }{
		{srv.URL + "/missing", codeHTTPError, `Error: fetching '` + srv.URL + `/missing': HTTP 404 Not Found: \{"message": "no such page"\}`},
		{srv.URL + "/gone", codeHTTPError, `Error: fetching '` + srv.URL + `/gone': HTTP 410 Gone`},
		{srv.URL + "/error", codeHTTPError, `Error: fetching '` + srv.URL + `/error': HTTP 500 Internal Server Error`},
		{srv.URL + "/redirect", codeFetchFailed, `Error: fetching 'ftp://example.com/': unsupported protocol scheme "ftp"`},
		{closed.URL + "/", codeFetchFailed, `Error: fetching '` + closed.URL + `/': dial tcp 127.0.0.1:[0-9]+: connect: connection refused`},
		{"go.dev/doc", codeInvalidURL, `Error: fetching 'go.dev/doc': not an absolute URL; it must start with http:// or https://`},
		{"ftp://go.dev/", codeInvalidURL, `Error: fetching 'ftp://go.dev/': the ftp scheme is not fetched; only http and https are`},
		{"file:///etc/passwd", codeInvalidURL, `Error: fetching 'file:///etc/passwd': the file scheme is not fetched; only http and https are`},
		{"http:///path", codeInvalidURL, `Error: fetching 'http:///path': the URL has no host`},
		{"http://a b/", codeInvalidURL, `Error: fetching 'http://a b/': invalid character " " in host name`},
		{"http://x/" + strings.Repeat("a", maxURL), codeInvalidURL, `Error: fetching: the URL is 8201 bytes long, more than 8192`},
	} {
		t.Run(tt.url[:min(len(tt.url), 40)], func(t *testing.T) {
			checkError(t, fetch(t, map[string]any{"url": tt.url}), tt.code, tt.message)
		})
	}
}

func TestFetchInputErrors(t *testing.T) {
	for input, want := range map[string]string{
		`{}`:                                "web-fetch-tool: missing or invalid url field\n",
		`{"url": 3}`:                        "web-fetch-tool: missing or invalid url field\n",
		`{"url": "http://x", "offset": -1}`: "web-fetch-tool: missing or invalid offset field\n",
		`{"url": "http://x", "limit": -1}`:  "web-fetch-tool: missing or invalid limit field\n",
		`{"url": "http://x", "raw": "yes"}`: "web-fetch-tool: missing or invalid raw field\n",
	} {
		res := tooltest.Call(t, tool, input)
		if res.ExitCode != 1 || res.Stderr != want || res.Stdout != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1, stderr %q", input, res.ExitCode, res.Stdout, res.Stderr, want)
		}
	}
}

// The context a signal cancels ends a fetch with CANCELLED.
func TestFetchCancelled(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	srv := serve(t, map[string]http.HandlerFunc{"/": func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	}})
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(50*time.Millisecond, cancel)
	var out bytes.Buffer
	tool.Run(ctx, nil, strings.NewReader(`{"url":"`+srv.URL+`"}`), &out, io.Discard)
	checkError(t, out.String(), "CANCELLED", `Error: interrupted before finishing`)
}
