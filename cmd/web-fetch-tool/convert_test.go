package main

import (
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestConvertHTML(t *testing.T) {
	docs, err := os.ReadFile("testdata/docs.html")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, html string
		base       string // default https://example.com/blog/post.html
		want       page
	}{
		{
			name: "a documentation page: its <main>, without the page's chrome",
			html: string(docs),
			base: "https://go.dev/doc/effective_go",
			want: page{title: "Effective Go · Docs", markdown: "# Effective Go\n\n" +
				"Go is a *new* language. See the [specification](https://go.dev/ref/spec) and [package fmt](https://pkg.go.dev/fmt).\n\n" +
				"## Formatting\n\nRun `gofmt` on your code:\n\n" +
				"```go\ntype T struct {\n    name  string // name of the object\n    value int    // its value\n}\n```\n\n" +
				"- Indentation: tabs\n- Line length: no limit\n\n" +
				"| Verb | Meaning   |\n|------|-----------|\n| %v   | the value |\n| %T   | its type  |\n\n" +
				"a gopher ![Gopher](https://go.dev/images/gopher.png)"},
		},
		{
			name: "no <main>: the body, without its header, footer and navigation",
			html: `<title>Blog</title><body><header><h1>Site name</h1></header><nav><a href="/">Home</a></nav>` +
				`<h2>Post</h2><p>Text with <a href="next.html">a link</a>.</p><footer>© me</footer></body>`,
			want: page{title: "Blog", markdown: "## Post\n\nText with [a link](https://example.com/blog/next.html)."},
		},
		{
			name: "one <article>: an article's own header and footer stay",
			html: `<body><div>Menu</div><article><header><h1>Title</h1></header><p>Body.</p><footer>By Ann</footer></article>` +
				`<div role="contentinfo">Site footer</div></body>`,
			want: page{markdown: "# Title\n\nBody.\n\nBy Ann"},
		},
		{
			name: "several articles: the whole body",
			html: `<article><p>One</p></article><article><p>Two</p></article>`,
			want: page{markdown: "One\n\nTwo"},
		},
		{
			name: "hidden and ARIA-hidden elements go",
			html: `<p>Seen</p><p aria-hidden="true">Unseen</p><div style="visibility: hidden">Unseen</div><p hidden>Unseen</p>`,
			want: page{markdown: "Seen"},
		},
		{
			name: "a <title> in an SVG is not the page's",
			html: `<body><svg><title>Icon</title></svg><p>x</p></body>`,
			want: page{markdown: "x"},
		},
		{
			name: "preformatted text without a language",
			html: "<pre>line 1\n  line 2</pre>",
			want: page{markdown: "```\nline 1\n  line 2\n```"},
		},
		{
			name: "empty",
			html: "",
			want: page{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := tt.base
			if base == "" {
				base = "https://example.com/blog/post.html"
			}
			got, err := convertHTML([]byte(tt.html), base)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(page{})); diff != "" {
				t.Errorf("convertHTML (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzConvertHTML checks that any input converts without a panic or an
// error, to valid UTF-8, and that the title is one line.
func FuzzConvertHTML(f *testing.F) {
	docs, err := os.ReadFile("testdata/docs.html")
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		string(docs),
		"<main><main><article>x</article></main>",
		"<table><tr><td><pre><code>a\x00b</code></pre></table>",
		"<title>a\nb</title><img src='data:x' alt='\xff'>",
		"<ul><li><ol><li><blockquote>q</blockquote></ol></ul>",
		"<a href='javascript:alert(1)'>x</a><a href=':::'>y</a>",
		"\xfe\xff<p>\xc3(</p>",
		strings.Repeat("<div>", 600) + "deep",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		p, err := convertHTML(src, "https://example.com/a/b")
		if err != nil {
			t.Fatalf("convertHTML: %v", err)
		}
		if !utf8.ValidString(p.markdown) || !utf8.ValidString(p.title) {
			t.Errorf("invalid UTF-8: %q %q", p.title, p.markdown)
		}
		if strings.ContainsAny(p.title, "\n\t") {
			t.Errorf("title %q is not one line", p.title)
		}
	})
}

func TestConvertHTMLTooDeep(t *testing.T) {
	src := "<title>T</title><script>x()</script>" + strings.Repeat("<div>", 600) + "<p>deep <b>text</b></p><style>p{}</style><p>more</p>"
	got, err := convertHTML([]byte(src), "https://example.com/")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(page{markdown: "deep text\nmore"}, got, cmp.AllowUnexported(page{})); diff != "" {
		t.Errorf("convertHTML (-want +got):\n%s", diff)
	}
}
