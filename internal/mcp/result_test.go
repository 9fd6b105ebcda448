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
