package display

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ikigai-tools/ikigai/internal/registry"
)

// Tool describes one tool as `ikigai tools show` and the REPL's /tool NAME
// print it: its name, path and schema, then what it shadows and any
// warnings.
func Tool(t registry.Tool) string {
	var schema bytes.Buffer
	json.Indent(&schema, t.Schema.Document, "", "  ") // the document is valid JSON
	var b strings.Builder
	fmt.Fprintf(&b, "Tool: %s\nPath: %s\nSchema:\n%s", t.Name, t.Path, schema.Bytes())
	for _, s := range t.Shadows {
		fmt.Fprintf(&b, "\nShadows: %s %s", s.Source, s.Path)
	}
	for _, warning := range t.Warnings {
		fmt.Fprintf(&b, "\nWarning: %s", warning)
	}
	return b.String()
}

// Missing explains why r has no usable tool called name: it failed, its
// directory is not trusted, or there is no such tool.
func Missing(r *registry.Registry, name string) string {
	var reasons []string
	for _, f := range r.Failed() {
		if f.Name == name {
			reasons = append(reasons, fmt.Sprintf("tool '%s' (%s) cannot be used: %s", name, f.Path, f.Reason))
		}
	}
	for _, u := range r.Untrusted() {
		if u.Name == name {
			reasons = append(reasons, fmt.Sprintf("tool '%s' (%s) is in a directory that is not trusted (ikigai trust, or --trust for one run)", name, u.Path))
		}
	}
	if len(reasons) == 0 {
		reasons = append(reasons, fmt.Sprintf("no tool named '%s' (ikigai tools lists them)", name))
	}
	return strings.Join(reasons, "\n")
}

// SchemaFailure is the line the REPL shows for a tool that discovery had to
// skip, as the reference implementation worded it.
func SchemaFailure(f registry.Failure) string {
	if f.Name == "" { // a directory that could not be read
		return fmt.Sprintf("Debug: tools directory %s: %s", f.Path, f.Reason)
	}
	return fmt.Sprintf("Debug: tool '%s' schema failed (%s)", f.Name, f.Reason)
}
