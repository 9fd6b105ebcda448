package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ikigai-tools/ikigai/internal/discovery"
	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/urfave/cli/v2"
)

// slowSchema is when a --schema answer is worth a warning: it is run at
// every start-up and refresh.
const slowSchema = 500 * time.Millisecond

func checkCommand() *cli.Command {
	return &cli.Command{
		Name:      "check",
		Usage:     "check tool executables against the protocol, for tool authors",
		ArgsUsage: "PATH...",
		Description: "Checks each tool's file name, executable bit, --schema (time, size, validity)\n" +
			"and, with --args, one call; every problem comes with what to do about it.\n" +
			"Exits 1 if any check failed.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "args", Usage: "also call each tool with these `JSON` arguments"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cli.Exit("usage: ikigai tools check [--args JSON] PATH...", 2)
			}
			e, err := load(c)
			if err != nil {
				return err
			}
			failed := false
			for i, path := range c.Args().Slice() {
				if i > 0 {
					fmt.Fprintln(c.App.Writer)
				}
				if !checkTool(c.Context, e, path, c.String("args"), c.IsSet("args")) {
					failed = true
				}
			}
			if failed {
				return silent(1)
			}
			return nil
		},
	}
}

// report prints the result of each check of one tool.
type report struct {
	w      io.Writer
	failed bool
}

func (r *report) ok(format string, args ...any) {
	fmt.Fprintf(r.w, "  ok    %s\n", fmt.Sprintf(format, args...))
}

func (r *report) warn(msg, fix string) {
	fmt.Fprintf(r.w, "  warn  %s\n", msg)
	if fix != "" {
		fmt.Fprintf(r.w, "        fix: %s\n", fix)
	}
}

func (r *report) fail(msg, fix string) {
	r.failed = true
	fmt.Fprintf(r.w, "  FAIL  %s\n", msg)
	if fix != "" {
		fmt.Fprintf(r.w, "        fix: %s\n", fix)
	}
}

// checkTool checks one tool, with the limits e configures, and reports
// whether it passed.
func checkTool(ctx context.Context, e *env, path, args string, call bool) bool {
	fmt.Fprintln(e.stdout, path)
	r := &report{w: e.stdout}
	stem, ok := strings.CutSuffix(filepath.Base(path), "-tool")
	name := strings.ReplaceAll(stem, "-", "_")
	switch p := discovery.CheckName(name); {
	case !ok || stem == "":
		r.fail("file name does not end in -tool", "rename it NAME-tool; the tool is called NAME, hyphens as underscores")
		return false
	case p != nil:
		r.fail(p.Reason, p.Fix)
		return false
	default:
		r.ok("name: %s", name)
	}

	info, err := os.Stat(path)
	switch {
	case err != nil:
		r.fail(err.Error(), "")
		return false
	case !info.Mode().IsRegular():
		r.fail("not a regular file", "a tool is an executable file, or a symlink to one")
		return false
	case info.Mode().Perm()&0o111 == 0:
		r.fail("not executable", "chmod +x "+path)
		return false
	}
	r.ok("executable")

	// Run it by path, not from $PATH, whatever the argument looked like.
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	start := time.Now()
	schema, warnings, err := discovery.Probe(ctx, name, path, e.cfg.SchemaTimeout)
	took := time.Since(start).Round(time.Millisecond)
	if err != nil {
		p := err.(*discovery.Problem)
		r.fail("--schema: "+p.Reason, p.Fix)
		return false
	}
	r.ok("--schema: %d bytes in %v", len(schema.Document), took)
	if took > slowSchema {
		r.warn(fmt.Sprintf("--schema took %v; it runs every time ikigai starts, and the protocol allows %v", took, discovery.DefaultSchemaTimeout),
			"answer --schema without loading anything the schema does not need")
	}
	for _, warning := range warnings {
		r.warn(warning, fmt.Sprintf(`set "name" to %q`, name))
	}
	if schema.Description == "" {
		r.warn("the description is empty", "say what the tool does and when the model should use it")
	}

	if call {
		env := execute.Program{Name: name, Path: path}.Run(ctx, json.RawMessage(args), e.cfg.TimeoutFor(name))
		if env.Success {
			r.ok("call: %s", env.JSON())
		} else {
			r.fail("call: "+string(env.JSON()), callFixes[env.Code])
		}
	}
	return !r.failed
}

// callFixes say what a tool author can do about each failure of a call.
var callFixes = map[string]string{
	execute.InvalidParams:  "--args must be a JSON object",
	execute.ToolCrashed:    "exit 0 with the result on stdout; report a failed operation as {\"error\", \"error_code\"} with exit 0; exit 1 only for unusable arguments",
	execute.InvalidOutput:  "print exactly one JSON document on stdout, and nothing else",
	execute.OutputTooLarge: fmt.Sprintf("keep the output under %d KiB: truncate it, keeping what matters", execute.MaxStdout>>10),
	execute.ToolTimeout:    "finish within IKIGAI_TOOL_TIMEOUT_MS milliseconds, with partial results if need be",
}
