package execute

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// script writes an executable shell script into a temporary directory.
func script(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t-tool")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func intp(n int) *int { return &n }

func TestRun(t *testing.T) {
	for _, tc := range []struct {
		name    string
		script  string
		args    string
		timeout time.Duration
		want    Envelope
	}{
		{
			name:   "result",
			script: `cat >/dev/null; printf '{"output": "hi",\n "n": 1}\n'`,
			args:   `{}`,
			want:   Envelope{Success: true, Result: json.RawMessage(`{"output":"hi","n":1}`)},
		},
		{
			name:   "operation error is a result",
			script: `echo '{"error":"Error: reading file '"'x'"': gone","error_code":"FILE_NOT_FOUND"}'`,
			args:   `{}`,
			want:   Envelope{Success: true, Result: json.RawMessage(`{"error":"Error: reading file 'x': gone","error_code":"FILE_NOT_FOUND"}`)},
		},
		{
			name:   "arguments arrive on stdin",
			script: `cat`,
			args:   ` {"a": [1, 2]} `,
			want:   Envelope{Success: true, Result: json.RawMessage(`{"a":[1,2]}`)},
		},
		{
			name:   "environment",
			script: `echo "{\"name\":\"$IKIGAI_TOOL_NAME\",\"ms\":$IKIGAI_TOOL_TIMEOUT_MS}"`,
			args:   `{}`, timeout: 1500 * time.Millisecond,
			want: Envelope{Success: true, Result: json.RawMessage(`{"name":"t","ms":1500}`)},
		},
		{
			name:   "invalid UTF-8 is replaced",
			script: `printf '{"output":"a\377b"}'`,
			args:   `{}`,
			want:   Envelope{Success: true, Result: json.RawMessage(`{"output":"a` + "\uFFFD" + `b"}`)},
		},
		{
			name:   "arguments not an object",
			script: `echo '{}'`,
			args:   `[1]`,
			want:   Envelope{Error: "Arguments for tool 't' are not a JSON object", Code: InvalidParams},
		},
		{
			name:   "arguments not JSON",
			script: `echo '{}'`,
			args:   `{"a":`,
			want:   Envelope{Error: "Arguments for tool 't' are not a JSON object", Code: InvalidParams},
		},
		{
			name:   "exit code",
			script: `echo partial; echo 'bad things' >&2; exit 3`,
			args:   `{}`,
			want: Envelope{Error: "Tool 't' crashed with exit code 3", Code: ToolCrashed, ExitCode: intp(3),
				Stdout: "partial\n", Stderr: "bad things\n"},
		},
		{
			name:   "input error",
			script: `cat >/dev/null; echo 't-tool: missing or invalid file_path field' >&2; exit 1`,
			args:   `{}`,
			want:   Envelope{Error: "t-tool: missing or invalid file_path field", Code: InvalidParams},
		},
		{
			name:   "input error of a tool under another file name",
			script: `cat >/dev/null; echo 'file-read-tool: missing or invalid file_path field' >&2; exit 1`,
			args:   `{}`,
			want:   Envelope{Error: "file-read-tool: missing or invalid file_path field", Code: InvalidParams},
		},
		{
			name:   "exit 1 with more than the protocol's line is a crash",
			script: `echo 't-tool: bad' >&2; echo 'and more' >&2; exit 1`,
			args:   `{}`,
			want: Envelope{Error: "Tool 't' crashed with exit code 1", Code: ToolCrashed, ExitCode: intp(1),
				Stderr: "t-tool: bad\nand more\n"},
		},
		{
			name:   "exit 1 with output is a crash",
			script: `echo partial; echo 't-tool: bad' >&2; exit 1`,
			args:   `{}`,
			want: Envelope{Error: "Tool 't' crashed with exit code 1", Code: ToolCrashed, ExitCode: intp(1),
				Stdout: "partial\n", Stderr: "t-tool: bad\n"},
		},
		{
			name:   "exit 1 without the protocol's prefix is a crash",
			script: `echo 'Segmentation fault' >&2; exit 1`,
			args:   `{}`,
			want: Envelope{Error: "Tool 't' crashed with exit code 1", Code: ToolCrashed, ExitCode: intp(1),
				Stderr: "Segmentation fault\n"},
		},
		{
			name:   "signal",
			script: `kill -SEGV $$`,
			args:   `{}`,
			want:   Envelope{Error: "Tool 't' crashed with signal SIGSEGV", Code: ToolCrashed, ExitCode: intp(139)},
		},
		{
			name:   "no output",
			script: `exit 0`,
			args:   `{}`,
			want:   Envelope{Error: "Tool 't' printed nothing", Code: InvalidOutput},
		},
		{
			name:   "not JSON",
			script: `echo hello`,
			args:   `{}`,
			want:   Envelope{Error: "Tool 't' did not print valid JSON", Code: InvalidOutput, Stdout: "hello\n"},
		},
		{
			name:   "two documents",
			script: `echo '{}'; echo '{}'`,
			args:   `{}`,
			want:   Envelope{Error: "Tool 't' did not print valid JSON", Code: InvalidOutput, Stdout: "{}\n{}\n"},
		},
		{
			name:   "timeout",
			script: `echo started; exec sleep 10`,
			args:   `{}`, timeout: 200 * time.Millisecond,
			want: Envelope{Error: "Tool 't' timed out after 200ms", Code: ToolTimeout, Stdout: "started\n"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Program{Name: "t", Path: script(t, tc.script)}
			got := p.Run(context.Background(), json.RawMessage(tc.args), tc.timeout)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("envelope (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunOutputTooLarge(t *testing.T) {
	for name, body := range map[string]string{
		"endless":            `yes '{"a":1}'`,
		"all before exiting": `head -c 17000000 /dev/zero | tr '\0' 'x'`,
	} {
		t.Run(name, func(t *testing.T) {
			p := Program{Name: "t", Path: script(t, body)}
			got := p.Run(context.Background(), json.RawMessage(`{}`), 10*time.Second)
			if got.Code != OutputTooLarge || got.Error != "Tool 't' printed more than 16 MiB" {
				t.Fatalf("got %s", got.JSON())
			}
			if len(got.Stdout) > failureOutput+64 || !strings.Contains(got.Stdout, "bytes omitted") {
				t.Errorf("stdout in the failure is not capped: %d bytes", len(got.Stdout))
			}
		})
	}
}

func TestRunCancelled(t *testing.T) {
	p := Program{Name: "t", Path: script(t, `echo started; exec sleep 10`)}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	got := p.Run(ctx, json.RawMessage(`{}`), 10*time.Second)
	want := Envelope{Error: "Tool 't' was cancelled", Code: ToolCancelled, Stdout: "started\n"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("envelope (-want +got):\n%s", diff)
	}
}

func TestRunMissing(t *testing.T) {
	p := Program{Name: "gone", Path: filepath.Join(t.TempDir(), "gone-tool")}
	got := p.Run(context.Background(), json.RawMessage(`{}`), 0)
	if diff := cmp.Diff(NotFound("gone"), got); diff != "" {
		t.Errorf("envelope (-want +got):\n%s", diff)
	}
}

func TestRunNotExecutable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t-tool")
	if err := os.WriteFile(path, []byte("#!/bin/sh\necho '{}'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := Program{Name: "t", Path: path}.Run(context.Background(), json.RawMessage(`{}`), 0)
	// Even root cannot execute a file without an x bit.
	want := Envelope{Error: "Tool 't' could not be started: permission denied", Code: ToolCrashed}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("envelope (-want +got):\n%s", diff)
	}
}

func TestEnvelopeJSON(t *testing.T) {
	for _, tc := range []struct {
		env  Envelope
		want string
	}{
		{Succeeded(json.RawMessage(`{"output":"<a&b>"}`)), `{"tool_success":true,"result":{"output":"<a&b>"}}`},
		{Envelope{Error: "Tool 'bash' crashed with exit code 139", Code: ToolCrashed, ExitCode: intp(139), Stdout: "x", Stderr: "\xff"},
			`{"tool_success":false,"error":"Tool 'bash' crashed with exit code 139","error_code":"TOOL_CRASHED","exit_code":139,"stdout":"x","stderr":"\ufffd"}`},
		{Denied("bash", "the user refused"), `{"tool_success":false,"error":"Tool 'bash' was denied: the user refused","error_code":"TOOL_DENIED"}`},
		{NotFound("nope"), `{"tool_success":false,"error":"Tool 'nope' not found","error_code":"TOOL_NOT_FOUND"}`},
	} {
		if got := string(tc.env.JSON()); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
}

func TestOperationError(t *testing.T) {
	type want struct {
		Code, Message string
		OK            bool
	}
	for _, tc := range []struct {
		env  Envelope
		want want
	}{
		{Succeeded(json.RawMessage(`{"error":"Error: gone","error_code":"FILE_NOT_FOUND"}`)), want{"FILE_NOT_FOUND", "Error: gone", true}},
		{Succeeded(json.RawMessage(`{"error_code":"X"}`)), want{"X", "", true}},
		{Succeeded(json.RawMessage(`{"error":"x"}`)), want{ToolError, "x", true}},
		{Succeeded(json.RawMessage(`{"output":"error_code","count":1}`)), want{}},
		{Succeeded(json.RawMessage(`{"error":"","error_code":null,"output":"fine"}`)), want{}},
		{Succeeded(json.RawMessage(`{"error":{"deep":1}}`)), want{}},
		{Succeeded(json.RawMessage(`["error"]`)), want{}},
		{Failed(ToolCrashed, "Tool 'x' crashed"), want{}},
	} {
		code, message, ok := tc.env.OperationError()
		if diff := cmp.Diff(tc.want, want{code, message, ok}); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.env.JSON(), diff)
		}
	}
}
