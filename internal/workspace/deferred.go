package workspace

import (
	"github.com/ikigai-tools/ikigai/internal/registry"
	"github.com/ikigai-tools/ikigai/internal/skills"
)

// ToolSearch is the tool that enables deferred tools. Without it nothing is
// deferred: the model would have no way to reach such a tool.
const ToolSearch = "tool_search"

// withDeferred marks the deferred tools of reg: a tool is deferred when its
// setting (deferred in tools), else its MCP server's, says so; else when
// its schema's deferredHint does; else when a skill names it among its
// tools, which loading the skill offers.
func (w *Workspace) withDeferred(reg *registry.Registry) *registry.Registry {
	if _, ok := reg.Lookup(ToolSearch); !ok {
		return reg
	}
	named := map[string]bool{}
	for _, sk := range skills.List(w.SkillDirs()) {
		for _, t := range sk.Tools {
			named[t] = true
		}
	}
	cfg := w.Config
	return reg.Defer(func(t registry.Tool) bool {
		if t.Name == ToolSearch {
			return false
		}
		if set, ok := cfg.Tools[t.Name]; ok && set.Deferred != nil {
			return *set.Deferred
		}
		if srv, ok := cfg.MCPServers[cfg.MCPServerOf(t.Name)]; ok && srv.Deferred != nil {
			return *srv.Deferred
		}
		if h := t.Schema.Annotations.DeferredHint; h != nil {
			return *h
		}
		return named[t.Name]
	})
}
