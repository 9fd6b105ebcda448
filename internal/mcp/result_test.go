package mcp

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ikigai-tools/ikigai/internal/execute"
)

// An MCP client is told of an operation error as the display and the log
// see it: whatever the envelope's OperationError says.
func TestCallResultIsError(t *testing.T) {
	for _, tc := range []struct {
		env  execute.Envelope
		want bool
	}{
		{execute.Succeeded(json.RawMessage(`{"output":"fine"}`)), false},
		{execute.Succeeded(json.RawMessage(`{"error":"x","error_code":"X"}`)), true},
		{execute.Succeeded(json.RawMessage(`{"error":"x"}`)), true},
		{execute.Succeeded(json.RawMessage(`{"error_code":"X"}`)), true},
		{execute.Failed(execute.ToolCrashed, "Tool 't' crashed"), true},
	} {
		if got := callResult(tc.env).IsError; got != tc.want {
			t.Errorf("%s: isError %v, want %v", tc.env.JSON(), got, tc.want)
		}
	}
}

var png = []byte("\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\x0d\x49\x44\x41\x54\x78\x9c\x63\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99\x3d\x1d\x00\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82")

// A server's image reaches the model whatever MIME type the server gave it
// (image/jpg is common), and beside structured content too.
func TestEnvelopeOfImages(t *testing.T) {
	b64 := base64.StdEncoding.EncodeToString(png)
	for _, tc := range []struct {
		name string
		res  *sdk.CallToolResult
		want string
	}{
		{"a wrong MIME type", &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{Data: png, MIMEType: "image/jpg"}}},
			`{"output":"","images":[{"media_type":"image/png","data":"` + b64 + `"}]}`},
		{"no MIME type", &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{Data: png}}},
			`{"output":"","images":[{"media_type":"image/png","data":"` + b64 + `"}]}`},
		{"not an image the model takes", &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{Data: []byte("<svg/>"), MIMEType: "image/svg+xml"}}},
			`{"output":"","images":[{"media_type":"image/svg+xml","data":"PHN2Zy8+"}]}`},
		{"beside structured content", &sdk.CallToolResult{StructuredContent: map[string]any{"width": 1.0},
			Content: []sdk.Content{&sdk.TextContent{Text: `{"width":1}`}, &sdk.ImageContent{Data: png, MIMEType: "image/png"}}},
			`{"images":[{"media_type":"image/png","data":"` + b64 + `"}],"width":1}`},
		{"beside a count of them", &sdk.CallToolResult{StructuredContent: map[string]any{"images": 1.0},
			Content: []sdk.Content{&sdk.TextContent{Text: `{"images":1}`}, &sdk.ImageContent{Data: png, MIMEType: "image/png"}}},
			`{"images":[{"media_type":"image/png","data":"` + b64 + `"}]}`},
		{"beside the tool's own images", &sdk.CallToolResult{StructuredContent: map[string]any{"images": []any{"a.png"}},
			Content: []sdk.Content{&sdk.ImageContent{Data: png, MIMEType: "image/png"}}},
			`{"images":["a.png"]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := envelopeOf("t", "s", tc.res)
			if diff := cmp.Diff(tc.want, string(env.Result)); diff != "" || !env.Success {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

// ikigai mcp serve gives its clients a tool's images as image content,
// not base64 inside the JSON text.
func TestCallResultImages(t *testing.T) {
	b64 := base64.StdEncoding.EncodeToString(png)
	r := callResult(execute.Succeeded(json.RawMessage(`{"output":"a picture","images":[{"media_type":"image/png","data":"` + b64 + `"}]}`)))
	text, _ := r.Content[0].(*sdk.TextContent)
	var img *sdk.ImageContent
	if len(r.Content) == 2 {
		img, _ = r.Content[1].(*sdk.ImageContent)
	}
	structured, _ := r.StructuredContent.(json.RawMessage)
	const want = `{"images":1,"output":"a picture"}`
	if text == nil || text.Text != want || img == nil || img.MIMEType != "image/png" || string(img.Data) != string(png) || string(structured) != want {
		b, _ := json.Marshal(r)
		t.Errorf("result %s", b)
	}
	// A tool's own images key is its own.
	own := `{"images":["a.png"]}`
	if r := callResult(execute.Succeeded(json.RawMessage(own))); len(r.Content) != 1 || r.Content[0].(*sdk.TextContent).Text != own {
		t.Errorf("a tool's own images: %v", r.Content)
	}
}

func TestErrorLine(t *testing.T) {
	for _, tc := range []struct{ stderr, want string }{
		{"starting\nfatal: no token\n\n", "fatal: no token"},
		{`npm error code E404
npm error 404 Not Found - GET https://registry.npmjs.org/@acme%2fnope - Not found
npm error 404
npm error 404  '@acme/nope@*' is not in this registry.
npm error 404
npm error 404 Note that you can also install from a
npm error 404 tarball, folder, http url, or git url.
npm error A complete log of this run can be found in: /home/u/.npm/_logs/2025-01-01T00_00_00_000Z-debug-0.log
`, "npm error 404 Not Found - GET https://registry.npmjs.org/@acme%2fnope - Not found"},
		{`npm ERR! code ENOENT
npm ERR! syscall open
npm ERR! path /x/package.json
npm ERR! errno -2
npm ERR! enoent Could not read package.json
npm ERR! A complete log of this run can be found in: /l.log
`, "npm ERR! enoent Could not read package.json"},
	} {
		if got := errorLine(tc.stderr); got != tc.want {
			t.Errorf("errorLine = %q, want %q", got, tc.want)
		}
	}
}
