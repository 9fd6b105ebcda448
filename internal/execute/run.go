package execute

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ikigai-tools/ikigai/internal/fserr"
	"github.com/ikigai-tools/ikigai/internal/sandbox"
	// The protocol's names, from their one home, on purpose.
	"github.com/ikigai-tools/ikigai/toolsdk"
	"github.com/ikigai-tools/ikigai/toolsdk/output"
)

const (
	// DefaultTimeout is how long a call may run unless configured otherwise.
	DefaultTimeout = 30 * time.Second
	// MaxStdout is the most a tool may print; past it the call fails with
	// OUTPUT_TOO_LARGE. What is more than the model can take whole, but
	// less than this, is kept in a file (Spill).
	MaxStdout = 16 << 20
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
	// Sandbox confines each run of the tool; nil runs it unconfined.
	Sandbox *sandbox.Confinement
	Env     Env // what of the agent's environment it gets
}

// Run calls the tool once: args on its stdin, its stdout as the result. The
// tool runs as a Tree with the agent's working directory and p.Env's
// environment plus IKIGAI_TOOL_NAME and IKIGAI_TOOL_TIMEOUT_MS. A tool that
// rejects its arguments the protocol's way (exit status 1 and one line on
// stderr) gets INVALID_PARAMS with that line as the message. After timeout
// (DefaultTimeout if zero), or when ctx is done, the tool and everything it
// started get SIGTERM and, Grace later, SIGKILL. Run never fails: every
// outcome is an envelope.
func (p Program) Run(ctx context.Context, args json.RawMessage, timeout time.Duration) Envelope {
	if env, ok := CheckArgs(p.Name, args); !ok {
		return env
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	box, done, err := p.confinement()
	if err != nil {
		return sandboxFailed(p.Name, err)
	}
	defer done()
	o := RunProcess(ctx, []string{p.Path}, args, p.Env.Environ(slices.Concat([]string{
		toolsdk.EnvToolName + "=" + p.Name,
		toolsdk.EnvTimeoutMS + "=" + strconv.FormatInt(timeout.Milliseconds(), 10),
	}, box.Env(), CallEnv(ctx))...), Limits{Timeout: timeout, MaxStdout: MaxStdout, MaxStderr: failureOutput, Stop: syscall.SIGTERM, WaitDelay: Grace, Sandbox: box})
	return p.noted(p.envelope(o, timeout))
}

// envelope is what the model sees of the run o of the tool.
func (p Program) envelope(o Outcome, timeout time.Duration) Envelope {

	fail := func(code, format string, args ...any) Envelope {
		env := Failed(code, format, args...)
		env.Stdout, _ = output.Truncate(string(o.Stdout), failureOutput)
		env.Stderr = o.Stderr
		return env
	}
	switch {
	case errors.Is(o.Stopped, ErrTooLarge):
		return fail(OutputTooLarge, "Tool '%s' printed more than %d MiB", p.Name, MaxStdout>>20)
	case errors.Is(o.Stopped, ErrTimeout):
		return fail(ToolTimeout, "Tool '%s' timed out after %v", p.Name, timeout)
	case o.Stopped != nil:
		return fail(ToolCancelled, "Tool '%s' was cancelled", p.Name)
	case o.State == nil && sandbox.IsError(o.Err):
		return sandboxFailed(p.Name, o.Err)
	case o.State == nil && errors.Is(o.Err, fs.ErrNotExist):
		return NotFound(p.Name)
	case o.State == nil:
		return fail(ToolCrashed, "Tool '%s' could not be started: %v", p.Name, fserr.Reason(o.Err)) // the message names the tool, not its path
	}
	if how, code := o.Exit(); code != 0 {
		if line, ok := inputError(code, o); ok {
			return Failed(InvalidParams, "%s", line)
		}
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

// inputError returns the line of the protocol's input error, if that is
// how the tool ended: exit status 1, nothing on stdout, and one line on
// stderr that starts with a tool's command name ("file-read-tool: missing
// or invalid file_path field"). The name is not checked against the file's:
// a tool installed under another name still says its own.
func inputError(code int, o Outcome) (string, bool) {
	line := strings.TrimRight(o.Stderr, "\r\n")
	if code != 1 || len(bytes.Trim(o.Stdout, jsonSpace)) != 0 || line == "" || strings.ContainsAny(line, "\r\n") {
		return "", false
	}
	command, message, ok := strings.Cut(line, ": ")
	if !ok || message == "" || len(command) <= len("-tool") || !strings.HasSuffix(command, "-tool") || strings.ContainsAny(command, " \t") {
		return "", false
	}
	return line, true
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
