package app

import (
	"os"

	"github.com/ikigai-tools/ikigai/internal/calllog"
	"github.com/urfave/cli/v2"
)

func statsCommand() *cli.Command {
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
		return cli.Exit("usage: ikigai stats [--json]", 2)
	}
	home, _ := os.UserHomeDir()
	s, err := calllog.ReadStats(calllog.Dir(os.Getenv, home))
	if err != nil {
		return err
	}
	if c.Bool("json") {
		return printJSON(c.App.Writer, s)
	}
	return s.WriteText(c.App.Writer)
}
