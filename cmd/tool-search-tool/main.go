// Command tool-search-tool finds deferred tools (those ikigai describes in
// one line rather than sending whole with every request) by what they do,
// or by name, and loads them for the rest of the conversation. It asks
// ikigai through the host API (toolsdk/host).
package main

import (
	"context"

	"github.com/ikigai-tools/ikigai/toolsdk"
	"github.com/ikigai-tools/ikigai/toolsdk/host"
)

type params struct {
	Query string   `json:"query,omitempty" description:"Words for what the tool must do, e.g. \"create github issue\"; the best matches are loaded (at most 5)"`
	Names []string `json:"names,omitempty" description:"Exact names of tools to load, from the list of tools not loaded yet"`
}

var tool = toolsdk.New[params, any](toolsdk.Schema{
	Name: "tool_search",
	Description: "Load tools that are not loaded yet (the system prompt lists them, one line each) so that you can call them: " +
		"by words for what they do, or by name. Loaded tools stay available for the rest of the conversation.",
	Annotations: &toolsdk.Annotations{ReadOnlyHint: true},
}, run)

func main() { tool.Main() }

func run(ctx context.Context, p params) (any, error) {
	if p.Query == "" && len(p.Names) == 0 {
		return nil, toolsdk.InvalidField("query")
	}
	c, err := host.FromEnv()
	if err != nil {
		return nil, err
	}
	var res host.ToolSearchResult
	err = c.Call(ctx, host.OpToolSearch, host.ToolSearch{Query: p.Query, Names: p.Names}, &res)
	return res, err
}
