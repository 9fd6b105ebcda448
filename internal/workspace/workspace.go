package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/ikigai-tools/ikigai/internal/approval"
	"github.com/ikigai-tools/ikigai/internal/calllog"
	"github.com/ikigai-tools/ikigai/internal/commands"
	"github.com/ikigai-tools/ikigai/internal/config"
	"github.com/ikigai-tools/ikigai/internal/discovery"
	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/hooks"
	"github.com/ikigai-tools/ikigai/internal/markdown"
	"github.com/ikigai-tools/ikigai/internal/mcp"
	"github.com/ikigai-tools/ikigai/internal/registry"
	"github.com/ikigai-tools/ikigai/internal/sandbox"
	"github.com/ikigai-tools/ikigai/internal/session"
	"github.com/ikigai-tools/ikigai/internal/skills"
	"github.com/ikigai-tools/ikigai/internal/trust"
)

// Options are the choices made on the command line for one run.
type Options struct {
	// Trust uses the project's tools and settings for this run only.
	Trust bool
	// LibexecDir overrides where the system tools are found.
	LibexecDir string
	// Debug adds discovery's and the MCP servers' events to the log.
	Debug bool
	// Rescan asks every tool for its schema, whatever the cache holds.
	Rescan bool
	// Overrides are the settings given as flags, which win over every
	// file and variable.
	Overrides Overrides
}

// Overrides are settings given for one run; zero values leave the
// configured ones.
type Overrides struct {
	Provider, Model, BaseURL string
	Approval                 string
	Reasoning                string // off, low, medium or high
	MaxToolTurns             int
	ToolTimeout              time.Duration
	// Sandbox is a sandbox mode; SandboxNetwork "on" or "off".
	Sandbox, SandboxNetwork string
	// Allow and Deny are rules added for the run (--allow-tool,
	// --deny-tool) to those of the files.
	Allow, Deny []string
}

func (o Overrides) apply(c *config.Config) error {
	for _, s := range []struct{ from, to *string }{
		{&o.Provider, &c.Provider}, {&o.Model, &c.Model}, {&o.BaseURL, &c.BaseURL}, {&o.Approval, &c.Approval},
		{&o.Sandbox, &c.Sandbox}, {&o.SandboxNetwork, &c.SandboxNetwork}, {&o.Reasoning, &c.Reasoning},
	} {
		if *s.from != "" {
			*s.to = *s.from
		}
	}
	if o.MaxToolTurns > 0 {
		c.MaxToolTurns = o.MaxToolTurns
	}
	if o.ToolTimeout > 0 {
		c.ToolTimeout = o.ToolTimeout
	}
	return errors.Join(c.AddRules("allow", o.Allow, "--allow-tool"), c.AddRules("deny", o.Deny, "--deny-tool"))
}

// A Workspace is the settings in force in a directory and where the tools
// are: the system, user and (when trusted) project configuration layered,
// the environment's variables and the run's overrides on top.
type Workspace struct {
	Layout
	Config *config.Config
	// ToolDirs are the directories tools are found in.
	ToolDirs discovery.Dirs
	// Trusted says the project's own tools and settings are used.
	Trusted bool
	// TrustChanges say how a project the user trusted changed since, or
	// what of it is another user's: until trusted again, it is not.
	TrustChanges []trust.Change
	// Sandbox decides how tools and MCP servers are confined.
	Sandbox *sandbox.Policy

	in   Inputs
	opts Options
}

