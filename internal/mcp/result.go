package mcp

import (
	"encoding/json"
	"strings"

	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/plainjson"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// output is the result of a tool that returned content rather than
// structured content: its text, as the core tools return theirs, its
// images as the protocol's "images" (which the agent gives the model as
// pictures), and any other content (resources, audio) as the server sent
// it.
type contentResult struct {
	Output  string        `json:"output"`
	Images  []image       `json:"images,omitempty"`
	Content []sdk.Content `json:"content,omitempty"`
}

// image is a picture as the tool protocol carries it.
type image struct {
	MediaType string `json:"media_type"`
	Data      []byte `json:"data"` // base64 in JSON, as MCP's
}

// operationError is the result of a call flagged isError.
type operationError struct {
	Error string `json:"error"`
	Code  string `json:"error_code"`
}

// envelopeOf turns an MCP tool result into the envelope an executable's
// result would get. The result is the structured content if there is
// some (as the SDK decodes it: keys sorted, numbers as float64), else the
// content as {"output": TEXT}. A result flagged isError is
// an operation error: its structured content if that carries an
// error_code, else {"error": TEXT, "error_code": "TOOL_ERROR"}.
func envelopeOf(name string, res *sdk.CallToolResult) execute.Envelope {
	var text []string
	var images []image
	var other []sdk.Content
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			text = append(text, c.Text)
		case *sdk.ImageContent:
			images = append(images, image{MediaType: c.MIMEType, Data: c.Data})
		default:
			other = append(other, c)
		}
	}
	var result json.RawMessage
	var err error
	switch structured, coded := res.StructuredContent.(map[string]any); {
	case res.IsError && coded && structured["error_code"] != nil:
		result, err = plainjson.Marshal(res.StructuredContent)
	case res.IsError:
		result, err = plainjson.Marshal(operationError{Error: strings.Join(text, "\n"), Code: execute.ToolError})
	case res.StructuredContent != nil:
		result, err = plainjson.Marshal(res.StructuredContent)
	default:
		result, err = plainjson.Marshal(contentResult{Output: strings.Join(text, "\n"), Images: images, Content: other})
	}
	switch {
	case err != nil:
		return execute.Failed(execute.InvalidOutput, "Tool '%s' returned a result that cannot be encoded: %v", name, err)
	case len(result) > execute.MaxStdout:
		return execute.Failed(execute.OutputTooLarge, "Tool '%s' returned more than %d MiB", name, execute.MaxStdout>>20)
	}
	return execute.Succeeded(result)
}

// callResult turns an envelope into the result an MCP client gets: the
// tool's JSON as text content and, when it is an object, as structured
// content, flagged isError for an operation error. A failure envelope is
// given whole the same way, flagged isError, so the client sees its
// error_code and the evidence.
func callResult(env execute.Envelope) *sdk.CallToolResult {
	doc := env.Result
	if !env.Success {
		doc = env.JSON()
	}
	_, _, opError := env.OperationError()
	r := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(doc)}}, IsError: !env.Success || opError}
	if doc[0] == '{' {
		r.StructuredContent = doc
	}
	return r
}
