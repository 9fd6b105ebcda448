package main

import (
	"bytes"
	"strings"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// page is an HTML document converted for a model to read.
type page struct {
	title    string
	markdown string
}

// convertHTML turns an HTML document (UTF-8) into Markdown: the page's main
// content when it marks one (<main>, or a single <article>), without
// scripts, styles, navigation, headers and footers of the page, forms or
// hidden elements. Relative links are made absolute against baseURL.
func convertHTML(src []byte, baseURL string) (page, error) {
	doc, err := html.Parse(bytes.NewReader(src))
	if err != nil {
		// The parser refuses elements nested more than 512 deep; the
		// page's text is still worth having.
		return page{markdown: plainText(src)}, nil
	}
	p := page{title: title(doc)}
	root := contentRoot(doc)
	prune(root, root.DataAtom == atom.Body)
	// The converter is built here, not at start-up: --schema never pays for it.
	conv := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(),
		strikethrough.NewStrikethroughPlugin(),
	))
	md, err := conv.ConvertNode(root, converter.WithDomain(baseURL))
	if err != nil {
		return page{}, err
	}
	p.markdown = strings.ToValidUTF8(string(md), "\uFFFD")
	return p, nil
}

// title returns the text of the document's <title>, whitespace collapsed.
func title(doc *html.Node) string {
	var found string
	walk(doc, func(n *html.Node) bool {
		if found != "" || n.DataAtom == atom.Svg || n.DataAtom == atom.Body {
			return false
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.Title {
			found = strings.ToValidUTF8(strings.Join(strings.Fields(text(n)), " "), "\uFFFD")
			return false
		}
		return true
	})
	return found
}

// contentRoot returns the element that holds the page's content: its one
// <main> (or role="main"), else its one <article>, else <body>.
func contentRoot(doc *html.Node) *html.Node {
	var mains, articles []*html.Node
	var body *html.Node
	walk(doc, func(n *html.Node) bool {
		if n.Type != html.ElementNode {
			return true
		}
		switch {
		case n.DataAtom == atom.Main || attr(n, "role") == "main":
			mains = append(mains, n)
			return false
		case n.DataAtom == atom.Article:
			articles = append(articles, n)
			return false
		case n.DataAtom == atom.Body:
			body = n
		}
		return true
	})
	switch {
	case len(mains) == 1:
		return mains[0]
	case len(mains) == 0 && len(articles) == 1:
		return articles[0]
	case body != nil:
		return body
	}
	return doc
}

// dropped are elements that are never content.
var dropped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Iframe: true, atom.Object: true, atom.Embed: true, atom.Svg: true, atom.Canvas: true,
	atom.Nav: true, atom.Aside: true, atom.Form: true, atom.Button: true, atom.Select: true,
	atom.Input: true, atom.Textarea: true, atom.Dialog: true, atom.Link: true, atom.Meta: true,
}

// droppedRoles are ARIA roles of navigation and page chrome.
var droppedRoles = map[string]bool{
	"navigation": true, "banner": true, "contentinfo": true, "complementary": true,
	"search": true, "menu": true, "menubar": true, "dialog": true, "alertdialog": true,
}

// prune removes what is not content from the tree under root. The page's
// own <header> and <footer> go too when root is the whole body; inside an
// article they are the article's.
func prune(root *html.Node, pageChrome bool) {
	var visit func(n *html.Node, inArticle bool)
	visit = func(n *html.Node, inArticle bool) {
		for c := n.FirstChild; c != nil; {
			next := c.NextSibling
			switch {
			case c.Type == html.CommentNode:
				n.RemoveChild(c)
			case c.Type != html.ElementNode:
			case dropped[c.DataAtom] || droppedRoles[attr(c, "role")] || hidden(c):
				n.RemoveChild(c)
			case pageChrome && !inArticle && (c.DataAtom == atom.Header || c.DataAtom == atom.Footer):
				n.RemoveChild(c)
			case c.DataAtom == atom.Img && strings.HasPrefix(strings.TrimSpace(attr(c, "src")), "data:"):
				// An inline image's data is no use as text; its alt text is.
				if alt := attr(c, "alt"); alt != "" {
					n.InsertBefore(&html.Node{Type: html.TextNode, Data: alt}, c)
				}
				n.RemoveChild(c)
			default:
				visit(c, inArticle || c.DataAtom == atom.Article || c.DataAtom == atom.Main)
			}
			c = next
		}
	}
	visit(root, false)
}

// hidden reports whether an element is hidden from readers of the page.
func hidden(n *html.Node) bool {
	for _, a := range n.Attr {
		switch {
		case a.Namespace != "":
		case a.Key == "hidden", a.Key == "aria-hidden" && a.Val == "true":
			return true
		case a.Key == "style":
			style := strings.ReplaceAll(strings.ToLower(a.Val), " ", "")
			if strings.Contains(style, "display:none") || strings.Contains(style, "visibility:hidden") {
				return true
			}
		}
	}
	return false
}

// walk visits n and its descendants in document order; visit returns
// whether to descend into a node's children.
func walk(n *html.Node, visit func(*html.Node) bool) {
	if !visit(n) {
		return
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, visit)
	}
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val
		}
	}
	return ""
}

func text(n *html.Node) string {
	var b strings.Builder
	walk(n, func(c *html.Node) bool {
		if c.Type == html.TextNode {
			b.WriteString(c.Data)
		}
		return true
	})
	return b.String()
}

// plainText returns the text of an HTML document that cannot be parsed
// into a tree: its text outside scripts, styles and the title, a line
// per block.
func plainText(src []byte) string {
	var b strings.Builder
	z := html.NewTokenizer(bytes.NewReader(src))
	skip := 0 // inside a script, style or title
	for {
		switch tt := z.Next(); tt {
		case html.ErrorToken:
			return strings.ToValidUTF8(strings.TrimSpace(b.String()), "\uFFFD")
		case html.TextToken:
			if skip == 0 {
				if words := strings.Fields(string(z.Text())); len(words) > 0 {
					if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
						b.WriteByte(' ')
					}
					b.WriteString(strings.Join(words, " "))
				}
			}
		case html.StartTagToken, html.EndTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			if a == atom.Script || a == atom.Style || a == atom.Title || a == atom.Noscript || a == atom.Template {
				if tt == html.StartTagToken {
					skip++
				} else if skip > 0 {
					skip--
				}
			} else if block[a] && b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
				b.WriteByte('\n')
			}
		}
	}
}

// block are the elements that end a line of plainText.
var block = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Br: true, atom.Li: true, atom.Tr: true, atom.Pre: true,
	atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
	atom.Section: true, atom.Article: true, atom.Blockquote: true, atom.Table: true,
}
