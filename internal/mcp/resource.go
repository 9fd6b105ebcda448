package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/plainjson"
	"github.com/ikigai-tools/ikigai/internal/registry"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ResourceTool is the name of the tool that reads an MCP server's
// resource, offered when a server that offers resources is running: the
// way to the resources a result links to, or holds too large to give
// whole.
const ResourceTool = "mcp_resource"

var resourceParams = json.RawMessage(`{"type":"object","properties":{"server":{"type":"string","description":"the MCP server's name, as the result that named the resource gives it"},"uri":{"type":"string","description":"the resource's URI"}},"required":["server","uri"],"additionalProperties":false}`)

// resourceTool returns the mcp_resource tool, reading through s.
func (s *Servers) resourceTool() registry.Tool {
	yes := true
	doc, _ := plainjson.Marshal(map[string]any{"name": ResourceTool, "description": resourceDescription, "inputSchema": resourceParams})
	return registry.Tool{
		Entry:  registry.Entry{Name: ResourceTool, Source: "mcp", Path: "ikigai"},
		Schema: registry.Schema{Description: resourceDescription, Parameters: resourceParams, Annotations: registry.Annotations{ReadOnlyHint: &yes}, Document: doc},
		Runner: resourceRunner{s},
	}
}

const resourceDescription = "Reads a resource of an MCP server (resources/read): one a tool's result links to, or names as too large to include."

type resourceRunner struct{ s *Servers }

func (r resourceRunner) Run(ctx context.Context, args json.RawMessage, timeout time.Duration) execute.Envelope {
	if env, ok := execute.CheckArgs(ResourceTool, args); !ok {
		return env
	}
	var in struct {
		Server, URI string
	}
	if json.Unmarshal(args, &in) != nil || in.Server == "" || in.URI == "" {
		return execute.Failed(execute.InvalidParams, "Tool '%s' wants {\"server\": NAME, \"uri\": URI}", ResourceTool)
	}
	var srv *server
	for _, s := range r.s.list {
		if s.name == in.Server {
			srv = s
		}
	}
	if srv == nil {
		return execute.Failed(execute.InvalidParams, "Tool '%s': no MCP server %q", ResourceTool, in.Server)
	}
	if timeout <= 0 {
		timeout = execute.DefaultTimeout
	}
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, execute.ErrTimeout)
	defer cancel()
	c := srv.connect()
	if err := c.wait(ctx); err != nil {
		return execute.Failed(execute.ToolCrashed, "Tool '%s' could not run: MCP server '%s' %v", ResourceTool, in.Server, err)
	}
	res, err := c.session.ReadResource(ctx, &sdk.ReadResourceParams{URI: in.URI})
	if err != nil {
		if errors.Is(context.Cause(ctx), execute.ErrTimeout) {
			return execute.Failed(execute.ToolTimeout, "Tool '%s' timed out after %v", ResourceTool, timeout)
		}
		return execute.Succeeded(mustJSON(operationError{Error: fmt.Sprintf("MCP server '%s' could not read %s: %v", in.Server, in.URI, err), Code: "RESOURCE_UNREADABLE"}))
	}
	var text []string
	var images []image
	for _, c := range res.Contents {
		switch {
		case c.Blob == nil:
			text = append(text, c.Text)
		case strings.HasPrefix(c.MIMEType, "image/") && len(c.Blob) <= maxImage:
			images = append(images, image{MediaType: c.MIMEType, Data: c.Blob})
		default:
			text = append(text, fmt.Sprintf("[%s: %d bytes of %s, which cannot be shown as text]", c.URI, len(c.Blob), orUnknown(c.MIMEType)))
		}
	}
	return execute.Succeeded(mustJSON(contentResult{Output: strings.Join(text, "\n"), Images: images}))
}

func mustJSON(v any) json.RawMessage {
	b, _ := plainjson.Marshal(v)
	return b
}
