package app

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ikigai-tools/ikigai/internal/discovery"
	"github.com/urfave/cli/v2"
)

//go:embed skeleton
var skeletons embed.FS

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
		return cli.Exit("usage: ikigai tools new [--lang go|python|sh] [--user|--project] NAME", 2)
	}
	if c.Bool("user") && c.Bool("project") {
		return cli.Exit("--user and --project: choose one", 2)
	}
	stem := strings.TrimSuffix(c.Args().First(), "-tool")
	name, command := strings.ReplaceAll(stem, "-", "_"), strings.ReplaceAll(stem, "_", "-")+"-tool"
	if p := discovery.CheckName(name); p != nil {
		return cli.Exit(p.Reason, 2)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return err
	}
	dir := filepath.Join(home, ".ikigai", "tools")
	if c.Bool("project") {
		dir = filepath.Join(".ikigai", "tools")
	}
	fill := strings.NewReplacer("TOOL_NAME", name, "TOOL_COMMAND", command).Replace
	out := c.App.Writer

	switch lang := c.String("lang"); lang {
	case "python", "sh":
		path := filepath.Join(dir, command)
		src := "skeleton/tool.py.txt"
		if lang == "sh" {
			src = "skeleton/tool.sh.txt"
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := create(path, fill(mustRead(src)), 0o755); err != nil {
			return err
		}
		fmt.Fprintf(out, "Wrote %s\n\nTry it:\n  ikigai tools call %s '{\"name\": \"world\"}'\n  ikigai tools check %s\n", path, name, path)
	case "go":
		if err := os.Mkdir(command, 0o755); err != nil {
			return existing(command, err)
		}
		for src, dst := range map[string]string{"skeleton/main.go.txt": "main.go", "skeleton/go.mod.txt": "go.mod"} {
			if err := create(filepath.Join(command, dst), fill(mustRead(src)), 0o644); err != nil {
				return err
			}
		}
		fmt.Fprintf(out, "Wrote %s/main.go and %s/go.mod\n\nBuild it into %s:\n  cd %s\n  go get github.com/ikigai-tools/ikigai/toolsdk\n  go build -o %s .\n  ikigai tools check %s\n",
			command, command, dir, command, filepath.Join(dir, command), filepath.Join(dir, command))
	default:
		return cli.Exit(fmt.Sprintf("--lang %s: want go, python or sh", lang), 2)
	}
	return nil
}

// create writes a new file, refusing to replace one.
func create(path, content string, mode os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return existing(path, err)
	}
	if _, err := f.WriteString(content); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// existing explains an error creating path, which is most often that it
// exists.
func existing(path string, err error) error {
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s already exists; choose another name or remove it", path)
	}
	return err
}

func mustRead(name string) string {
	data, err := skeletons.ReadFile(name)
	if err != nil {
		panic(err) // embedded at build time
	}
	return string(data)
}
