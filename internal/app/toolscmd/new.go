package toolscmd

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/ikigai-tools/ikigai/internal/app/command"

	"github.com/ikigai-tools/ikigai/internal/scaffold"
	"github.com/urfave/cli/v2"
)

func newCommand() *cli.Command {
	return &cli.Command{
		Name:      "new",
		Usage:     "write a working tool to start from",
		ArgsUsage: "NAME",
		Description: "Writes a tool called NAME that greets someone, ready to change into yours.\n" +
			"A Python or shell tool goes straight into ~/.ikigai/tools (or .ikigai/tools with\n" +
			"--project); a Go tool is a module in ./NAME-tool, built on toolsdk, to build into one\n" +
			"of those directories.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "lang", Value: "python", Usage: "the tool's language: go, python or sh"},
			&cli.BoolFlag{Name: "user", Usage: "for your own tools, ~/.ikigai/tools (the default)"},
			&cli.BoolFlag{Name: "project", Usage: "for the working directory's project, .ikigai/tools"},
		},
		Action: newTool,
	}
}

func newTool(c *cli.Context) error {
	if c.NArg() != 1 {
		return command.Usage("usage: ikigai tools new [--lang go|python|sh] [--user|--project] NAME")
	}
	if c.Bool("user") && c.Bool("project") {
		return command.Usage("--user and --project: choose one")
	}
	t := scaffold.Tool{Name: c.Args().First(), Lang: c.String("lang"), ModuleDir: ".", Toolsdk: scaffold.ToolsdkDir()}
	if err := t.Check(); err != nil {
		return command.Usage("%v", err)
	}
	l, err := command.Layout()
	if err != nil {
		return err
	}
	t.Dir = l.UserTools()
	if c.Bool("project") {
		t.Dir = filepath.Join(".ikigai", "tools")
	} else if t.Dir == "" {
		return errors.New("no home directory for ~/.ikigai/tools; use --project")
	}
	msg, err := scaffold.Write(t)
	if err != nil {
		return err
	}
	fmt.Fprint(c.App.Writer, msg)
	return nil
}
