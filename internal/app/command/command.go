// Package command is what every ikigai command is built on: the exit
// statuses and usage errors, the workspace its flags describe, its log,
// and its terminal. The commands themselves live in the packages beside
// this one, one per command, each a thin shell over the packages that do
// the work; package app puts them together.
package command

import (
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/ikigai-tools/ikigai/internal/agent"
	"github.com/ikigai-tools/ikigai/internal/approval"
	"github.com/ikigai-tools/ikigai/internal/calllog"
	"github.com/ikigai-tools/ikigai/internal/display"
	"github.com/ikigai-tools/ikigai/internal/plainjson"
	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/rules"
	"github.com/ikigai-tools/ikigai/internal/sandbox"
	"github.com/ikigai-tools/ikigai/internal/workspace"
	"github.com/urfave/cli/v2"
	"golang.org/x/sys/unix"
)

// Exit statuses, besides 0 (done), 1 (something failed) and 2 (a bad
// command line).
const (
	ExitTurnLimit   = 3   // stopped at max_tool_turns with the model still calling tools
	ExitInterrupted = 130 // SIGINT, SIGTERM or SIGHUP
)

// Signals are those that end what the user started: each cancels what
// runs, and its tools are stopped, before ikigai exits.
var Signals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// Silent is an exit status whose reason was already printed.
func Silent(code int) error { return cli.Exit("", code) }

// Usage is a bad command line: exit status 2.
func Usage(format string, args ...any) error { return cli.Exit(fmt.Sprintf(format, args...), 2) }

// Failure is how a run that did not finish ends: cancelled, or failed.
func Failure(err error) error {
	if err == nil {
		return nil
	}
	if agent.IsCancel(err) {
		return cli.Exit("interrupted", ExitInterrupted)
	}
	return err
}

// Inputs are what the process brings to a workspace: the home and working
// directories and the environment. This is the one place ikigai asks the
// operating system for them.
func Inputs() (workspace.Inputs, error) {
	dir, err := os.Getwd()
	if err != nil {
		return workspace.Inputs{}, err
	}
	home, _ := os.UserHomeDir()
	return workspace.Inputs{Home: home, Dir: dir, Getenv: os.Getenv}, nil
}

// Layout is where ikigai keeps things, for the commands that need no more.
func Layout() (workspace.Layout, error) {
	in, err := Inputs()
	if err != nil {
		return workspace.Layout{}, err
	}
	return workspace.NewLayout(in)
}

// Load builds the workspace the command line describes.
func Load(c *cli.Context) (*workspace.Workspace, error) {
	opts, err := Options(c)
	if err != nil {
		return nil, err
	}
	in, err := Inputs()
	if err != nil {
		return nil, err
	}
	w, err := workspace.Load(in, opts)
	if err == nil && w.SandboxNotice() != "" {
		fmt.Fprintln(c.App.ErrWriter, "ikigai:", w.SandboxNotice())
	}
	return w, err
}

// Options reads the flags that shape a workspace, checking their values.
func Options(c *cli.Context) (workspace.Options, error) {
	o := workspace.Options{Trust: c.Bool("trust"), LibexecDir: c.Path("libexec-dir"), Debug: c.Bool("debug"), Rescan: c.Bool("refresh")}
	if c.IsSet("tool-timeout") {
		s := c.Float64("tool-timeout")
		if !(s > 0) {
			return o, Usage("--tool-timeout: want a number of seconds above 0, got %v", s)
		}
		o.Overrides.ToolTimeout = time.Duration(s * float64(time.Second))
	}
	for flag, field := range map[string]*string{"provider": &o.Overrides.Provider, "model": &o.Overrides.Model, "base-url": &o.Overrides.BaseURL,
		"approval": &o.Overrides.Approval, "sandbox": &o.Overrides.Sandbox, "reasoning": &o.Overrides.Reasoning} {
		if c.IsSet(flag) {
			*field = c.String(flag)
		}
	}
	if c.Bool("yes") {
		o.Overrides.Approval = string(approval.Auto)
	}
	if o.Overrides.Approval != "" {
		if _, err := approval.ParseMode(o.Overrides.Approval); err != nil {
			return o, Usage("--approval: %v", err)
		}
	}
	o.Overrides.Allow, o.Overrides.Deny = c.StringSlice("allow-tool"), c.StringSlice("deny-tool")
	for flag, list := range map[string][]string{"--allow-tool": o.Overrides.Allow, "--deny-tool": o.Overrides.Deny} {
		for _, r := range list {
			if _, err := rules.Parse(r); err != nil {
				return o, Usage("%s %q: %v", flag, r, err)
			}
		}
	}
	if _, err := provider.ParseReasoning(o.Overrides.Reasoning); err != nil {
		return o, Usage("--reasoning: %v", err)
	}
	if o.Overrides.Sandbox != "" {
		if _, err := sandbox.ParseMode(o.Overrides.Sandbox); err != nil {
			return o, Usage("--sandbox: %v", err)
		}
	}
	if c.IsSet("max-tool-turns") {
		n := c.Int("max-tool-turns")
		if n <= 0 {
			return o, Usage("--max-tool-turns: want a number above 0, got %d", n)
		}
		o.Overrides.MaxToolTurns = n
	}
	return o, nil
}

// OpenLog opens the workspace's call log, saying so on stderr when it
// cannot: ikigai runs on without one.
func OpenLog(c *cli.Context, w *workspace.Workspace) *calllog.Log {
	log, err := w.OpenLog()
	if err != nil {
		fmt.Fprintf(c.App.ErrWriter, "ikigai: %v\n", err)
	}
	log.OnWriteFailure(func(msg string) { fmt.Fprintln(c.App.ErrWriter, msg) })
	return log
}

// DebugLog opens the call log for a command that writes to it only with
// --debug; nil otherwise.
func DebugLog(c *cli.Context, w *workspace.Workspace) *calllog.Log {
	if !c.Bool("debug") {
		return nil
	}
	return OpenLog(c, w)
}

// PrintJSON writes v as indented JSON, for a command's --json.
func PrintJSON(w io.Writer, v any) error {
	b, err := plainjson.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// IsTerminal reports whether r is a terminal.
func IsTerminal(r any) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// TerminalSafe returns w, cleaned of control characters when it is a
// terminal: what a model or a tool says must not drive the terminal.
func TerminalSafe(w io.Writer) io.Writer {
	if IsTerminal(w) {
		return display.TerminalWriter(w)
	}
	return w
}
