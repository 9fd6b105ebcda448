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
	"math"
	"os"
	"regexp"
	"strings"

	"charm.land/glamour/v2"
	gansi "charm.land/glamour/v2/ansi"
	"charm.land/glamour/v2/styles"

	"github.com/charmbracelet/x/ansi"

	"github.com/ikigai-tools/ikigai/internal/markdown"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 0, 64<<10), 16<<20)
	out := json.NewEncoder(os.Stdout)
	renderers := map[int]*glamour.TermRenderer{}
	renderer := func(wrap int) (*glamour.TermRenderer, error) {
		if r := renderers[wrap]; r != nil {
			return r, nil
		}
		r, err := glamour.NewTermRenderer(glamour.WithStyles(style()), glamour.WithWordWrap(wrap))
		renderers[wrap] = r
		return r, err
	}
	for in.Scan() {
		var req markdown.Request
		var res markdown.Response
		err := json.Unmarshal(in.Bytes(), &req)
		if err == nil {
			res.Text, err = render(renderer, req)
		}
		if err != nil {
			res.Error = err.Error()
		}
		if out.Encode(res) != nil {
			return
		}
	}
}

// render renders one block. A list is rendered with its items on a line
// each and wrapped here, so that an item's wrapped lines hang under its
// text rather than under its bullet.
func render(renderer func(int) (*glamour.TermRenderer, error), req markdown.Request) (string, error) {
	width := max(req.Width-4, 20)
	if !list.MatchString(req.Text) {
		r, err := renderer(min(width, tableWidth(req.Text)))
		if err != nil {
			return "", err
		}
		return r.Render(req.Text)
	}
	r, err := renderer(1000) // an item a line
	if err != nil {
		return "", err
	}
	text, err := r.Render(req.Text)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, line := range markdown.Trim(text) {
		m := item.FindStringSubmatch(ansi.Strip(line))
		if m == nil || ansi.StringWidth(line) <= width {
			b.WriteString(line + "\n")
			continue
		}
		hang := strings.Repeat(" ", ansi.StringWidth(m[0]))
		rows := strings.Split(ansi.Wrap(line, width, ""), "\n")
		for i, row := range rows {
			if i > 0 {
				row = hang + strings.TrimLeft(row, " ")
			}
			b.WriteString(row + "\n")
		}
	}
	return b.String(), nil
}

// tableWidth is the width a table needs to show its cells unwrapped, as
// far as their source tells (emphasis marks count, so it errs wide), when
// text is a table; a very large number when it is not. The renderer
// stretches a table to the width it is given: a table of two short columns
// would otherwise span the screen.
func tableWidth(text string) int {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if len(lines) < 2 || !delimiterRow.MatchString(lines[1]) {
		return math.MaxInt
	}
	var cols []int
	for _, line := range lines {
		line = strings.TrimSpace(line)
		line = strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|")
		for i, cell := range strings.Split(line, "|") {
			if i == len(cols) {
				cols = append(cols, 0)
			}
			cols[i] = max(cols[i], ansi.StringWidth(strings.TrimSpace(cell)))
		}
	}
	total := 0
	for _, w := range cols {
		total += w + 4 // its margins, the separator after it, and room to align its text
	}
	return total
}

var (
	// delimiterRow matches the line under a table's header: | --- | :-: |.
	delimiterRow = regexp.MustCompile(`^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$`)
	// list matches a block that is a list.
	list = regexp.MustCompile(`^\s*([-*+]|\d+[.)])\s`)
	// item matches the start of a rendered list item: its margin and mark.
	item = regexp.MustCompile(`^\s*(•|\d+\.)\s+`)
)

// style is glamour's dark style with the text in the terminal's own
// colour, so that it reads on light backgrounds as on dark ones: bold,
// italics and headings stand out by weight, code by its highlighting.
func style() gansi.StyleConfig {
	s := styles.DarkStyleConfig
	s.Document.Color = nil
	s.Paragraph.Color = nil
	s.Text.Color = nil
	s.Code.BackgroundColor = nil
	return s
}
