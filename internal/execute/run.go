package execute

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"strconv"
	"syscall"
	"time"

	"github.com/ikigai-tools/ikigai/toolsdk"
)

const (
	// DefaultTimeout is how long a call may run unless configured otherwise.
	DefaultTimeout = 30 * time.Second
	// MaxStdout is the most a tool may print; past it the call fails with
	// OUTPUT_TOO_LARGE.
	MaxStdout = 64 << 10
	// Grace is how long a tool's process group has between SIGTERM and
	// SIGKILL: longer than the second toolsdk gives a stopped tool to run
	// its clean-up hooks.
	Grace = 2 * time.Second
	// failureOutput caps the stdout and the stderr kept in a failure, each,
	// so a failing tool cannot flood the model's context.
	failureOutput = 4 << 10
)

// Program is a tool that is an executable file.
type Program struct {
	Name string // the tool's name, as the model calls it
	Path string
}

// Run calls the tool once: args on its stdin, its stdout as the result. The
// tool runs in its own process group with the agent's working directory and
// environment plus IKIGAI_TOOL_NAME and IKIGAI_TOOL_TIMEOUT_MS. After timeout
// (DefaultTimeout if zero), or when ctx is done, the group gets SIGTERM and,
// Grace later, SIGKILL. Run never fails: every outcome is an envelope.
func (p Program) Run(ctx context.Context, args json.RawMessage, timeout time.Duration) Envelope {
	if env, ok := CheckArgs(p.Name, args); !ok {
		return env
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	o := RunProcess(ctx, []string{p.Path}, args, []string{
		"IKIGAI_TOOL_NAME=" + p.Name,
		"IKIGAI_TOOL_TIMEOUT_MS=" + strconv.FormatInt(timeout.Milliseconds(), 10),
	}, Limits{Timeout: timeout, MaxStdout: MaxStdout, MaxStderr: failureOutput, Stop: syscall.SIGTERM, WaitDelay: Grace})

	fail := func(code, format string, args ...any) Envelope {
		env := Failed(code, format, args...)
		env.Stdout, _ = toolsdk.Truncate(string(o.Stdout), failureOutput)
		env.Stderr = o.Stderr
		return env
	}
	switch {
	case errors.Is(o.Stopped, ErrTooLarge):
		return fail(OutputTooLarge, "Tool '%s' printed more than %d KiB", p.Name, MaxStdout>>10)
	case errors.Is(o.Stopped, ErrTimeout):
		return fail(ToolTimeout, "Tool '%s' timed out after %v", p.Name, timeout)
	case o.Stopped != nil:
		return fail(ToolCancelled, "Tool '%s' was cancelled", p.Name)
	case o.State == nil && errors.Is(o.Err, fs.ErrNotExist):
		return NotFound(p.Name)
	case o.State == nil:
		return fail(ToolCrashed, "Tool '%s' could not be started: %v", p.Name, startError(o.Err))
	}
	if how, code := o.Exit(); code != 0 {
		env := fail(ToolCrashed, "Tool '%s' crashed with %s", p.Name, how)
		env.ExitCode = &code
		return env
	}
	result, problem := resultOf(o.Stdout)
	if problem != "" {
		return fail(InvalidOutput, "Tool '%s' %s", p.Name, problem)
	}
	return Succeeded(result)
}

// resultOf returns what a tool printed as one compact JSON document of
// valid UTF-8, or what is wrong with it.
func resultOf(stdout []byte) (json.RawMessage, string) {
	out := bytes.Trim(stdout, jsonSpace)
	switch {
	case len(out) == 0:
		return nil, "printed nothing"
	case !json.Valid(out):
		return nil, "did not print valid JSON"
	}
	var result bytes.Buffer
	json.Compact(&result, out) // cannot fail: out is valid
	// Invalid UTF-8 can only sit inside JSON strings, where U+FFFD keeps
	// the document valid.
	return bytes.ToValidUTF8(result.Bytes(), []byte("\uFFFD")), ""
}

// startError strips the path from an exec error: the message names the tool.
func startError(err error) error {
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) {
		return pathErr.Err
	}
	return err
}
