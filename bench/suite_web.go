package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
)

func init() {
	register("web-fetch: a 1 MiB HTML page from loopback", benchWebFetch)
}

// benchWebFetch fetches a 1 MiB documentation-like HTML page from a
// loopback server with web-fetch-tool, which converts it to Markdown, next
// to curl piped into pandoc (the same job with two programs), or curl
// alone where pandoc is not installed.
func benchWebFetch(b *bench) error {
	page := docsPage(1 << 20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write(page)
	}))
	defer srv.Close()
	url := srv.URL + "/guide.html"
	b.Printf("Page: %d KiB of HTML (navigation, headings, paragraphs with links, code blocks, tables), served from loopback. "+
		"web-fetch-tool returns the first window (32 KiB) of the Markdown, having converted all of it.\n\n", len(page)>>10)

	input, _ := json.Marshal(map[string]any{"url": url})
	tool := Cmd{Label: "web-fetch-tool", Argv: []string{b.Tool("web-fetch")}, Stdin: input,
		Env: []string{"IKIGAI_WEB_ALLOW_PRIVATE=1"}, Check: func(out []byte) error {
			var res struct {
				Output     string `json:"output"`
				NextOffset int    `json:"next_offset"`
			}
			if err := json.Unmarshal(out, &res); err != nil || !strings.HasPrefix(res.Output, "# Guide") || res.NextOffset == 0 {
				return fmt.Errorf("not the converted page: %.200s", out)
			}
			return nil
		}}
	cmds := []Cmd{tool}
	peer := ""
	if _, err := exec.LookPath("pandoc"); err == nil && b.Have("curl", "curl") {
		peer = "curl -s, piped to pandoc -f html -t gfm"
		cmds = append(cmds, Cmd{Label: peer, Argv: []string{"sh", "-c", `curl -s "$1" | pandoc -f html -t gfm`, "sh", url}})
	} else if b.Have("curl", "curl") {
		b.Printf("`pandoc` is not installed (Debian package pandoc): curl alone is the peer.\n\n")
		peer = "curl -s"
		cmds = append(cmds, Cmd{Label: peer, Argv: []string{"curl", "-s", url}})
	}
	samples, err := Compare(b.Runs(10), cmds...)
	if err != nil {
		return err
	}
	rss := samples[0].MaxRSS
	b.Table(samples, map[string]string{"web-fetch-tool": fmt.Sprintf("peak RSS < 64 MiB: %s %s", KiB(rss), Verdict(rss < 64<<10))})
	return nil
}

// docsPage returns an HTML page of about size bytes that looks like a
// documentation site's: a header and navigation, then sections of prose
// with links, inline code, code blocks, lists and tables.
func docsPage(size int) []byte {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>Guide</title>` +
		`<style>body{font-family:sans-serif}</style><script>window.x=1</script></head><body>` +
		`<header><a href="/">Home</a></header><nav><ul>`)
	for i := range 50 {
		fmt.Fprintf(&b, `<li><a href="/docs/%d">Section %d</a></li>`, i, i)
	}
	b.WriteString(`</ul></nav><main><h1>Guide</h1>`)
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, `<h2 id="s%d">Section %d</h2>`, i, i)
		fmt.Fprintf(&b, `<p>Section %d explains <a href="/ref/%d">the reference</a> and <code>Func%d</code>, `+
			`with <em>emphasis</em> and <strong>strong</strong> words, in a paragraph long enough to wrap `+
			`on most screens, as documentation paragraphs do.</p>`, i, i, i)
		fmt.Fprintf(&b, "<pre><code class=\"language-go\">func Func%d(ctx context.Context) error {\n"+
			"\tif err := step(ctx); err != nil {\n\t\treturn fmt.Errorf(\"step %d: %%w\", err)\n\t}\n\treturn nil\n}\n</code></pre>", i, i)
		fmt.Fprintf(&b, `<ul><li>First point of %d</li><li>Second point, with <a href="#s%d">a link</a></li></ul>`, i, i)
		fmt.Fprintf(&b, `<table><tr><th>Name</th><th>Value</th></tr><tr><td>a%d</td><td>%d</td></tr><tr><td>b%d</td><td>%d</td></tr></table>`, i, i, i, i*2)
	}
	b.WriteString(`</main><footer>Copyright</footer></body></html>`)
	return []byte(b.String())
}
