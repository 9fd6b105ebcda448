package app

import (
	"fmt"
	"os"

	"github.com/ikigai-tools/ikigai/internal/trust"
	"github.com/urfave/cli/v2"
)

func trustCommand() *cli.Command {
	return &cli.Command{
		Name:      "trust",
		Usage:     "allow a project directory's own tools and configuration to run",
		ArgsUsage: "[DIR]",
		Description: "A project's .ikigai/tools and .ikigai/config.json are code and settings from whatever\n" +
			"directory you are in, so ikigai uses them only in a directory you trust. This\n" +
			"trusts DIR (default: the working directory) for good; --trust trusts it for one run.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "remove", Usage: "stop trusting DIR"},
			&cli.BoolFlag{Name: "list", Usage: "list the trusted directories"},
		},
		Action: func(c *cli.Context) error {
			home, err := os.UserHomeDir()
			if err != nil {
				return err
			}
			store := trustStore(home)
			if c.Bool("list") {
				dirs, err := store.List()
				for _, d := range dirs {
					fmt.Fprintln(c.App.Writer, d)
				}
				return err
			}
			if c.NArg() > 1 {
				return cli.Exit("usage: ikigai trust [--remove] [DIR]", 2)
			}
			dir := c.Args().First()
			if dir == "" {
				dir = "."
			}
			if dir, err = trust.Canonical(dir, home); err != nil {
				return err
			}
			if c.Bool("remove") {
				removed, err := store.Remove(dir)
				if err == nil && !removed {
					fmt.Fprintf(c.App.Writer, "%s was not trusted\n", dir)
				} else if err == nil {
					fmt.Fprintf(c.App.Writer, "No longer trusted: %s\n", dir)
				}
				return err
			}
			if info, err := os.Stat(dir); err != nil || !info.IsDir() {
				return fmt.Errorf("%s is not a directory", dir)
			}
			if err := store.Add(dir); err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "Trusted: %s\nikigai now runs its .ikigai/tools and reads its .ikigai/config.json.\n", dir)
			return nil
		},
	}
}
