package display

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ikigai-tools/ikigai/internal/registry"
)

// ToolList is the listing of `ikigai tools --json`: the usable tools, the
// failed ones with why, and those not run because their directory is not
// trusted. Every list is present, empty or not.
type ToolList struct {
	Tools     []ListedTool       `json:"tools"`
	Failed    []registry.Failure `json:"failed"`
	Untrusted []registry.Entry   `json:"untrusted"`
}

// ListedTool is one usable tool of a ToolList.
type ListedTool struct {
	registry.Entry
	Description string           `json:"description"`
	Shadows     []registry.Entry `json:"shadows,omitempty"`
	Warnings    []string         `json:"warnings,omitempty"`
}

// NewToolList returns the listing of r.
func NewToolList(r *registry.Registry) ToolList {
	l := ToolList{Tools: []ListedTool{}, Failed: r.Failed(), Untrusted: r.Untrusted()}
	for _, t := range r.Tools() {
		l.Tools = append(l.Tools, ListedTool{t.Entry, t.Schema.Description, t.Shadows, t.Warnings})
	}
	if l.Failed == nil {
		l.Failed = []registry.Failure{}
	}
	if l.Untrusted == nil {
		l.Untrusted = []registry.Entry{}
	}
	return l
}

// WriteListing writes the listing of `ikigai tools` to w: a line per usable
// tool with its source, path and what it shadows, then sections for the
// warnings, the failed tools and the untrusted ones. When there is no
// usable tool, a line on stderr says where none was found. changed says the
// project is not trusted because it changed since the user trusted it.
func WriteListing(w, stderr io.Writer, r *registry.Registry, places []string, changed bool) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, t := range r.Tools() {
		line := t.Name + "\t" + string(t.Source) + "\t" + t.Path
		if len(t.Shadows) > 0 {
			var hidden []string
			for _, s := range t.Shadows {
				hidden = append(hidden, string(s.Source)+" "+s.Path)
			}
			line += "\t(shadows " + strings.Join(hidden, ", ") + ")"
		}
		fmt.Fprintln(tw, line)
	}
	if len(r.Tools()) == 0 {
		fmt.Fprintf(stderr, "No usable tools in %s.\n", strings.Join(places, ", "))
	}
	// Each further section is set off by a blank line from what came before.
	sections := len(r.Tools()) > 0
	section := func(title string) {
		tw.Flush()
		if sections {
			fmt.Fprintln(w)
		}
		sections = true
		fmt.Fprintln(w, title)
	}
	warned := false
	for _, t := range r.Tools() {
		for _, warning := range t.Warnings {
			if !warned {
				section("Warnings:")
				warned = true
			}
			fmt.Fprintf(tw, "  %s: %s\n", t.Name, warning)
		}
	}
	for i, f := range r.Failed() {
		if i == 0 {
			section("Failed (not offered to the model):")
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", f.Name, f.Source, f.Path, f.Reason)
	}
	for i, u := range r.Untrusted() {
		if i == 0 && changed {
			section("Not run, the project changed since you trusted it (ikigai trust --diff shows how; ikigai trust trusts it again):")
		} else if i == 0 {
			section("Not run, the directory is not trusted (ikigai trust, or --trust for one run):")
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", u.Name, u.Source, u.Path)
	}
	return tw.Flush()
}
