// Package app is ikigai's command line: a thin shell over the packages
// that find, describe and run tools and hold conversations. Each command
// reads its flags, builds a workspace from them, and calls into the
// packages; New builds the whole command tree, so commands can be added in
// one place.
package app

import (
	"fmt"

	"github.com/ikigai-tools/ikigai/internal/app/completioncmd"
	"github.com/ikigai-tools/ikigai/internal/app/hookscmd"
	"github.com/ikigai-tools/ikigai/internal/app/mcpcmd"
	"github.com/ikigai-tools/ikigai/internal/app/sandboxcmd"
	"github.com/ikigai-tools/ikigai/internal/app/sessionscmd"
	"github.com/ikigai-tools/ikigai/internal/app/statscmd"
	"github.com/ikigai-tools/ikigai/internal/app/toolscmd"
	"github.com/ikigai-tools/ikigai/internal/app/trustcmd"
	"github.com/ikigai-tools/ikigai/internal/buildinfo"
	"github.com/ikigai-tools/ikigai/internal/cmdline"
	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/urfave/cli/v2"
)

// Run runs ikigai with the command line args, flags in any order.
func Run(args []string) error {
	a := New()
	return a.Run(cmdline.Arrange(a, args))
}

// New returns the ikigai command line application.
func New() *cli.App {
	app := &cli.App{
		Name:                 "ikigai",
		Usage:                "a terminal LLM agent whose every tool is an external executable",
		Version:              buildinfo.Version,
		EnableBashCompletion: true,
		// A rule such as bash(a, b) holds commas: a slice flag's value is
		// one rule, not a list.
		DisableSliceFlagSeparator: true,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "trust", Usage: "use the working directory's .ikigai tools and configuration for this run, without trusting it for good"},
			&cli.PathFlag{Name: "libexec-dir", Usage: "look for the system tools in `DIR`", EnvVars: []string{"IKIGAI_LIBEXEC_DIR"}},
			// Its variable is read with the configuration, which reports a
			// bad value the way it reports any other.
			&cli.Float64Flag{Name: "tool-timeout", Usage: "stop a tool call after `SECONDS`; also IKIGAI_TOOL_TIMEOUT_SECONDS",
				DefaultText: fmt.Sprintf("configured, else %v", execute.DefaultTimeout.Seconds())},
			&cli.BoolFlag{Name: "debug", Usage: "add discovery's and the MCP servers' events to the log"},
		},
		ArgsUsage: "[PROMPT]",
		Action:    runAgent,
		Commands: []*cli.Command{
			toolscmd.NewCommand(),
			sessionscmd.NewCommand(),
			mcpcmd.NewCommand(),
			statscmd.NewCommand(),
			trustcmd.NewCommand(),
			hookscmd.NewCommand(),
			sandboxcmd.NewCommand(),
			completioncmd.NewCommand(),
			versionCommand(),
		},
		ExitErrHandler: cmdline.ExitError,
		OnUsageError:   cmdline.UsageError,
	}
	app.Flags = append(app.Flags, agentFlags()...)
	cmdline.SetUsageError(app.Commands)
	return app
}

func init() {
	// --version prints what the version command does.
	cli.VersionPrinter = func(c *cli.Context) { fmt.Fprintln(c.App.Writer, "ikigai", c.App.Version) }
}

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print ikigai's version",
		Action: func(c *cli.Context) error {
			fmt.Fprintln(c.App.Writer, "ikigai", buildinfo.Version)
			return nil
		},
	}
}
