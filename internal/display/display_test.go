package display

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ikigai-tools/ikigai/internal/execute"
)

func TestCall(t *testing.T) {
	tests := []struct {
		args string
		want string
	}{
		{`{"command":"echo hello"}`, `→ bash: command="echo hello"`},
		{`{"b":1, "a":[true, null]}`, `→ bash: b=1 a=[true,null]`},
		{`{}`, `→ bash:`},
		{`{"content":"` + strings.Repeat("x", 100) + `"}`, `→ bash: content="` + strings.Repeat("x", 76) + `…`},
		{`{"s":"line1\nline2"}`, `→ bash: s="line1\nline2"`},
		{`not json`, `→ bash: not json`},
		{`[1,2]`, `→ bash: [1,2]`},
	}
	for _, tt := range tests {
		if got := Call("bash", json.RawMessage(tt.args)); got != tt.want {
			t.Errorf("Call(%s) = %q, want %q", tt.args, got, tt.want)
		}
	}
}

func TestResult(t *testing.T) {
	exit := 139
	tests := []struct {
		env  execute.Envelope
		want string
	}{
		{execute.Succeeded(json.RawMessage(`{"output":"hello","exit_code":0}`)), "← bash: ok: hello"},
		{execute.Succeeded(json.RawMessage(`{"output":"","exit_code":0}`)), "← bash: ok"},
		{execute.Succeeded(json.RawMessage(`{"output":"","exit_code":1}`)), "← bash: exit 1"},
		{execute.Succeeded(json.RawMessage(`{"output":"hi","exit_code":3}`)), "← bash: exit 3: hi"},
		{execute.Succeeded(json.RawMessage(`{"output":"partial","exit_code":124,"timed_out":true}`)), "← bash: timed out: partial"},
		{execute.Succeeded(json.RawMessage(`{"output":"1\n2\n3\n4\n5\n6"}`)), "← bash: ok: 1\n  2\n  3\n  4\n  … 2 more lines"},
		{execute.Succeeded(json.RawMessage(`{"error":"Error: reading file 'x': No such file or directory","error_code":"FILE_NOT_FOUND"}`)),
			"← bash: FILE_NOT_FOUND: Error: reading file 'x': No such file or directory"},
		{execute.Succeeded(json.RawMessage(`{"error_code":"X"}`)), "← bash: X"},
		{execute.Succeeded(json.RawMessage(`{"error":"x"}`)), "← bash: TOOL_ERROR: x"},
		{execute.Succeeded(json.RawMessage(`{"error":"","output":"fine"}`)), "← bash: ok: fine"},
		{execute.Succeeded(json.RawMessage(`{"count":3}`)), `← bash: ok: {"count":3}`},
		{execute.Succeeded(json.RawMessage(`{"output":"odd","exit_code":"3"}`)), "← bash: ok: odd"},
		{execute.Succeeded(json.RawMessage(`[1,2]`)), "← bash: ok: [1,2]"},
		{execute.Envelope{Error: "Tool 'bash' crashed with exit code 139", Code: "TOOL_CRASHED", ExitCode: &exit},
			"← bash: TOOL_CRASHED: Tool 'bash' crashed with exit code 139"},
	}
	for _, tt := range tests {
		if got := Result("bash", tt.env); got != tt.want {
			t.Errorf("Result(%s) = %q, want %q", tt.env.JSON(), got, tt.want)
		}
	}
}
