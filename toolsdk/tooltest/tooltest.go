// Package tooltest runs a toolsdk tool in-process, the way the agent runs it
// as a process: JSON arguments in; stdout, stderr and exit status out.
//
// Keep the tool in a package-level variable of the main package so its tests
// can reach it:
//
//	var tool = toolsdk.New(toolsdk.Schema{Name: "greet"}, greet)
//
//	func main() { tool.Main() }
//
// and in main_test.go:
//
//	res := tooltest.Call(t, tool, `{"name":"Ada"}`)
package tooltest

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ikigai-tools/ikigai/toolsdk"
)

// Result is what one run of a tool produced.
type Result struct {
	Stdout   string
	Stderr   string
	ExitCode int
}

// Option changes how Call runs a tool.
type Option func(*config)

type config struct {
	timeout time.Duration
}

// WithTimeout gives the tool's context a deadline, as IKIGAI_TOOL_TIMEOUT_MS
// does when the agent runs it.
func WithTimeout(d time.Duration) Option {
	return func(c *config) { c.timeout = d }
}

// Call runs tool with input on its stdin and returns what it printed and its
// exit status. It fails the test only if the tool panics.
func Call(t testing.TB, tool *toolsdk.Tool, input string, opts ...Option) Result {
	t.Helper()
	return run(t, tool, nil, input, opts)
}

// Schema runs tool --schema and returns its output, failing the test if the
// tool does not exit 0 with a JSON object.
func Schema(t testing.TB, tool *toolsdk.Tool) string {
	t.Helper()
	res := run(t, tool, []string{"--schema"}, "", nil)
	var obj map[string]any
	if res.ExitCode != 0 || json.Unmarshal([]byte(res.Stdout), &obj) != nil {
		t.Fatalf("%s --schema: exit %d, stdout %q, stderr %q", tool.Command(), res.ExitCode, res.Stdout, res.Stderr)
	}
	return res.Stdout
}

func run(t testing.TB, tool *toolsdk.Tool, args []string, input string, opts []Option) Result {
	t.Helper()
	var c config
	for _, opt := range opts {
		opt(&c)
	}
	ctx := t.Context()
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	var stdout, stderr bytes.Buffer
	code := tool.Run(ctx, args, strings.NewReader(input), &stdout, &stderr)
	return Result{Stdout: stdout.String(), Stderr: stderr.String(), ExitCode: code}
}

// Decode decodes the tool's stdout into v, failing the test if the tool did
// not exit 0 with exactly one JSON document followed by a newline.
func (r Result) Decode(t testing.TB, v any) {
	t.Helper()
	if r.ExitCode != 0 {
		t.Fatalf("exit status %d, stderr %q", r.ExitCode, r.Stderr)
	}
	if !strings.HasSuffix(r.Stdout, "\n") || strings.Count(r.Stdout, "\n") != 1 {
		t.Fatalf("stdout is not one line ending in a newline: %q", r.Stdout)
	}
	if err := json.Unmarshal([]byte(r.Stdout), v); err != nil {
		t.Fatalf("stdout is not valid JSON: %v\n%s", err, r.Stdout)
	}
}
