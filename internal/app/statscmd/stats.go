// Package statscmd is ikigai stats: how the tool calls in the log went.
package statscmd

import (
	"github.com/ikigai-tools/ikigai/internal/app/command"
	"github.com/ikigai-tools/ikigai/internal/calllog"
	"github.com/urfave/cli/v2"
)

// NewCommand returns the command.
func NewCommand() *cli.Command {
	return &cli.Command{
		Name:  "stats",
		Usage: "show how the tool calls in the log went",
		Description: "Reads the log (~/.local/state/ikigai/ikigai.log, or under $XDG_STATE_HOME) and\n" +
			"prints, for each tool, its calls, how many failed and with which error codes, and\n" +
			"the median and 95th percentile of their durations.",
		Flags:  []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print the statistics as JSON, for scripts"}},
		Action: showStats,
	}
}

func showStats(c *cli.Context) error {
	if c.Args().Present() {
		return command.Usage("usage: ikigai stats [--json]")
	}
	l, err := command.Layout()
	if err != nil {
		return err
	}
	s, err := calllog.ReadStats(l.LogDir())
	if err != nil {
		return err
	}
	if c.Bool("json") {
		return command.PrintJSON(c.App.Writer, s)
	}
	return s.WriteText(c.App.Writer)
}
