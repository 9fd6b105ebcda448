package command

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ikigai-tools/ikigai/internal/workspace"
	"github.com/urfave/cli/v2"
)

// options runs a command line through flags like ikigai's and returns what
// Options made of it.
func options(t *testing.T, args ...string) (workspace.Options, error) {
	t.Helper()
	var got workspace.Options
	var err error
	app := &cli.App{
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "trust"}, &cli.PathFlag{Name: "libexec-dir"}, &cli.BoolFlag{Name: "debug"}, &cli.BoolFlag{Name: "refresh"},
			&cli.Float64Flag{Name: "tool-timeout"}, &cli.StringFlag{Name: "provider"}, &cli.StringFlag{Name: "model"},
			&cli.StringFlag{Name: "base-url"}, &cli.StringFlag{Name: "approval"}, &cli.StringFlag{Name: "sandbox"},
			&cli.BoolFlag{Name: "yes"}, &cli.StringSliceFlag{Name: "allow-tool"}, &cli.StringSliceFlag{Name: "deny-tool"},
			&cli.IntFlag{Name: "max-tool-turns"}, &cli.StringFlag{Name: "reasoning"},
		},
		DisableSliceFlagSeparator: true,
		Action:                    func(c *cli.Context) error { got, err = Options(c); return nil },
	}
	if runErr := app.Run(append([]string{"ikigai"}, args...)); runErr != nil {
		t.Fatal(runErr)
	}
	return got, err
}

func TestOptions(t *testing.T) {
	got, err := options(t, "--trust", "--debug", "--libexec-dir", "/l", "--tool-timeout", "1.5", "--provider", "openai", "--model", "m",
		"--base-url", "http://x", "--approval", "auto", "--sandbox", "read-only", "--allow-tool", "bash(a, b)", "--deny-tool", "bash(rm *)",
		"--max-tool-turns", "7", "--reasoning", "high")
	if err != nil {
		t.Fatal(err)
	}
	want := workspace.Options{Trust: true, Debug: true, LibexecDir: "/l", Overrides: workspace.Overrides{
		Provider: "openai", Model: "m", BaseURL: "http://x", Approval: "auto", Sandbox: "read-only", Reasoning: "high",
		Allow: []string{"bash(a, b)"}, Deny: []string{"bash(rm *)"}, MaxToolTurns: 7, ToolTimeout: 1500 * time.Millisecond,
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Options (-want +got):\n%s", diff)
	}
	if got, _ := options(t, "--approval", "ask", "--yes"); got.Overrides.Approval != "auto" {
		t.Errorf("--yes: approval %q", got.Overrides.Approval)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--tool-timeout", "0"}, "--tool-timeout: want a number of seconds above 0, got 0"},
		{[]string{"--approval", "sometimes"}, `--approval: approval mode "sometimes": want ask, auto, read-only or sandboxed`},
		{[]string{"--sandbox", "tight"}, "--sandbox: "},
		{[]string{"--allow-tool", "bash("}, `--allow-tool "bash(": `},
		{[]string{"--max-tool-turns", "-1"}, "--max-tool-turns: want a number above 0, got -1"},
		{[]string{"--reasoning", "max"}, `--reasoning: reasoning "max": want off, low, medium or high`},
	} {
		_, err := options(t, tc.args...)
		var ec cli.ExitCoder
		if !errors.As(err, &ec) || ec.ExitCode() != 2 || len(err.Error()) < len(tc.want) || err.Error()[:len(tc.want)] != tc.want {
			t.Errorf("%q: %v, want a usage error starting %q", tc.args, err, tc.want)
		}
	}
}

func TestFailure(t *testing.T) {
	var ec cli.ExitCoder
	if err := Failure(context.Canceled); !errors.As(err, &ec) || ec.ExitCode() != ExitInterrupted || err.Error() != "interrupted" {
		t.Errorf("cancelled: %v", err)
	}
	boom := errors.New("boom")
	if err := Failure(boom); err != boom {
		t.Errorf("failed: %v", err)
	}
	if Failure(nil) != nil {
		t.Error("nil is not nil")
	}
}
