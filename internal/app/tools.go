package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/ikigai-tools/ikigai/internal/calllog"
	"github.com/ikigai-tools/ikigai/internal/config"
	"github.com/ikigai-tools/ikigai/internal/discovery"
	"github.com/ikigai-tools/ikigai/internal/display"
	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/registry"
	"github.com/urfave/cli/v2"
)

func toolsCommand() *cli.Command {
	return &cli.Command{
		Name:  "tools",
		Usage: "list, inspect, call, check and create tools",
		Description: "Without a subcommand, lists every tool found in the system, user and project\n" +
			"directories, what each one shadows, and the tools that cannot be used, with why.",
		Flags:  []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print the listing as JSON, for scripts"}},
		Action: listTools,
		Subcommands: []*cli.Command{
			{
				Name:         "show",
				Usage:        "print a tool's path and schema",
				ArgsUsage:    "NAME",
				Action:       showTool,
				BashComplete: completeToolNames,
			},
			{
				Name:      "call",
				Usage:     "run a tool once and print the envelope the model would see",
				ArgsUsage: "NAME [JSON|-]",
				Description: "Runs the tool with JSON arguments (from the command line, from stdin with -, or {}\n" +
					"when there are none) and prints the envelope. Exits 0 only when tool_success is true.\n" +
					"The tool is found by name without asking any tool for its schema.",
				Flags: []cli.Flag{
					&cli.Float64Flag{Name: "timeout", Usage: "stop the tool after `SECONDS`", DefaultText: "configured, else 30"},
				},
				Action:       callTool,
				BashComplete: completeToolNames,
			},
			checkCommand(),
			newCommand(),
		},
	}
}

// listJSON is the --json form of the listing.
type listJSON struct {
	Tools     []toolJSON         `json:"tools"`
	Failed    []registry.Failure `json:"failed"`
	Untrusted []registry.Entry   `json:"untrusted"`
}

type toolJSON struct {
	registry.Entry
	Description string           `json:"description"`
	Shadows     []registry.Entry `json:"shadows,omitempty"`
	Warnings    []string         `json:"warnings,omitempty"`
}

func listTools(c *cli.Context) error {
	if c.Args().Present() {
		return cli.Exit(fmt.Sprintf("unknown tools subcommand %q (see ikigai tools --help)", c.Args().First()), 2)
	}
	e, err := load(c)
	if err != nil {
		return err
	}
	r, done := e.listing(c)
	defer done()
	if c.Bool("json") {
		doc := listJSON{Tools: []toolJSON{}, Failed: r.Failed(), Untrusted: r.Untrusted()}
		for _, t := range r.Tools() {
			doc.Tools = append(doc.Tools, toolJSON{t.Entry, t.Schema.Description, t.Shadows, t.Warnings})
		}
		if doc.Failed == nil {
			doc.Failed = []registry.Failure{}
		}
		if doc.Untrusted == nil {
			doc.Untrusted = []registry.Entry{}
		}
		return printJSON(e.stdout, doc)
	}

	w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	for _, t := range r.Tools() {
		line := t.Name + "\t" + string(t.Source) + "\t" + t.Path
		if len(t.Shadows) > 0 {
			var hidden []string
			for _, s := range t.Shadows {
				hidden = append(hidden, string(s.Source)+" "+s.Path)
			}
			line += "\t(shadows " + strings.Join(hidden, ", ") + ")"
		}
		fmt.Fprintln(w, line)
	}
	if len(r.Tools()) == 0 {
		fmt.Fprintf(c.App.ErrWriter, "No usable tools in %s.\n", strings.Join(e.places(), ", "))
	}
	// Each further section is set off by a blank line from what came before.
	sections := len(r.Tools()) > 0
	section := func(title string) {
		w.Flush()
		if sections {
			fmt.Fprintln(e.stdout)
		}
		sections = true
		fmt.Fprintln(e.stdout, title)
	}
	warned := false
	for _, t := range r.Tools() {
		for _, warning := range t.Warnings {
			if !warned {
				section("Warnings:")
				warned = true
			}
			fmt.Fprintf(w, "  %s: %s\n", t.Name, warning)
		}
	}
	for i, f := range r.Failed() {
		if i == 0 {
			section("Failed (not offered to the model):")
		}
		fmt.Fprintf(w, "  %s\t%s\t%s\t%s\n", f.Name, f.Source, f.Path, f.Reason)
	}
	for i, u := range r.Untrusted() {
		if i == 0 {
			section("Not run, the directory is not trusted (ikigai trust, or --trust for one run):")
		}
		fmt.Fprintf(w, "  %s\t%s\t%s\n", u.Name, u.Source, u.Path)
	}
	return w.Flush()
}

