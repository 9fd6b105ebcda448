// Package toolscmd is ikigai tools: listing, showing, calling, checking and creating tools.
package toolscmd

import (
	"encoding/json"
	"fmt"
	"io"
	"os/signal"
	"time"

	"github.com/ikigai-tools/ikigai/internal/app/command"

	"github.com/ikigai-tools/ikigai/internal/config"
	"github.com/ikigai-tools/ikigai/internal/discovery"
	"github.com/ikigai-tools/ikigai/internal/display"
	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/urfave/cli/v2"
)

// NewCommand returns the command.
func NewCommand() *cli.Command {
	return &cli.Command{
		Name:  "tools",
		Usage: "list, inspect, call, check and create tools",
		Description: "Without a subcommand, lists every tool found in the system, user and project\n" +
			"directories, what each one shadows, and the tools that cannot be used, with why.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the listing as JSON, for scripts"},
			&cli.BoolFlag{Name: "refresh", Usage: "ask every tool for its schema again, whatever ikigai remembers"},
		},
		Action: listTools,
		Subcommands: []*cli.Command{
			{
				Name:         "show",
				Usage:        "print a tool's path and schema",
				ArgsUsage:    "NAME",
				Action:       showTool,
				BashComplete: completeToolNames,
			},
			{
				Name:      "call",
				Usage:     "run a tool once and print the envelope the model would see",
				ArgsUsage: "NAME [JSON|-]",
				Description: "Runs the tool with JSON arguments (from the command line, from stdin with -, or {}\n" +
					"when there are none) and prints the envelope. Exits 0 only when tool_success is true.\n" +
					"The tool is found by name without asking any tool for its schema.",
				Flags: []cli.Flag{
					&cli.Float64Flag{Name: "timeout", Usage: "stop the tool after `SECONDS`",
						DefaultText: fmt.Sprintf("configured, else %v", execute.DefaultTimeout.Seconds())},
				},
				Action:       callTool,
				BashComplete: completeToolNames,
			},
			checkCommand(),
			newCommand(),
		},
	}
}

func listTools(c *cli.Context) error {
	if c.Args().Present() {
		return command.Usage("unknown tools subcommand %q (see ikigai tools --help)", c.Args().First())
	}
	w, err := command.Load(c)
	if err != nil {
		return err
	}
	log := command.DebugLog(c, w)
	defer log.Close()
	r, done := w.Listing(c.Context, log)
	defer done()
	if c.Bool("json") {
		return command.PrintJSON(c.App.Writer, display.NewToolList(r))
	}
	if err := display.WriteListing(c.App.Writer, c.App.ErrWriter, r, w.Places(), len(w.TrustChanges) > 0); err != nil {
		return err
	}
	if unread := w.UnreadMCPFile(); unread != "" {
		fmt.Fprintf(c.App.Writer, "\n%s\n", unread)
	}
	return nil
}

func showTool(c *cli.Context) error {
	if c.NArg() != 1 {
		return command.Usage("usage: ikigai tools show NAME")
	}
	name := c.Args().First()
	w, err := command.Load(c)
	if err != nil {
		return err
	}
	log := command.DebugLog(c, w)
	defer log.Close()
	r, done := w.Listing(c.Context, log)
	defer done()
	t, ok := r.Lookup(name)
	if !ok {
		return cli.Exit(display.Missing(r, name), 1)
	}
	fmt.Fprintln(c.App.Writer, display.Tool(t))
	return nil
}

func callTool(c *cli.Context) error {
	if c.NArg() < 1 || c.NArg() > 2 {
		return command.Usage("usage: ikigai tools call NAME [JSON|-]")
	}
	name, args := c.Args().Get(0), []byte("{}")
	switch arg := c.Args().Get(1); arg {
	case "":
	case "-":
		var err error
		if args, err = io.ReadAll(c.App.Reader); err != nil {
			return err
		}
	default:
		args = []byte(arg)
	}
	w, err := command.Load(c)
	if err != nil {
		return err
	}
	timeout := w.Config.TimeoutFor(name)
	if c.IsSet("timeout") {
		s := c.Float64("timeout")
		if !(s > 0) {
			return command.Usage("--timeout: want a number of seconds above 0, got %v", s)
		}
		timeout = time.Duration(s * float64(time.Second))
	}

	log := command.OpenLog(c, w)
	defer log.Close()
	// Ctrl-C stops the tool, not ikigai: the call ends as TOOL_CANCELLED.
	ctx, stop := signal.NotifyContext(c.Context, command.Signals...)
	defer stop()
	if config.Rules(w.Config.Deny).Covers(name) {
		fmt.Fprintf(c.App.ErrWriter, "note: %s is denied by the configuration; running it because you asked for it by name\n", name)
	}
	env, _ := w.Call(ctx, log, name, args, timeout)
	fmt.Fprintf(c.App.Writer, "%s\n", env.JSON())
	if !env.Success {
		return command.Silent(1)
	}
	return nil
}

// completeToolNames offers the names of the tools for completion, found
// without running any.
func completeToolNames(c *cli.Context) {
	if c.NArg() > 0 {
		return
	}
	w, err := command.Load(c)
	if err != nil {
		return
	}
	for _, name := range discovery.Names(w.ToolDirs) {
		fmt.Fprintln(c.App.Writer, name)
	}
}

func checkCommand() *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "check tool executables against the protocol, for tool authors",
		ArgsUsage: "PATH...",
		Description: "Checks each tool's file name, executable bit, --schema (time, size, validity)\n" +
			"and, with --args, one call; every problem comes with what to do about it.\n" +
			"Exits 1 if any check failed.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "args", Usage: "also call each tool with these `JSON` arguments"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return command.Usage("usage: ikigai tools check [--args JSON] PATH...")
			}
			w, err := command.Load(c)
			if err != nil {
				return err
			}
			passed := true
			for i, path := range c.Args().Slice() {
				if i > 0 {
					fmt.Fprintln(c.App.Writer)
				}
				findings := discovery.Check(c.Context, path, discovery.CheckOptions{
					SchemaTimeout: w.Config.SchemaTimeout,
					Call:          c.IsSet("args"),
					Args:          json.RawMessage(c.String("args")),
					CallTimeout:   w.Config.TimeoutFor,
					Env:           w.ToolDirs.Env,
				})
				discovery.WriteFindings(c.App.Writer, path, findings)
				passed = passed && discovery.Passed(findings)
			}
			if !passed {
				return command.Silent(1)
			}
			return nil
		},
	}
}
