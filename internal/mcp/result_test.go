package mcp

import (
	"encoding/json"
	"testing"

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
