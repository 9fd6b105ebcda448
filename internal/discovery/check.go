package discovery

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/toolsdk"
)

// SlowSchema is when a --schema answer is worth a warning: it is run at
// every start-up and refresh.
const SlowSchema = 500 * time.Millisecond

// Level is how a check of a tool went.
type Level int

const (
	OK Level = iota
	Warn
	Fail
)

// A Finding is the outcome of one check of a tool against the protocol,
// with what to do about a problem.
type Finding struct {
	Level   Level
	Message string
	Fix     string
}

// CheckOptions are the limits a check applies, and the call it makes.
type CheckOptions struct {
	// SchemaTimeout is how long --schema may take; zero means
	// DefaultSchemaTimeout.
	SchemaTimeout time.Duration
	// Call also calls the tool once, with Args, given the time
	// CallTimeout returns for its name.
	Call        bool
	Args        json.RawMessage
	CallTimeout func(name string) time.Duration
	// Env is what of the agent's environment the tool gets.
	Env execute.Env
}

// Check checks the tool at path as a tool author would want it checked:
// its file name, that it is an executable file, its --schema (time, size,
// validity) and, if asked, one call. It stops at the first failure that
// leaves nothing further to check.
func Check(ctx context.Context, path string, opts CheckOptions) []Finding {
	var out []Finding
	add := func(l Level, msg, fix string) { out = append(out, Finding{l, msg, fix}) }
	name, ok := toolsdk.ToolName(filepath.Base(path))
	switch p := CheckName(name); {
	case !ok:
		add(Fail, "file name does not end in -tool", "rename it NAME-tool; the tool is called NAME, hyphens as underscores")
		return out
	case p != nil:
		add(Fail, p.Reason, p.Fix)
		return out
	default:
		add(OK, "name: "+name, "")
	}

	info, err := os.Stat(path)
	switch {
	case err != nil:
		add(Fail, err.Error(), "")
		return out
	case !info.Mode().IsRegular():
		add(Fail, "not a regular file", "a tool is an executable file, or a symlink to one")
		return out
	case info.Mode().Perm()&0o111 == 0:
		add(Fail, "not executable", "chmod +x "+path)
		return out
	}
	add(OK, "executable", "")

	// Run it by path, not from $PATH, whatever the argument looked like.
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	start := time.Now()
	schema, warnings, p := Probe(ctx, name, path, opts.SchemaTimeout, opts.Env)
	took := time.Since(start).Round(time.Millisecond)
	if p != nil {
		add(Fail, "--schema: "+p.Reason, p.Fix)
		return out
	}
	add(OK, fmt.Sprintf("--schema: %d bytes in %v", len(schema.Document), took), "")
	if took > SlowSchema {
		add(Warn, fmt.Sprintf("--schema took %v; it runs every time ikigai starts, and the protocol allows %v", took, DefaultSchemaTimeout),
			"answer --schema without loading anything the schema does not need")
	}
	for _, warning := range warnings {
		add(Warn, warning, fmt.Sprintf(`set "name" to %q`, name))
	}
	if schema.Description == "" {
		add(Warn, "the description is empty", "say what the tool does and when the model should use it")
	}

	if opts.Call {
		env := execute.Program{Name: name, Path: path, Env: opts.Env}.Run(ctx, opts.Args, opts.CallTimeout(name))
		if env.Success {
			add(OK, "call: "+string(env.JSON()), "")
		} else {
			add(Fail, "call: "+string(env.JSON()), callFixes[env.Code])
		}
	}
	return out
}

// callFixes say what a tool author can do about each failure of a call.
var callFixes = map[string]string{
	execute.InvalidParams:  "--args must be a JSON object",
	execute.ToolCrashed:    "exit 0 with the result on stdout; report a failed operation as {\"error\", \"error_code\"} with exit 0; exit 1 only for unusable arguments",
	execute.InvalidOutput:  "print exactly one JSON document on stdout, and nothing else",
	execute.OutputTooLarge: fmt.Sprintf("keep the output under %d MiB: truncate it, keeping what matters", execute.MaxStdout>>20),
	execute.ToolTimeout:    "finish within IKIGAI_TOOL_TIMEOUT_MS milliseconds, with partial results if need be",
}

// Passed reports whether no check failed.
func Passed(findings []Finding) bool {
	for _, f := range findings {
		if f.Level == Fail {
			return false
		}
	}
	return true
}

// WriteFindings writes the checks of the tool at path as
// `ikigai tools check` prints them: the path, then one line per check with
// its fix indented below.
func WriteFindings(w io.Writer, path string, findings []Finding) {
	fmt.Fprintln(w, path)
	for _, f := range findings {
		fmt.Fprintf(w, "  %-4s  %s\n", [...]string{"ok", "warn", "FAIL"}[f.Level], f.Message)
		if f.Fix != "" {
			fmt.Fprintf(w, "        fix: %s\n", f.Fix)
		}
	}
}
