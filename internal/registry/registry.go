// Package registry holds the tools the agent can offer the model: each one's
// name, where it came from, its schema, what it shadows and how to run it,
// along with the tools that were found but could not be used, and why.
package registry

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/sandbox"
)

// Source says where a tool came from. Executables come from the system,
// user or project directory; other kinds of tool name their own source.
type Source string

const (
	System  Source = "system"
	User    Source = "user"
	Project Source = "project"
)

// Runner runs one call of a tool. execute.Program runs an executable.
type Runner interface {
	Run(ctx context.Context, args json.RawMessage, timeout time.Duration) execute.Envelope
}

// Entry locates one tool: a name found at a path from a source.
type Entry struct {
	Name   string `json:"name"`
	Source Source `json:"source"`
	Path   string `json:"path"`
}

// Tool is a usable tool.
type Tool struct {
	Entry
	Schema Schema
	// Shadows lists the tools of the same name this one hides, highest
	// precedence first.
	Shadows []Entry
	// Warnings are problems that did not stop the tool from being used.
	Warnings []string
	Runner   Runner
	// Deferred tools are not offered with every request: the model sees
	// a line about each and enables the ones it needs (tool_search).
	Deferred bool
}

// Schema is what a tool says about itself.
type Schema struct {
	Description string
	// Parameters is a JSON Schema of type object, compact.
	Parameters  json.RawMessage
	Annotations Annotations
	// Document is the whole schema document as the tool printed it.
	Document json.RawMessage
	// Sandbox is what the tool says it needs of the sandbox; nil when it
	// does not say.
	Sandbox *sandbox.Needs
}

// Annotations are hints about a tool's behaviour, with MCP's names; nil
// means the tool did not say.
type Annotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
	// DeferredHint asks that the tool be deferred: described in a line
	// until the model asks for it, rather than sent with every request.
	DeferredHint *bool `json:"deferredHint,omitempty"`
	// PreviewHint says that NAME-tool --preview, given a call's arguments,
	// prints what the call would do, for the user to see before
	// approving it.
	PreviewHint *bool `json:"previewHint,omitempty"`
}

// ReadOnly reports whether the tool says it changes nothing.
func (a Annotations) ReadOnly() bool { return a.ReadOnlyHint != nil && *a.ReadOnlyHint }

// Previews reports whether the tool offers a preview of its calls.
func (a Annotations) Previews() bool { return a.PreviewHint != nil && *a.PreviewHint }

// OpenWorld reports whether the tool says it reaches beyond the machine
// (the web, a service), which MCP assumes when a tool does not say.
func (a Annotations) OpenWorld() bool { return a.OpenWorldHint != nil && *a.OpenWorldHint }

// Confinement returns how the tool's calls are confined: nil for a tool
// that runs unconfined, or that is not an executable.
func (t Tool) Confinement() *sandbox.Confinement {
	if p, ok := t.Runner.(execute.Program); ok {
		return p.Sandbox
	}
	return nil
}

// Failure is a tool that was found but cannot be used.
type Failure struct {
	Entry
	Reason string `json:"reason"`
}

// Registry is the set of usable tools, sorted by name, with the failures and
// the tools left unrun because their directory is not trusted.
type Registry struct {
	tools     []Tool
	failed    []Failure
	untrusted []Entry
}

// New builds a registry from candidates given in order of precedence,
// highest first: the first tool of each name is used and the later ones
// become what it shadows.
func New(candidates []Tool, failed []Failure, untrusted []Entry) *Registry {
	r := &Registry{failed: slices.Clone(failed), untrusted: slices.Clone(untrusted)}
	index := map[string]int{}
	for _, t := range candidates {
		if i, ok := index[t.Name]; ok {
			r.tools[i].Shadows = append(r.tools[i].Shadows, t.Entry)
			continue
		}
		index[t.Name] = len(r.tools)
		r.tools = append(r.tools, t)
	}
	slices.SortFunc(r.tools, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	byName := func(a, b Entry) int {
		return strings.Compare(a.Name+"\x00"+a.Path, b.Name+"\x00"+b.Path)
	}
	slices.SortFunc(r.failed, func(a, b Failure) int { return byName(a.Entry, b.Entry) })
	slices.SortFunc(r.untrusted, byName)
	return r
}

// Tools returns the usable tools, sorted by name.
func (r *Registry) Tools() []Tool { return r.tools }

// Failed returns the tools that were found but cannot be used.
func (r *Registry) Failed() []Failure { return r.failed }

// Untrusted returns the project tools that were not run because the
// project directory is not trusted.
func (r *Registry) Untrusted() []Entry { return r.untrusted }

// Lookup returns the tool called name.
func (r *Registry) Lookup(name string) (Tool, bool) {
	i, ok := slices.BinarySearchFunc(r.tools, name, func(t Tool, name string) int { return strings.Compare(t.Name, name) })
	if !ok {
		return Tool{}, false
	}
	return r.tools[i], true
}

// Call runs the tool called name; a name the registry does not have gets
// a TOOL_NOT_FOUND envelope.
func (r *Registry) Call(ctx context.Context, name string, args json.RawMessage, timeout time.Duration) execute.Envelope {
	t, ok := r.Lookup(name)
	if !ok {
		return execute.NotFound(name)
	}
	return t.Runner.Run(ctx, args, timeout)
}

// Preview returns what the call of the tool called name with args would
// do, as the tool's --preview prints it; false when the tool offers no
// preview (no previewHint: it is never run so) or the preview failed.
func (r *Registry) Preview(ctx context.Context, name string, args json.RawMessage) (string, bool) {
	t, ok := r.Lookup(name)
	if !ok || !t.Schema.Annotations.Previews() {
		return "", false
	}
	p, ok := t.Runner.(execute.Program)
	if !ok {
		return "", false
	}
	out, err := p.Preview(ctx, args)
	return out, err == nil
}

// Definition is a tool as a model request describes it, free of any
// provider's types.
type Definition struct {
	Name        string
	Description string
	Parameters  json.RawMessage
	Annotations Annotations
	Deferred    bool
}

// Definitions returns every usable tool as a model request describes it,
// sorted by name.
func (r *Registry) Definitions() []Definition {
	defs := make([]Definition, len(r.tools))
	for i, t := range r.tools {
		defs[i] = Definition{Name: t.Name, Description: t.Schema.Description, Parameters: t.Schema.Parameters, Annotations: t.Schema.Annotations, Deferred: t.Deferred}
	}
	return defs
}

// Defer returns the registry with the tools for which deferred is true
// marked Deferred, and the others not.
func (r *Registry) Defer(deferred func(Tool) bool) *Registry {
	out := *r
	out.tools = slices.Clone(r.tools)
	for i := range out.tools {
		out.tools[i].Deferred = deferred(out.tools[i])
	}
	return &out
}

// Only returns the registry with only the usable tools keep is true for.
func (r *Registry) Only(keep func(Tool) bool) *Registry {
	out := *r
	out.tools = nil
	for _, t := range r.tools {
		if keep(t) {
			out.tools = append(out.tools, t)
		}
	}
	return &out
}
