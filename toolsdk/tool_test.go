package toolsdk_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ikigai-tools/ikigai/toolsdk"
	"github.com/ikigai-tools/ikigai/toolsdk/tooltest"
)

type echoParams struct {
	Text string `json:"text"`
}

func echoTool(run func(ctx context.Context, p echoParams) (any, error)) *toolsdk.Tool {
	return toolsdk.New(toolsdk.Schema{Name: "echo_back", Description: "Echo"}, run)
}

func TestRun(t *testing.T) {
	ok := echoTool(func(ctx context.Context, p echoParams) (any, error) {
		return map[string]string{"text": p.Text}, nil
	})
	tests := []struct {
		name  string
		tool  *toolsdk.Tool
		input string
		want  tooltest.Result
	}{
		{"result", ok, `{"text":"hi"}`, tooltest.Result{Stdout: `{"text":"hi"}` + "\n"}},
		{"empty input", ok, "", tooltest.Result{Stderr: "echo-back-tool: empty input\n", ExitCode: 1}},
		{"blank input", ok, " \n\t", tooltest.Result{Stderr: "echo-back-tool: empty input\n", ExitCode: 1}},
		{"invalid JSON", ok, "{", tooltest.Result{Stderr: "echo-back-tool: invalid JSON: unexpected end of JSON input\n", ExitCode: 1}},
		{"missing field", ok, "{}", tooltest.Result{Stderr: "echo-back-tool: missing or invalid text field\n", ExitCode: 1}},
		{"operation error", echoTool(func(ctx context.Context, p echoParams) (any, error) {
			return nil, toolsdk.Errorf("FILE_NOT_FOUND", "Error: reading file '%s': No such file or directory", p.Text)
		}), `{"text":"x"}`, tooltest.Result{Stdout: `{"error":"Error: reading file 'x': No such file or directory","error_code":"FILE_NOT_FOUND"}` + "\n"}},
		{"wrapped operation error", echoTool(func(ctx context.Context, p echoParams) (any, error) {
			return nil, fmt.Errorf("context: %w", toolsdk.Errorf("NOPE", "Error: nope"))
		}), `{"text":"x"}`, tooltest.Result{Stdout: `{"error":"Error: nope","error_code":"NOPE"}` + "\n"}},
		{"plain error", echoTool(func(ctx context.Context, p echoParams) (any, error) {
			return nil, errors.New("disk on fire")
		}), `{"text":"x"}`, tooltest.Result{Stdout: `{"error":"Error: disk on fire","error_code":"OPERATION_FAILED"}` + "\n"}},
		{"input error from the tool", echoTool(func(ctx context.Context, p echoParams) (any, error) {
			return nil, toolsdk.InvalidField("text")
		}), `{"text":""}`, tooltest.Result{Stderr: "echo-back-tool: missing or invalid text field\n", ExitCode: 1}},
		{"deadline", echoTool(func(ctx context.Context, p echoParams) (any, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		}), `{"text":"x"}`, tooltest.Result{Stdout: `{"error":"Error: timed out before finishing","error_code":"TIMEOUT"}` + "\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tooltest.Call(t, tt.tool, tt.input, tooltest.WithTimeout(10*time.Millisecond))
			if got != tt.want {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestRunFlags(t *testing.T) {
	tool := echoTool(nil)
	var stdout, stderr strings.Builder
	if code := tool.Run(context.Background(), []string{"--bogus"}, nil, &stdout, &stderr); code != 2 {
		t.Errorf("exit status %d, want 2", code)
	}
	if want := "echo-back-tool: unexpected argument \"--bogus\" (pipe JSON arguments to stdin, or use --schema)\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	stdout.Reset()
	if code := tool.Run(context.Background(), []string{"--help"}, nil, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "--schema") {
		t.Errorf("--help: exit %d, stdout %q", code, stdout.String())
	}
}

func TestInputTooLarge(t *testing.T) {
	tool := echoTool(func(ctx context.Context, p echoParams) (any, error) { return "ok", nil })
	tool.MaxInput = 16
	got := tooltest.Call(t, tool, `{"text":"0123456789"}`)
	want := tooltest.Result{Stderr: "echo-back-tool: input too large (limit 16 bytes)\n", ExitCode: 1}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}
