package main

import (
	"strings"
	"testing"
	"time"

	"github.com/ikigai-tools/ikigai/toolsdk/tooltest"
)

func TestRun(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  result
	}{
		{"echo", `{"command":"echo hello"}`, result{Output: "hello"}},
		{"one trailing newline stripped", `{"command":"printf 'a\\n\\n'"}`, result{Output: "a\n"}},
		{"stderr merged in order", `{"command":"echo 1; echo 2 >&2; echo 3"}`, result{Output: "1\n2\n3"}},
		{"exit code", `{"command":"exit 42"}`, result{ExitCode: 42}},
		{"not found", `{"command":"no-such-command-xyz 2>/dev/null"}`, result{ExitCode: 127}},
		{"signal", `{"command":"kill -TERM $$"}`, result{ExitCode: 143}},
		{"stdin is empty", `{"command":"cat"}`, result{}},
		{"invalid UTF-8 replaced", `{"command":"printf 'a\\xffb'"}`, result{Output: "a\uFFFDb"}},
		{"timeout", `{"command":"echo started; sleep 10","timeout":0.2}`, result{Output: "started", ExitCode: 124, TimedOut: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got result
			tooltest.Call(t, tool, tt.input).Decode(t, &got)
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestInvalidTimeout(t *testing.T) {
	for _, input := range []string{`{"command":"true","timeout":0}`, `{"command":"true","timeout":-1}`, `{"command":"true","timeout":"1"}`} {
		res := tooltest.Call(t, tool, input)
		if res.ExitCode != 1 || res.Stderr != "bash-tool: missing or invalid timeout field\n" {
			t.Errorf("%s: got %+v", input, res)
		}
	}
}

func TestHugeOutputKeepsHeadAndTail(t *testing.T) {
	var got result
	res := tooltest.Call(t, tool, `{"command":"seq 1 1000000"}`)
	res.Decode(t, &got)
	if len(res.Stdout) > 64<<10 {
		t.Errorf("stdout is %d bytes, want at most 64 KiB", len(res.Stdout))
	}
	if !got.Truncated || !strings.HasPrefix(got.Output, "1\n2\n3\n") || !strings.HasSuffix(got.Output, "\n999999\n1000000") ||
		!strings.Contains(got.Output, " bytes omitted ...]") {
		t.Errorf("truncated %v, output %q...%q", got.Truncated, got.Output[:20], got.Output[len(got.Output)-20:])
	}
}

func TestDeadlineFromAgent(t *testing.T) {
	var got result
	tooltest.Call(t, tool, `{"command":"sleep 10"}`, tooltest.WithTimeout(300*time.Millisecond)).Decode(t, &got)
	if !got.TimedOut || got.ExitCode != 124 {
		t.Errorf("got %+v, want a timeout", got)
	}
}
