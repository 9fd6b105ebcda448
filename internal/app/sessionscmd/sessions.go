// Package sessionscmd is ikigai sessions: the saved conversations.
package sessionscmd

import (
	"github.com/ikigai-tools/ikigai/internal/app/command"
	"github.com/ikigai-tools/ikigai/internal/display"
	"github.com/ikigai-tools/ikigai/internal/session"
	"github.com/urfave/cli/v2"
)

// NewCommand returns the command.
func NewCommand() *cli.Command {
	return &cli.Command{
		Name:  "sessions",
		Usage: "list the saved conversations, newest first",
		Description: "Every conversation is saved as it goes, one file per session in\n" +
			"$XDG_STATE_HOME/ikigai/sessions (else ~/.local/state/ikigai/sessions).\n" +
			"ikigai --resume ID goes on with one; ikigai --continue with the latest of the working directory.",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print the list as JSON, for scripts"}},
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return command.Usage("usage: ikigai sessions [--json]")
			}
			l, err := command.Layout()
			if err != nil {
				return err
			}
			var list []session.Summary
			if l.State != "" {
				if list, err = session.At(l.Sessions()).List(); err != nil {
					return err
				}
			}
			if c.Bool("json") {
				if list == nil {
					list = []session.Summary{}
				}
				return command.PrintJSON(c.App.Writer, list)
			}
			return display.WriteSessions(c.App.Writer, c.App.ErrWriter, list, l.Sessions())
		},
	}
}
