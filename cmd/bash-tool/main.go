// Command bash-tool runs a shell command and returns its output and exit code.
package main

import (
	"context"
	"errors"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/ikigai-tools/ikigai/toolsdk"
	"github.com/ikigai-tools/ikigai/toolsdk/output"
)

type params struct {
	Command string   `json:"command" description:"The shell command to run with bash -c. stdout and stderr are merged, in the order they were written."`
	Timeout *float64 `json:"timeout,omitempty" description:"Seconds before the command is killed (default: just under the agent's tool timeout)"`
}

type result struct {
	Output    string `json:"output" description:"Combined stdout and stderr, one trailing newline removed"`
	ExitCode  int    `json:"exit_code" description:"The command's exit status; 127 when not found, 128+N when killed by signal N, 124 on timeout"`
	Truncated bool   `json:"truncated,omitempty" description:"Output was too long; the middle was omitted"`
	TimedOut  bool   `json:"timed_out,omitempty" description:"The command was killed when the timeout ran out"`
}

const (
	// defaultTimeout applies when neither the caller nor the agent set one,
	// such as when bash-tool is run by hand.
	defaultTimeout = 2 * time.Minute
	// exitTimedOut is the exit code reported for a timed-out command, as
	// coreutils timeout(1) does.
	exitTimedOut = 124
	// killGrace is how long the command's processes have between SIGTERM
	// and SIGKILL, and how long output is still collected from background
	// processes after the shell exits.
	killGrace = 250 * time.Millisecond
	// codeExecFailed is the error code of a command that could not be
	// started at all.
	codeExecFailed = "EXEC_FAILED"
)

var tool = toolsdk.New(toolsdk.Schema{
	Name:        "bash",
	Description: "Run a shell command with bash and return its combined output and exit code. Use it for builds, tests, git and other command-line work.",
}, run)

func main() { tool.Main() }

func run(ctx context.Context, p params) (result, error) {
	if p.Timeout != nil && !(*p.Timeout > 0) {
		return result{}, toolsdk.InvalidField("timeout")
	}
	ctx, cancel := context.WithTimeout(ctx, timeout(ctx, p.Timeout))
	defer cancel()

	// On a timeout or a signal, every process the command started goes,
	// not only its process group: what left the group (setsid) too, and
	// what its parent left behind, which bash-tool adopts.
	adoptOrphans()
	defer toolsdk.OnInterrupt(func() { killTree(syscall.SIGKILL) })()

	out := output.NewHeadTail(output.DefaultBudget)
	cmd := exec.CommandContext(ctx, shell(), "-c", p.Command)
	cmd.Args[0] = filepath.Base(cmd.Path) // "bash: line 1: ..." in messages, not the full path
	cmd.Stdout = out                      // the same writer for both: one pipe, order kept
	cmd.Stderr = out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		killTree(syscall.SIGTERM)
		return err
	}
	cmd.WaitDelay = killGrace
	err := cmd.Run()
	if cmd.Process != nil && ctx.Err() != nil {
		// Whatever ignored SIGTERM goes now. A background process left by
		// a command that exited by itself is kept: it may be a server.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		killTree(syscall.SIGKILL)
	}

	res := result{Output: trimNewline(out.String()), Truncated: out.Truncated()}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		res.ExitCode, res.TimedOut = exitTimedOut, true
	case cmd.ProcessState != nil:
		res.ExitCode = exitCode(cmd.ProcessState)
	case err != nil:
		return res, toolsdk.Errorf(codeExecFailed, "Error: running command: %v", err)
	}
	return res, nil
}

// timeout is how long the command may run: what the caller asked for, but
// never past the tool's own deadline.
func timeout(ctx context.Context, seconds *float64) time.Duration {
	d := defaultTimeout
	if deadline, ok := ctx.Deadline(); ok {
		d = time.Until(deadline)
	}
	if seconds != nil {
		d = min(d, time.Duration(*seconds*float64(time.Second)))
	}
	return d
}

func shell() string {
	if path, err := exec.LookPath("bash"); err == nil {
		return path
	}
	return "/bin/sh"
}

func exitCode(ps interface{ Sys() any }) int {
	ws, ok := ps.Sys().(syscall.WaitStatus)
	switch {
	case !ok:
		return -1
	case ws.Signaled():
		return 128 + int(ws.Signal())
	default:
		return ws.ExitStatus()
	}
}

func trimNewline(s string) string {
	if len(s) > 0 && s[len(s)-1] == '\n' {
		return s[:len(s)-1]
	}
	return s
}
