package execute

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/ikigai-tools/ikigai/internal/sandbox"
	// The host cuts what a tool printed as the core tools cut their
	// results, and shares the code on purpose: toolsdk/output depends on
	// nothing, not even the SDK's protocol package.
	"github.com/ikigai-tools/ikigai/toolsdk/output"
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
	// how long its output is still read, once it has exited, from a process
	// that left its group holding the pipes.
	WaitDelay time.Duration
	// Sandbox confines the process; nil for not at all.
	Sandbox *sandbox.Confinement
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

// RunProcess runs argv as a Tree within limits, with stdin (nil for none)
// and environ as its whole environment (nil for Env{}.Environ()). When the
// run is stopped (timeout, too much output, ctx), the whole tree gets
// Limits.Stop, then SIGKILL once the process has exited or WaitDelay has
// passed. When the process exits by itself, what is left of its process
// group is killed, so helpers holding its output cannot keep the caller
// waiting; what it started in a group of its own is left running.
func RunProcess(ctx context.Context, argv []string, stdin []byte, environ []string, l Limits) Outcome {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	ctx, stop := context.WithTimeoutCause(ctx, l.Timeout, ErrTimeout)
	defer stop()

	stdout := &capped{max: l.MaxStdout, overflow: func() { cancel(ErrTooLarge) }}
	stderr := output.NewHeadTail(l.MaxStderr)
	outPipe, err := readPipe(stdout)
	if err != nil {
		return Outcome{Err: err}
	}
	errPipe, err := readPipe(stderr)
	if err != nil {
		closePipes(0, outPipe)
		return Outcome{Err: err}
	}

	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	cmd.Env = environ
	// Files, not writers: Wait then returns when the process exits instead
	// of when every holder of the pipes has closed them.
	cmd.Stdout, cmd.Stderr = outPipe.w, errPipe.w
	var tree Tree
	cmd.Cancel = func() error {
		tree.Signal(l.Stop)
		return nil
	}
	cmd.WaitDelay = l.WaitDelay
	var stopped error
	err = tree.Start(cmd, l.Sandbox)
	if err == nil {
		err = cmd.Wait()
		if err != nil {
			// A process that finished cleanly ended by itself, even if the
			// context is done by now.
			stopped = context.Cause(ctx)
		}
		if stopped != nil {
			tree.Kill()
		} else {
			tree.KillGroup()
		}
		tree.Close()
	}
	closePipes(l.WaitDelay, outPipe, errPipe)
	if stopped == nil && stdout.over {
		// The process exited before its output was read to the limit.
		stopped = ErrTooLarge
	}
	return Outcome{Stdout: stdout.buf, Stderr: stderr.String(), State: cmd.ProcessState, Err: err, Stopped: stopped}
}

// pipe copies what a process writes to w into dst.
type pipe struct {
	r, w *os.File
	done chan struct{}
}

func readPipe(dst io.Writer) (*pipe, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	p := &pipe{r: r, w: w, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		io.Copy(dst, r)
	}()
	return p, nil
}

// closePipes closes the write ends, the child having its own copies, and
// waits for the copying to reach the end of the output, at most delay
// longer for writers that are still alive: one delay for all the pipes,
// not one after another.
func closePipes(delay time.Duration, pipes ...*pipe) {
	deadline := time.Now().Add(delay)
	for _, p := range pipes {
		p.w.Close()
		p.r.SetReadDeadline(deadline)
	}
	for _, p := range pipes {
		<-p.done
		p.r.Close()
	}
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
	over     bool
	overflow func()
}

func (c *capped) Write(p []byte) (int, error) {
	if len(c.buf)+len(p) > c.max {
		c.buf = append(c.buf, p[:c.max-len(c.buf)]...)
		c.over = true
		c.overflow()
		return 0, fmt.Errorf("more than %d bytes", c.max)
	}
	c.buf = append(c.buf, p...)
	return len(p), nil
}
