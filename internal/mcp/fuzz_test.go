package mcp

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/ikigai-tools/ikigai/internal/execute"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Whatever result a server sends, the envelope is valid: a result of
// valid JSON and UTF-8 within the output limit, or a failure.
func FuzzEnvelopeOf(f *testing.F) {
	f.Add(`{"content":[{"type":"text","text":"hello"}]}`)
	f.Add(`{"content":[],"structuredContent":{"a":[1,2,{"b":null}]}}`)
	f.Add(`{"content":[{"type":"text","text":"bad"}],"isError":true,"structuredContent":{"error_code":7}}`)
	f.Add(`{"content":[{"type":"image","data":"UE5H","mimeType":"image/png"},{"type":"text","text":"\ud800"}]}`)
	f.Add(`{"content":[],"structuredContent":"just a string"}`)
	f.Fuzz(func(t *testing.T, doc string) {
		var res sdk.CallToolResult
		if json.Unmarshal([]byte(doc), &res) != nil {
			return
		}
		env := envelopeOf("t", "s", &res)
		if !env.Success {
			return
		}
		if !json.Valid(env.Result) || !utf8.Valid(env.Result) || len(env.Result) > execute.MaxStdout {
			t.Fatalf("bad result %q", env.Result)
		}
		callResult(env) // and back, as ikigai mcp serve would
	})
}
