package execute

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/ikigai-tools/ikigai/toolsdk"
	"golang.org/x/sys/unix"
)

// Why a run was stopped, as Outcome.Stopped reports it; otherwise it is the
// cause of the caller's context.
var (
	ErrTimeout  = errors.New("timeout")
	ErrTooLarge = errors.New("output too large")
)

// Limits bound one run of a process.
type Limits struct {
	Timeout   time.Duration
	MaxStdout int
	MaxStderr int // kept as head and tail
	// Stop is the signal the process group gets on timeout, too much
	// output or cancellation.
	Stop syscall.Signal
	// WaitDelay is how long the process has after Stop before SIGKILL, and
	// how long its pipes are waited for once it has exited.
	WaitDelay time.Duration
}

// Outcome is how a run ended.
type Outcome struct {
	Stdout []byte // at most Limits.MaxStdout bytes
	Stderr string // head and tail, valid UTF-8
	// State is nil when the process could not be started; Err says why.
	State *os.ProcessState
	Err   error
	// Stopped is why the run was stopped (ErrTimeout, ErrTooLarge, or the
	// context's cause), or nil when the process ended by itself.
	Stopped error
}

// RunProcess runs argv in its own process group within limits, with stdin
// (nil for none) and env added to the agent's environment. Whatever is left
// of the group when the process has ended is killed: a tool's helpers live
// no longer than the tool.
func RunProcess(ctx context.Context, argv []string, stdin []byte, env []string, l Limits) Outcome {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	ctx, stop := context.WithTimeoutCause(ctx, l.Timeout, ErrTimeout)
	defer stop()

	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	if env != nil {
		cmd.Env = append(cmd.Environ(), env...)
	}

	stdout := &capped{max: l.MaxStdout, overflow: func() { cancel(ErrTooLarge) }}
	stderr := toolsdk.NewHeadTail(l.MaxStderr)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, l.Stop) }
	cmd.WaitDelay = l.WaitDelay
	err := cmd.Run()
	if cmd.Process != nil {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	out := Outcome{Stdout: stdout.buf, Stderr: stderr.String(), State: cmd.ProcessState, Err: err}
	if err != nil {
		// A process that finished before the context was done ended by
		// itself, even if its pipes were then closed on it.
		out.Stopped = context.Cause(ctx)
	}
	return out
}

// Exit describes how a process that ran ended: "exit code 3", "signal
// SIGSEGV", and the exit code a shell would report (128+N for signal N).
func (o Outcome) Exit() (string, int) {
	if ws, ok := o.State.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "signal " + unix.SignalName(ws.Signal()), 128 + int(ws.Signal())
	}
	code := o.State.ExitCode()
	return fmt.Sprintf("exit code %d", code), code
}

// capped keeps what is written up to max bytes. The first write past it
// calls overflow and fails, which stops the copying from the pipe.
type capped struct {
	buf      []byte
	max      int
	overflow func()
}

func (c *capped) Write(p []byte) (int, error) {
	if len(c.buf)+len(p) > c.max {
		c.buf = append(c.buf, p[:c.max-len(c.buf)]...)
		c.overflow()
		return 0, fmt.Errorf("more than %d bytes", c.max)
	}
	c.buf = append(c.buf, p...)
	return len(p), nil
}
