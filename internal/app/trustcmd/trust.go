// Package trustcmd is ikigai trust: trusting a project directory, listing and diffing what is trusted.
package trustcmd

import (
	"fmt"

	"github.com/ikigai-tools/ikigai/internal/app/command"

	"github.com/ikigai-tools/ikigai/internal/display"
	"github.com/ikigai-tools/ikigai/internal/trust"
	"github.com/urfave/cli/v2"
)

// NewCommand returns the command.
func NewCommand() *cli.Command {
	return &cli.Command{
		Name:      "trust",
		Usage:     "allow a project directory's own tools and configuration to run",
		ArgsUsage: "[DIR]",
		Description: "A project's .ikigai/tools and .ikigai/config.json are code and settings from whatever\n" +
			"directory you are in, so ikigai uses them only in a directory you trust. This\n" +
			"trusts DIR (default: the working directory) for good; --trust trusts it for one run.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "remove", Usage: "stop trusting DIR"},
			&cli.BoolFlag{Name: "list", Usage: "list the trusted directories, and those you declined to trust"},
			&cli.BoolFlag{Name: "diff", Usage: "show what changed in DIR since you trusted it"},
			&cli.BoolFlag{Name: "force", Usage: "trust DIR although another user owns it, or files in its .ikigai"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return command.Usage("usage: ikigai trust [--remove] [DIR]")
			}
			l, err := command.Layout()
			if err != nil {
				return err
			}
			if c.Bool("list") {
				trusted, declined, err := trust.At(l.TrustFile()).Lists()
				if err == nil {
					display.WriteTrust(c.App.Writer, c.App.ErrWriter, trusted, declined)
				}
				return err
			}
			if c.Bool("diff") {
				changes, listed, err := l.TrustDiff(c.Args().First())
				if err == nil {
					display.WriteTrustDiff(c.App.Writer, listed, changes)
				}
				return err
			}
			var msg string
			if c.Bool("remove") {
				msg, err = l.UntrustDirectory(c.Args().First())
			} else {
				msg, err = l.TrustDirectory(c.Args().First(), c.Bool("force"))
			}
			if err != nil {
				return err
			}
			fmt.Fprintln(c.App.Writer, msg)
			return nil
		},
	}
}