// Load reads the settings for in and decides whether the project is
// trusted: by opts.Trust, a trusted directory in the system or user
// configuration, or the user's earlier answer.
func Load(in Inputs, opts Options) (*Workspace, error) {
	l, err := NewLayout(in)
	if err != nil {
		return nil, err
	}
	w := &Workspace{Layout: l, Config: config.Default(), in: in, opts: opts}
	var errs []error
	for _, system := range config.SystemFiles(in.getenv) {
		errs = append(errs, w.Config.ReadFile(system, system, config.System))
	}
	if l.User != "" {
		errs = append(errs, w.Config.ReadFile(l.UserConfig(), "~/.ikigai/config.json", config.User))
	}
	w.Trusted, err = w.trusted()
	errs = append(errs, err)
	if w.Trusted && l.Project != "" {
		// .ikigai/config.json's servers win over .mcp.json's of the same name.
		errs = append(errs, w.Config.ReadMCPFile(l.ProjectMCP(), ".mcp.json"))
		errs = append(errs, w.Config.ReadFile(l.ProjectConfig(), ".ikigai/config.json", config.Project))
	}
	errs = append(errs, w.Config.ReadEnv(in.getenv))
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if err := opts.Overrides.apply(w.Config); err != nil {
		return nil, err
	}
	w.Sandbox = w.Config.SandboxPolicy(l.Root, l.Home)
	w.ToolDirs = discovery.Dirs{
		System:        discovery.SystemDir(opts.LibexecDir),
		User:          l.UserTools(),
		Project:       l.ProjectTools(),
		TrustProject:  w.Trusted,
		SchemaTimeout: w.Config.SchemaTimeout,
		Sandbox:       w.Sandbox,
		Cache:         discovery.OpenCache(l.SchemaCache()),
		Env:           execute.Env{Exclude: w.Config.EnvExclude},
	}
	if w.ToolDirs.Cache != nil {
		w.ToolDirs.Cache.Rescan = opts.Rescan
	}
	return w, nil
}

// trusted reports whether the project may run.
func (w *Workspace) trusted() (bool, error) {
	if w.opts.Trust {
		return true, nil
	}
	if !w.HasProject() {
		return false, nil // no project to trust: spare reading the store
	}
	for _, d := range w.Config.TrustedDirectories {
		if d, err := trust.Canonical(d, w.Home); err == nil && d == w.ProjectDir() {
			return true, nil
		}
	}
	if w.User == "" {
		return false, nil
	}
	trusted, changes, err := w.TrustStore().Verify(w.ProjectDir())
	w.TrustChanges = changes
	return trusted, err
}

// Policy returns the approval policy of the workspace's settings, asking
// the user through asker (nil when nobody can be asked).
func (w *Workspace) Policy(asker approval.Asker) (*approval.Policy, error) {
	cfg := w.Config
	mode, err := approval.ParseMode(cfg.Approval)
	if err != nil {
		return nil, err
	}
	return &approval.Policy{
		Mode:  mode,
		Allow: config.Rules(cfg.Allow),
		Ask:   config.Rules(cfg.Ask),
		Deny:  config.Rules(cfg.Deny),
		Dir:   w.Dir,
		Home:  w.Home,
		Asker: asker,
	}, nil
}

// TrustStore is where the user's answers about trust are kept; nil
// without a home directory.
func (w *Workspace) TrustStore() *trust.Store {
	if w.User == "" {
		return nil
	}
	return trust.At(w.TrustFile())
}

// ShouldAskTrust reports whether the user should be asked to trust the
// project directory: it has a .ikigai of its own that is not trusted, the
// user has not declined it before, and there is somewhere to remember the
// answer.
func (w *Workspace) ShouldAskTrust() (bool, error) {
	if w.Trusted || !w.HasProject() || w.User == "" {
		return false, nil
	}
	if len(w.TrustChanges) > 0 {
		return true, nil // trusted before: asked again whatever was declined
	}
	declined, err := w.TrustStore().Declined(w.ProjectDir())
	return !declined && err == nil, err
}

// TrustQuestion is the question put to the user about trusting the
// project directory: what it holds, and what its configuration would let
// the agent do without asking.
func (w *Workspace) TrustQuestion() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s has its own ikigai tools or settings (.ikigai, .mcp.json): programs that would run on your machine.\n", w.ProjectDir())
	if len(w.TrustChanges) > 0 {
		b.WriteString("You trusted it before; since then:\n")
		for _, c := range w.TrustChanges {
			fmt.Fprintf(&b, "  %s\n", c)
		}
	}
	servers := config.Default()
	if err := servers.ReadMCPFile(w.ProjectMCP(), ".mcp.json"); err != nil {
		fmt.Fprintf(&b, "Its .mcp.json has a mistake: %v\n", err)
	} else if len(servers.MCPServers) > 0 {
		b.WriteString("Its .mcp.json would start these MCP servers:\n")
		for _, name := range slices.Sorted(maps.Keys(servers.MCPServers)) {
			fmt.Fprintf(&b, "  %s: %s\n", name, servers.MCPServers[name].Describe())
		}
	}
	g, err := config.ReadGrants(w.ProjectConfig(), ".ikigai/config.json")
	switch {
	case err != nil:
		fmt.Fprintf(&b, "Its configuration has a mistake: %v\n", err)
	case g.Approval != "" || len(g.Allow) > 0:
		b.WriteString("Its configuration would let the agent, without asking:\n")
		if g.Approval != "" {
			fmt.Fprintf(&b, "  approval: %s\n", g.Approval)
		}
		for _, r := range g.Allow {
			fmt.Fprintf(&b, "  allow: %s\n", r)
		}
	}
	b.WriteString("Trust this directory?")
	return b.String()
}

