package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/plainjson"
	"github.com/ikigai-tools/ikigai/toolsdk/files"
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
//
// Images go in "images" (at most maxImage each); a text resource of at
// most maxInlineResource is put in the text, and any other resource, or
// a link to one, is named there with how to read it: the mcp_resource
// tool, with server, the server's name.
func envelopeOf(name, server string, res *sdk.CallToolResult) execute.Envelope {
	var text []string
	var images []image
	var other []sdk.Content
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			text = append(text, c.Text)
		case *sdk.ImageContent:
			if len(c.Data) > maxImage {
				text = append(text, fmt.Sprintf("[an image (%s) of %.1f MiB was left out: over %d MiB]", c.MIMEType, float64(len(c.Data))/(1<<20), maxImage>>20))
				continue
			}
			// What the data is, not what the server says (image/jpg is
			// common): the model's API checks.
			t := files.ImageType(c.Data)
			if t == "" {
				t = c.MIMEType
			}
			images = append(images, image{MediaType: t, Data: c.Data})
		case *sdk.EmbeddedResource:
			r := c.Resource
			if r == nil {
				continue
			}
			if r.Blob == nil && len(r.Text) <= maxInlineResource {
				text = append(text, fmt.Sprintf("[resource %s]\n%s", r.URI, r.Text))
				continue
			}
			size := len(r.Text) + len(r.Blob)
			text = append(text, fmt.Sprintf("[resource %s (%s, %d bytes): read it with mcp_resource %s]", r.URI, orUnknown(r.MIMEType), size, readArgs(server, r.URI)))
		case *sdk.ResourceLink:
			desc := c.Name
			if c.Description != "" {
				desc += ": " + c.Description
			}
			text = append(text, fmt.Sprintf("[resource link %s (%s): read it with mcp_resource %s]", c.URI, desc, readArgs(server, c.URI)))
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
		// The images are in the content only, beside the text that
		// repeats the structured content; it may say how many there are
		// (as ikigai mcp serve does).
		structured, isObject := res.StructuredContent.(map[string]any)
		_, count := structured["images"].(float64)
		if _, taken := structured["images"]; isObject && images != nil && (!taken || count) {
			structured["images"] = images
		}
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
	doc, images := imageContent(doc)
	r := &sdk.CallToolResult{Content: append([]sdk.Content{&sdk.TextContent{Text: string(doc)}}, images...), IsError: !env.Success || opError}
	if doc[0] == '{' {
		r.StructuredContent = doc
	}
	return r
}

// imageContent takes the protocol's images out of a result, as MCP image
// content, leaving how many there were ("images": 2). A result without
// them, or whose images key is the tool's own, comes back as it was.
func imageContent(doc json.RawMessage) (json.RawMessage, []sdk.Content) {
	if doc[0] != '{' || !bytes.Contains(doc, []byte(`"images"`)) {
		return doc, nil
	}
	var fields map[string]json.RawMessage
	var list []image
	if json.Unmarshal(doc, &fields) != nil || json.Unmarshal(fields["images"], &list) != nil || len(list) == 0 ||
		slices.ContainsFunc(list, func(img image) bool { return img.MediaType == "" || len(img.Data) == 0 }) {
		return doc, nil
	}
	fields["images"], _ = plainjson.Marshal(len(list))
	out, err := plainjson.Marshal(fields)
	if err != nil {
		return doc, nil
	}
	content := make([]sdk.Content, len(list))
	for i, img := range list {
		content[i] = &sdk.ImageContent{Data: img.Data, MIMEType: img.MediaType}
	}
	return out, content
}

const (
	// maxImage is the largest image passed on to the model: what its
	// APIs take.
	maxImage = 5 << 20
	// maxInlineResource is the largest text resource put in a result's
	// text; a longer one is read with mcp_resource, which the result
	// limits apply to as to any call.
	maxInlineResource = 48 << 10
)

func orUnknown(mime string) string {
	if mime == "" {
		return "type unknown"
	}
	return mime
}

// readArgs are the arguments of mcp_resource that read uri.
func readArgs(server, uri string) string {
	b, _ := json.Marshal(map[string]string{"server": server, "uri": uri})
	return string(b)
}
