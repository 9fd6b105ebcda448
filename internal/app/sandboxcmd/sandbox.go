// Package sandboxcmd is ikigai sandbox: what confines tool calls on this machine.
package sandboxcmd

import (
	"github.com/ikigai-tools/ikigai/internal/app/command"
	"github.com/ikigai-tools/ikigai/internal/sandbox"
	"github.com/urfave/cli/v2"
)

// NewCommand returns the command.
func NewCommand() *cli.Command {
	return &cli.Command{
		Name:  "sandbox",
		Usage: "what confines tool calls on this machine",
		Subcommands: []*cli.Command{{
			Name:  "check",
			Usage: "print what this machine supports (Landlock, network namespaces) and what the settings ask for",
			Description: "Tries each mechanism for real and says what works, what does not and why.\n" +
				"Exits 1 when the sandbox the settings ask for cannot be had. docs/security.md says what\n" +
				"each mode protects.",
			Flags: []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print the report as JSON, for scripts"}},
			Action: func(c *cli.Context) error {
				if c.Args().Present() {
					return command.Usage("usage: ikigai sandbox check [--json]")
				}
				w, err := command.Load(c)
				if err != nil {
					return err
				}
				r := sandbox.Check(w.Sandbox)
				if c.Bool("json") {
					err = command.PrintJSON(c.App.Writer, r)
				} else {
					r.WriteText(c.App.Writer)
				}
				if err == nil && !r.OK() {
					return command.Silent(1)
				}
				return err
			},
		}},
	}
}
