// Command ikigai-markdown renders Markdown for ikigai's terminal UI: one
// JSON request a line on stdin ({"text", "width"}), one JSON response a
// line on stdout ({"text"} or {"error"}). It is a program of its own so
// that the renderer's start-up (its syntax highlighter builds its tables
// when it loads) is paid once per session, in the background, and never
// by ikigai's other commands.
package main

import (
	"bufio"
	"encoding/json"
	"os"

	"charm.land/glamour/v2"
	"charm.land/glamour/v2/ansi"
	"charm.land/glamour/v2/styles"

	"github.com/ikigai-tools/ikigai/internal/markdown"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 0, 64<<10), 16<<20)
	out := json.NewEncoder(os.Stdout)
	renderers := map[int]*glamour.TermRenderer{}
	for in.Scan() {
		var req markdown.Request
		var res markdown.Response
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			res.Error = err.Error()
		} else {
			r := renderers[req.Width]
			if r == nil {
				r, err = glamour.NewTermRenderer(glamour.WithStyles(style()), glamour.WithWordWrap(max(req.Width-4, 20)))
				if err != nil {
					res.Error = err.Error()
				}
				renderers[req.Width] = r
			}
			if r != nil {
				if res.Text, err = r.Render(req.Text); err != nil {
					res.Error = err.Error()
				}
			}
		}
		if out.Encode(res) != nil {
			return
		}
	}
}

// style is glamour's dark style with the text in the terminal's own
// colour, so that it reads on light backgrounds as on dark ones: bold,
// italics and headings stand out by weight, code by its highlighting.
func style() ansi.StyleConfig {
	s := styles.DarkStyleConfig
	s.Document.Color = nil
	s.Paragraph.Color = nil
	s.Text.Color = nil
	s.Code.BackgroundColor = nil
	return s
}