// Trust trusts the project directory, for good when remember is set, else
// for this run, and returns the workspace with the project's settings read.
func (w *Workspace) Trust(remember bool) (*Workspace, error) {
	if remember {
		// Asked with everything shown, the user accepts it as it is,
		// whoever owns it.
		pins, _, err := trust.Scan(w.ProjectDir(), nil, true)
		if err != nil {
			return nil, err
		}
		if err := w.TrustStore().Add(w.ProjectDir(), pins, true); err != nil {
			return nil, err
		}
	}
	opts := w.opts
	opts.Trust = true
	return Load(w.in, opts)
}

// Decline remembers that the user chose not to trust the project
// directory, so that the question is not asked again.
func (w *Workspace) Decline() error { return w.TrustStore().Decline(w.ProjectDir()) }

// Sessions returns the store conversations are saved in; nil when there is
// nowhere to keep them.
func (w *Workspace) Sessions() *session.Store {
	if w.State == "" {
		return nil
	}
	return session.At(w.Layout.Sessions())
}

// SkillDirs are the directories skills are found in; the project's only
// when it is trusted.
func (w *Workspace) SkillDirs() skills.Dirs {
	d := skills.Dirs{System: skills.SystemDir(), User: w.UserSkills()}
	if w.Trusted {
		d.Project = w.ProjectSkills()
	}
	return d
}

// CommandDirs are the directories custom commands are found in; the
// project's only when it is trusted.
func (w *Workspace) CommandDirs() commands.Dirs {
	d := commands.Dirs{User: w.UserCommands()}
	if w.Trusted {
		d.Project = w.ProjectCommands()
	}
	return d
}

// Hooks returns the hooks in force: the configured ones, those of the
// user's hooks directory and, in a trusted project, the project's, each
// run recorded in log, with the environment tools get.
func (w *Workspace) Hooks(log *calllog.Log) *hooks.Set {
	s := hooks.Find(hooks.Dirs{User: w.UserHooks(), Project: w.ProjectHooks(), TrustProject: w.Trusted}, w.Config.Hooks)
	s.Dir, s.Logger = w.Dir, log.Logger()
	s.Env = execute.Env{Exclude: w.Config.EnvExclude}.Environ() // as the tools have it
	return s
}

// OpenLog opens the call log; a nil log, which records nothing, when there
// is nowhere to keep it. ikigai runs on without a log it cannot open.
func (w *Workspace) OpenLog() (*calllog.Log, error) {
	if w.LogDir() == "" {
		return nil, nil
	}
	log, err := calllog.Open(w.LogDir(), w.Config.LogMaxBytes, w.opts.Debug)
	if err != nil {
		return nil, fmt.Errorf("no log: %w", err)
	}
	return log, nil
}

// StartMCP starts the configured MCP servers (those named, or all) in the
// background; the caller closes them.
func (w *Workspace) StartMCP(log *calllog.Log, names ...string) *mcp.Servers {
	servers := map[string]config.MCPServer{}
	for n, s := range w.Config.MCPServers {
		if len(names) == 0 || slices.Contains(names, n) {
			if s.Command != "" {
				s.Confinement = w.Sandbox.ForServer(s.Sandbox)
			}
			s.AuthFile = w.MCPAuthFile()
			servers[n] = s
		}
	}
	return mcp.Start(servers, w.ToolDirs.Env, w.Dir, log.Logger())
}

// Discover builds the registry from the tool directories and the sources
// in more (the MCP servers), and logs what it found as debug events.
func (w *Workspace) Discover(ctx context.Context, log *calllog.Log, more ...discovery.ToolSource) *registry.Registry {
	return w.discover(ctx, w.ToolDirs, log, more...)
}

