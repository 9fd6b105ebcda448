// Package completioncmd is ikigai completion: shell completion scripts.
package completioncmd

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ikigai-tools/ikigai/internal/app/command"

	"github.com/ikigai-tools/ikigai/internal/cmdline"
	"github.com/urfave/cli/v2"
)

// NewCommand returns the command.
func NewCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script (bash, zsh or fish)",
		ArgsUsage: "SHELL",
		Description: "Load it in your shell's start-up file:\n" +
			"  bash: eval \"$(ikigai completion bash)\"\n" +
			"  zsh:  eval \"$(ikigai completion zsh)\"\n" +
			"  fish: ikigai completion fish | source",
		BashComplete: func(c *cli.Context) {
			fmt.Fprintln(c.App.Writer, strings.Join(cmdline.Shells, "\n"))
		},
		Action: func(c *cli.Context) error {
			shell := c.Args().First()
			if !slices.Contains(cmdline.Shells, shell) {
				return command.Usage("usage: ikigai completion bash|zsh|fish")
			}
			script, err := cmdline.Completion(c.App, shell)
			if err != nil {
				return err
			}
			fmt.Fprint(c.App.Writer, script)
			return nil
		},
	}
}
