package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ikigai-tools/ikigai/internal/markdown"
)

func init() {
	register("repl: rendering a streamed Markdown answer", benchMarkdown)
}

// benchMarkdown streams a 2,000-line Markdown answer in pieces of 16 bytes
// (about four tokens) through the splitter and the ikigai-markdown helper,
// as the terminal UI does, and times each piece's work, against the 20 ms
// between pieces of a stream of 200 tokens a second.
func benchMarkdown(b *bench) error {
	helper := filepath.Join(b.root, "libexec", "ikigai", markdown.HelperName)
	var doc strings.Builder
	for i := 0; doc.Len() == 0 || strings.Count(doc.String(), "\n") < 2000; i++ {
		switch i % 4 {
		case 0:
			fmt.Fprintf(&doc, "## Part %d\n\nSome **bold** text and `code`, with a sentence long enough to wrap at eighty columns in a terminal.\n\n", i)
		case 1:
			doc.WriteString("- one item\n- another item, longer, with *emphasis*\n\n")
		case 2:
			doc.WriteString("```go\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n```\n\n")
		case 3:
			doc.WriteString("| name | size |\n|------|------|\n| a.go | 12 |\n| b.go | 34 |\n\n")
		}
	}
	text := doc.String()
	var times []time.Duration
	for run := range b.Runs(3) + 1 {
		r := markdown.Start(helper)
		if r == nil {
			return fmt.Errorf("%s does not run: make build first", helper)
		}
		var s markdown.Splitter
		for i := 0; i < len(text); i += 16 {
			start := time.Now()
			for _, block := range s.Write(text[i:min(i+16, len(text))]) {
				if _, err := r.Render(block, 100); err != nil {
					r.Close()
					return err
				}
			}
			if run > 0 { // the first run warms the helper up
				times = append(times, time.Since(start))
			}
		}
		r.Close()
	}
	slices.Sort(times)
	pct := func(p float64) time.Duration { return times[min(len(times)-1, int(p*float64(len(times))))] }
	budget := 20 * time.Millisecond
	b.Printf("A %d-line answer (%d KiB) streamed in pieces of 16 bytes, about 4 tokens each, through the block splitter and the ikigai-markdown helper at 100 columns, %d pieces: the work each piece costs the terminal UI.\n\n",
		strings.Count(text, "\n"), len(text)>>10, len(times))
	b.Printf("| measure | per piece | share of the 20 ms between pieces at 200 tokens/s | target |\n|---|---|---|---|\n")
	for _, m := range []struct {
		name string
		d    time.Duration
	}{{"median", pct(0.5)}, {"99th percentile", pct(0.99)}, {"worst", times[len(times)-1]}} {
		target := ""
		if m.name == "99th percentile" {
			target = "keeps up (< 20 ms): " + Verdict(m.d < budget)
		}
		b.Printf("| %s | %s | %.1f%% | %s |\n", m.name, Dur(m.d), 100*float64(m.d)/float64(budget), target)
	}
	b.Printf("\n")
	return nil
}
