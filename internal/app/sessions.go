package app

import (
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/ikigai-tools/ikigai/internal/display"
	"github.com/ikigai-tools/ikigai/internal/session"
	"github.com/urfave/cli/v2"
)

func sessionsCommand() *cli.Command {
	return &cli.Command{
		Name:  "sessions",
		Usage: "list the saved conversations, newest first",
		Description: "Every conversation is saved as it goes, one file per session in\n" +
			"$XDG_STATE_HOME/ikigai/sessions (else ~/.local/state/ikigai/sessions).\n" +
			"ikigai --resume ID goes on with one; ikigai --continue with the latest of the working directory.",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print the list as JSON, for scripts"}},
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return cli.Exit("usage: ikigai sessions [--json]", 2)
			}
			home, err := os.UserHomeDir()
			if err != nil {
				return err
			}
			list, err := sessionStore(home).List()
			if err != nil {
				return err
			}
			if c.Bool("json") {
				if list == nil {
					list = []session.Summary{}
				}
				return printJSON(c.App.Writer, list)
			}
			if len(list) == 0 {
				fmt.Fprintf(c.App.ErrWriter, "No saved conversations in %s.\n", session.Dir(os.Getenv, home))
				return nil
			}
			w := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "ID\tSTARTED\tMESSAGES\tDIRECTORY\tFIRST PROMPT")
			for _, s := range list {
				fmt.Fprintf(w, "%s\t%s\t%d\t%s\t%s\n", s.ID, s.Started.Local().Format("2006-01-02 15:04"), s.Messages, s.Dir,
					display.Lines(s.Title, 1, 60))
			}
			return w.Flush()
		},
	}
}
