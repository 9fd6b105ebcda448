package mcpcmd

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/ikigai-tools/ikigai/internal/app/command"
	"github.com/ikigai-tools/ikigai/internal/config"
	"github.com/ikigai-tools/ikigai/internal/mcp"
	"github.com/ikigai-tools/ikigai/internal/workspace"
	"github.com/urfave/cli/v2"
)

const addUsage = "usage: ikigai mcp add [--project] [--transport stdio|http|sse] [--env KEY=VALUE]... [--header 'NAME: VALUE']... NAME COMMAND [ARGS...] | URL"

// addArgs reads ikigai mcp add's command line, as claude mcp add's.
func addArgs(c *cli.Context) (name string, e config.ServerEntry, err error) {
	pos := c.Args().Slice()
	transport := c.String("transport")
	for _, kv := range c.StringSlice("env") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return "", e, command.Usage("--env wants KEY=VALUE, got %q", kv)
		}
		if e.Env == nil {
			e.Env = map[string]string{}
		}
		e.Env[k] = v
	}
	for _, h := range c.StringSlice("header") {
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return "", e, command.Usage("--header wants 'NAME: VALUE', got %q", h)
		}
		if e.Headers == nil {
			e.Headers = map[string]string{}
		}
		e.Headers[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	if len(pos) < 2 {
		return "", e, command.Usage(addUsage)
	}
	name = pos[0]
	remote := strings.HasPrefix(pos[1], "http://") || strings.HasPrefix(pos[1], "https://")
	switch transport {
	case "", "stdio", "http", "sse":
	default:
		return "", e, command.Usage("--transport is stdio, http or sse, not %q", transport)
	}
	if transport == "http" || transport == "sse" || transport == "" && remote {
		if len(pos) > 2 || e.Env != nil {
			return "", e, command.Usage("a server reached by URL takes no arguments or --env\n%s", addUsage)
		}
		e.Type, e.URL = transport, pos[1]
		return name, e, nil
	}
	if e.Headers != nil {
		return "", e, command.Usage("--header is for a server reached by URL\n%s", addUsage)
	}
	e.Command, e.Args = pos[1], pos[2:]
	if c.Bool("project") {
		e.Type = "stdio" // as Claude Code writes .mcp.json
	}
	return name, e, nil
}

func addServer(c *cli.Context) error {
	name, e, err := addArgs(c)
	if err != nil {
		return err
	}
	w, err := command.Load(c)
	if err != nil {
		return err
	}
	path, err := w.AddMCPServer(c.Bool("project"), name, e)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "Added MCP server %s to %s\n", name, path)
	return nil
}

func removeServer(c *cli.Context) error {
	if c.NArg() != 1 {
		return command.Usage("usage: ikigai mcp remove [--project] NAME")
	}
	w, err := command.Load(c)
	if err != nil {
		return err
	}
	path, forgot, err := w.RemoveMCPServer(c.Bool("project"), c.Args().First())
	if err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "Removed MCP server %s from %s\n", c.Args().First(), path)
	if forgot {
		fmt.Fprintln(c.App.Writer, "Forgot its OAuth login")
	}
	return nil
}

// serverStates starts the servers named (all if none), waits for them,
// and says how each went; disabled ones are listed, not started.
func serverStates(c *cli.Context, w *workspace.Workspace, names ...string) (map[string]config.MCPServer, []mcp.State, error) {
	servers := w.Config.MCPServers
	for _, n := range names {
		if _, ok := servers[n]; !ok {
			err := fmt.Errorf("no MCP server %q in the configuration", n)
			if unread := w.UnreadMCPFile(); unread != "" {
				err = fmt.Errorf("%w. %s", err, unread)
			}
			return nil, nil, err
		}
	}
	log := command.OpenLog(c, w)
	defer log.Close()
	running := w.StartMCP(log, names...)
	defer running.Close()
	states := running.States(c.Context)
	for _, n := range slices.Sorted(maps.Keys(servers)) {
		if (len(names) == 0 || slices.Contains(names, n)) && servers[n].Disabled {
			states = append(states, mcp.State{Name: n, Path: servers[n].Describe(), Err: "disabled"})
		}
	}
	slices.SortFunc(states, func(a, b mcp.State) int { return strings.Compare(a.Name, b.Name) })
	return servers, states, nil
}

func stateText(s mcp.State) string {
	switch s.Err {
	case "":
		return fmt.Sprintf("connected, %d tools", s.Tools)
	case "disabled":
		return "disabled"
	}
	return "failed: " + s.Err
}

func listServers(c *cli.Context) error {
	if c.Args().Present() {
		return command.Usage("usage: ikigai mcp list")
	}
	w, err := command.Load(c)
	if err != nil {
		return err
	}
	servers, states, err := serverStates(c, w)
	if err != nil {
		return err
	}
	unread := w.UnreadMCPFile()
	if len(states) == 0 && unread == "" {
		fmt.Fprintln(c.App.Writer, "No MCP servers configured. Add one with ikigai mcp add NAME -- COMMAND [ARGS...]")
		return nil
	}
	tw := tabwriter.NewWriter(command.TerminalSafe(c.App.Writer), 0, 4, 2, ' ', 0)
	for _, s := range states {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", s.Name, servers[s.Name].Describe(), stateText(s))
	}
	if err := tw.Flush(); err != nil || unread == "" {
		return err
	}
	if len(states) > 0 {
		fmt.Fprintln(c.App.Writer)
	}
	_, err = fmt.Fprintln(c.App.Writer, unread)
	return err
}

func getServer(c *cli.Context) error {
	if c.NArg() != 1 {
		return command.Usage("usage: ikigai mcp get NAME")
	}
	name := c.Args().First()
	w, err := command.Load(c)
	if err != nil {
		return err
	}
	servers, states, err := serverStates(c, w, name)
	if err != nil {
		return err
	}
	s := servers[name]
	out := command.TerminalSafe(c.App.Writer)
	fmt.Fprintf(out, "%s:\n", name)
	field := func(k, v string) {
		if v != "" {
			fmt.Fprintf(out, "  %s: %s\n", k, v)
		}
	}
	typ := s.Type
	if typ == "" && s.URL != "" {
		typ = "http, falling back to sse"
	} else if typ == "" {
		typ = "stdio"
	}
	field("type", typ)
	field("command", s.Command)
	if len(s.Args) > 0 {
		field("args", strings.Join(s.Args, " "))
	}
	field("cwd", s.Cwd)
	field("url", s.URL)
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		field("env", k+"="+s.Env[k])
	}
	for _, k := range slices.Sorted(maps.Keys(s.Headers)) {
		field("header", k+": "+s.Headers[k])
	}
	field("bearer_token_env_var", s.BearerTokenEnvVar)
	field("state", stateText(states[0]))
	return nil
}

func loginServer(c *cli.Context) error {
	if c.NArg() != 1 {
		return command.Usage("usage: ikigai mcp login NAME")
	}
	w, err := command.Load(c)
	if err != nil {
		return err
	}
	name := c.Args().First()
	err = w.LoginMCP(c.Context, name, func(url string) {
		fmt.Fprintf(c.App.ErrWriter, "Open this address in a browser to log in to %s:\n\n  %s\n\nWaiting for the browser...\n", name, url)
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "Logged in to %s; the tokens are kept in %s\n", name, w.MCPAuthFile())
	return nil
}
