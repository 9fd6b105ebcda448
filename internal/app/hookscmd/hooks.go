// Package hookscmd is ikigai hooks: the hooks in force, and trying them.
package hookscmd

import (
	"github.com/ikigai-tools/ikigai/internal/app/command"
	"github.com/ikigai-tools/ikigai/internal/display"
	"github.com/ikigai-tools/ikigai/internal/hooks"
	"github.com/urfave/cli/v2"
)

// NewCommand returns the command.
func NewCommand() *cli.Command {
	return &cli.Command{
		Name:  "hooks",
		Usage: "list the hooks in force, and try them",
		Description: "Without a subcommand, lists the hooks that run, in the order they run, with where each\n" +
			"comes from and how its last run went; then a project's hooks left alone because the\n" +
			"directory is not trusted, and files in the hooks directories that cannot be hooks.",
		Flags:  []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print the listing as JSON, for scripts"}},
		Action: listHooks,
		Subcommands: []*cli.Command{{
			Name:      "test",
			Usage:     "run the hooks of an event as the agent would, and print what they decided",
			ArgsUsage: "EVENT",
			Description: "--args gives the event's fields as the hooks read them, such as\n" +
				`'{"tool_name": "bash", "tool_input": {"command": "rm -rf build"}}' for pre_tool.` + "\n" +
				"Exits 1 when a hook failed.",
			Flags:  []cli.Flag{&cli.StringFlag{Name: "args", Usage: "the event's fields, a JSON object"}},
			Action: testHooks,
		}},
	}
}

func listHooks(c *cli.Context) error {
	if c.Args().Present() {
		return command.Usage("unknown hooks subcommand %q (see ikigai hooks --help)", c.Args().First())
	}
	w, err := command.Load(c)
	if err != nil {
		return err
	}
	l := display.NewHookList(w.Hooks(nil), hooks.LastRuns(w.LogDir()))
	if c.Bool("json") {
		return command.PrintJSON(c.App.Writer, l)
	}
	return display.WriteHooks(c.App.Writer, c.App.ErrWriter, l)
}

func testHooks(c *cli.Context) error {
	if c.NArg() != 1 {
		return command.Usage("usage: ikigai hooks test EVENT [--args JSON]")
	}
	event, err := hooks.ParseEvent(c.Args().First())
	if err != nil {
		return command.Usage("%v", err)
	}
	in, err := hooks.TrialInput(event, []byte(c.String("args")))
	if err != nil {
		return command.Usage("%v", err)
	}
	w, err := command.Load(c)
	if err != nil {
		return err
	}
	log := command.OpenLog(c, w)
	defer log.Close()
	res := w.Hooks(log).Run(c.Context, in)
	display.WriteHookTest(c.App.Writer, in, res)
	for _, r := range res.Runs {
		if r.Failure != "" {
			return command.Silent(1)
		}
	}
	return nil
}