// listing discovers every tool, the MCP servers' included, for a command
// that lists them; done stops the servers.
func (e *env) listing(c *cli.Context) (r *registry.Registry, done func()) {
	var log *calllog.Log
	if c.Bool("debug") {
		log = e.openLog(c)
	}
	servers := e.startMCP(log)
	return e.discover(c.Context, log, servers), func() {
		servers.Close()
		log.Close()
	}
}

// places lists the directories searched, for messages.
func (e *env) places() []string {
	var list []string
	for _, d := range []string{e.dirs.System, e.dirs.User, e.dirs.Project} {
		if d != "" {
			list = append(list, d)
		}
	}
	return list
}

func showTool(c *cli.Context) error {
	if c.NArg() != 1 {
		return cli.Exit("usage: ikigai tools show NAME", 2)
	}
	name := c.Args().First()
	e, err := load(c)
	if err != nil {
		return err
	}
	r, done := e.listing(c)
	defer done()
	t, ok := r.Lookup(name)
	if !ok {
		return notUsable(r, name)
	}
	fmt.Fprintln(e.stdout, display.Tool(t))
	return nil
}

// notUsable explains why the registry has no tool called name.
func notUsable(r *registry.Registry, name string) error {
	return cli.Exit(display.Missing(r, name), 1)
}

func callTool(c *cli.Context) error {
	if c.NArg() < 1 || c.NArg() > 2 {
		return cli.Exit("usage: ikigai tools call NAME [JSON|-]", 2)
	}
	name, args := c.Args().Get(0), []byte("{}")
	switch arg := c.Args().Get(1); arg {
	case "":
	case "-":
		var err error
		if args, err = io.ReadAll(os.Stdin); err != nil {
			return err
		}
	default:
		args = []byte(arg)
	}
	e, err := load(c)
	if err != nil {
		return err
	}
	timeout := e.cfg.TimeoutFor(name)
	if c.IsSet("timeout") {
		s := c.Float64("timeout")
		if !(s > 0) {
			return cli.Exit(fmt.Sprintf("--timeout: want a number of seconds above 0, got %v", s), 2)
		}
		timeout = time.Duration(s * float64(time.Second))
	}

	log := e.openLog(c)
	defer log.Close()
	// Ctrl-C stops the tool, not ikigai: the call ends as TOOL_CANCELLED.
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	env, source := execute.NotFound(name), registry.Source("")
	if server := e.cfg.MCPServerOf(name); server != "" {
		env, source = e.callMCP(ctx, log, server, name, args, timeout)
	} else if t, ok := discovery.Locate(e.dirs, name); ok {
		env, source = execute.Program{Name: name, Path: t.Path}.Run(ctx, args, timeout), t.Source
	}
	log.Record(calllog.Call{Tool: name, Source: source, Args: args, Envelope: env, Elapsed: time.Since(start)})
	fmt.Fprintf(e.stdout, "%s\n", env.JSON())
	if !env.Success {
		return silent(1)
	}
	return nil
}

// callMCP calls a tool of the MCP server called server, starting only
// that server.
func (e *env) callMCP(ctx context.Context, log *calllog.Log, server, name string, args []byte, timeout time.Duration) (execute.Envelope, registry.Source) {
	servers := e.startMCP(log, server)
	defer servers.Close()
	tools, failed := servers.Tools(ctx)
	source := registry.Source("mcp:" + server)
	for _, f := range failed {
		if f.Name == config.MCPPrefix+server { // the server, not one of its tools
			return execute.Failed(execute.ToolCrashed, "Tool '%s' could not run: MCP %s", name, f.Reason), source
		}
	}
	return registry.New(tools, nil, nil).Call(ctx, name, args, timeout), source
}

// completeToolNames offers the names of the tools for completion, found
// without running any.
func completeToolNames(c *cli.Context) {
	if c.NArg() > 0 {
		return
	}
	e, err := load(c)
	if err != nil {
		return
	}
	for _, name := range discovery.Names(e.dirs) {
		fmt.Fprintln(e.stdout, name)
	}
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