// Rediscover is Discover asking every tool for its schema again, whatever
// the cache remembers.
func (w *Workspace) Rediscover(ctx context.Context, log *calllog.Log, more ...discovery.ToolSource) *registry.Registry {
	d := w.ToolDirs
	d.Cache = d.Cache.Fresh()
	return w.discover(ctx, d, log, more...)
}

func (w *Workspace) discover(ctx context.Context, d discovery.Dirs, log *calllog.Log, more ...discovery.ToolSource) *registry.Registry {
	start := time.Now()
	r := discovery.Scan(ctx, d, more...)
	logger := log.Logger()
	for _, t := range r.Tools() {
		logger.Debug("tool found", "tool", t.Name, "source", string(t.Source), "path", t.Path)
	}
	for _, f := range r.Failed() {
		logger.Debug("tool failed", "tool", f.Name, "source", string(f.Source), "path", f.Path, "reason", f.Reason)
	}
	for _, u := range r.Untrusted() {
		logger.Debug("tool not run: directory not trusted", "tool", u.Name, "path", u.Path)
	}
	logger.Debug("discovery done", "tools", len(r.Tools()), "failed", len(r.Failed()), "elapsed_ms", time.Since(start).Milliseconds())
	return w.withDeferred(r)
}

// Listing discovers every tool, the MCP servers' included, for a command
// that lists them; done stops the servers.
func (w *Workspace) Listing(ctx context.Context, log *calllog.Log) (r *registry.Registry, done func()) {
	servers := w.StartMCP(log)
	return w.Discover(ctx, log, servers), servers.Close
}

// MarkdownHelper is the path of the helper that renders the model's
// answers in the terminal UI, installed beside the core tools; "" when it
// is not there, or the terminal should not get styled text (NO_COLOR, a
// dumb terminal).
func (w *Workspace) MarkdownHelper() string {
	if !markdown.Enabled(os.Getenv) {
		return ""
	}
	return markdown.Find(w.ToolDirs.System)
}

// Places lists the tool directories searched, for messages.
func (w *Workspace) Places() []string {
	var list []string
	for _, d := range []string{w.ToolDirs.System, w.ToolDirs.User, w.ToolDirs.Project} {
		if d != "" {
			list = append(list, d)
		}
	}
	return list
}

// Call runs the tool called name once, without asking any other tool for
// its schema: an MCP server's tool starts only that server, an executable
// is found by name. It returns the envelope and where the tool came from,
// and records the call in log.
func (w *Workspace) Call(ctx context.Context, log *calllog.Log, name string, args json.RawMessage, timeout time.Duration) (execute.Envelope, registry.Source) {
	start := time.Now()
	env, source := execute.NotFound(name), registry.Source("")
	if server := w.Config.MCPServerOf(name); server != "" {
		env, source = w.callMCP(ctx, log, server, name, args, timeout)
	} else if t, ok := discovery.Locate(w.ToolDirs, name); ok {
		env, source = w.program(ctx, t).Run(ctx, args, timeout), t.Source
	}
	log.Record(calllog.Call{Tool: name, Source: source, Args: args, Envelope: env, Elapsed: time.Since(start)})
	return env, source
}

// program returns how to run the tool at e. With the sandbox on, that
// depends on its schema (read-only, or what it needs), which it is asked
// for; a tool whose schema fails runs as one that says nothing.
func (w *Workspace) program(ctx context.Context, e registry.Entry) execute.Program {
	var schema registry.Schema
	if w.Sandbox.Active() {
		schema, _, _ = discovery.Probe(ctx, e.Name, e.Path, w.Config.SchemaTimeout, w.ToolDirs.Env)
	}
	return w.ToolDirs.Program(e, schema)
}

// SandboxNotice is what the user is told once, at start, when the sandbox
// the settings ask for cannot be had on this machine; "" when it can.
func (w *Workspace) SandboxNotice() string { return w.Sandbox.Notice() }

// callMCP calls a tool of the MCP server called server, starting only
// that server.
func (w *Workspace) callMCP(ctx context.Context, log *calllog.Log, server, name string, args []byte, timeout time.Duration) (execute.Envelope, registry.Source) {
	servers := w.StartMCP(log, server)
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
