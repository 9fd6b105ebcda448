package app

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/ikigai-tools/ikigai/internal/agent"
	"github.com/ikigai-tools/ikigai/internal/approval"
	"github.com/ikigai-tools/ikigai/internal/calllog"
	"github.com/ikigai-tools/ikigai/internal/mcp"
	"github.com/ikigai-tools/ikigai/internal/provider/pick"
	"github.com/ikigai-tools/ikigai/internal/registry"
	"github.com/ikigai-tools/ikigai/internal/repl"
	"github.com/ikigai-tools/ikigai/internal/session"
	"github.com/ikigai-tools/ikigai/internal/skills"
	"github.com/urfave/cli/v2"
)

// agentFlags are the root command's flags for talking to a model.
func agentFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "print", Aliases: []string{"p"}, Usage: "answer PROMPT (or the prompt on stdin) once and exit: the answer on stdout, tool activity on stderr"},
		&cli.BoolFlag{Name: "json", Usage: "with -p, print one JSON event per line on stdout instead, for scripts"},
		&cli.StringFlag{Name: "provider", Usage: "the model API: anthropic, openai or openai-compatible; also IKIGAI_PROVIDER", DefaultText: "configured, else chosen from the API keys set"},
		&cli.StringFlag{Name: "model", Usage: "the model to use; also IKIGAI_MODEL", DefaultText: "configured, else the provider's default"},
		&cli.StringFlag{Name: "base-url", Usage: "the API's base `URL`, for an OpenAI-compatible server; also IKIGAI_BASE_URL"},
		&cli.StringFlag{Name: "approval", Usage: "when to ask before a tool runs: ask, auto or read-only; also IKIGAI_APPROVAL", DefaultText: "configured, else ask"},
		&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "run every tool without asking (--approval auto)"},
		&cli.IntFlag{Name: "max-tool-turns", Usage: "stop after the model has called tools `N` times in a row; also IKIGAI_MAX_TOOL_TURNS", DefaultText: "configured, else 50"},
		&cli.BoolFlag{Name: "continue", Aliases: []string{"c"}, Usage: "go on with the latest conversation held in this directory"},
		&cli.StringFlag{Name: "resume", Aliases: []string{"r"}, Usage: "go on with the saved conversation `ID` (ikigai sessions lists them)"},
	}
}

// applyFlags lets the agent flags override the configuration.
func (e *env) applyFlags(c *cli.Context) error {
	for flag, field := range map[string]*string{"provider": &e.cfg.Provider, "model": &e.cfg.Model, "base-url": &e.cfg.BaseURL, "approval": &e.cfg.Approval} {
		if c.IsSet(flag) {
			*field = c.String(flag)
		}
	}
	if c.Bool("yes") {
		e.cfg.Approval = string(approval.Auto)
	}
	if c.IsSet("max-tool-turns") {
		if n := c.Int("max-tool-turns"); n > 0 {
			e.cfg.MaxToolTurns = n
		} else {
			return cli.Exit(fmt.Sprintf("--max-tool-turns: want a number above 0, got %d", n), 2)
		}
	}
	if _, err := approval.ParseMode(e.cfg.Approval); err != nil {
		return cli.Exit("--approval: "+err.Error(), 2)
	}
	return nil
}

// workspace is everything a conversation needs: the settings, the tools
// (found in the background, MCP servers' included) and the model (chosen
// in the background), and the log every call is recorded in.
type workspace struct {
	env   *env
	dir   string // the working directory
	tools latest[*registry.Registry]
	model latest[*pick.Choice]
	log   *calllog.Log
	mcp   *mcp.Servers
}

// startWorkspace reads the settings and starts discovery and the choice of
// provider, which may mean asking a local server for its models, in the
// background: whatever needs them waits for them, nothing else does.
func startWorkspace(ctx context.Context, c *cli.Context) (*workspace, error) {
	e, err := load(c)
	if err != nil {
		return nil, err
	}
	return e.start(ctx, c)
}

// start applies the agent flags and starts the background work.
func (e *env) start(ctx context.Context, c *cli.Context) (*workspace, error) {
	if err := e.applyFlags(c); err != nil {
		return nil, err
	}
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	w := &workspace{env: e, dir: dir, log: e.openLog(c)}
	w.mcp = e.startMCP(w.log)
	ctx = context.WithoutCancel(ctx) // a scan or a choice outlives the request that started it
	w.tools.start(func() (*registry.Registry, error) { return e.discover(ctx, w.log, w.mcp), nil })
	w.model.start(func() (*pick.Choice, error) { return pick.Provider(ctx, w.pickSettings("")) })
	return w, nil
}

// close stops the MCP servers and closes the log.
func (w *workspace) close() {
	w.mcp.Close()
	w.log.Close()
}

// pickSettings are the user's provider settings, with model instead of the
// configured one if it is set.
func (w *workspace) pickSettings(model string) pick.Settings {
	cfg := w.env.cfg
	return pick.Settings{Provider: cfg.Provider, Model: cmp.Or(model, cfg.Model), BaseURL: cfg.BaseURL}
}

// Tools returns the registry once discovery is done.
func (w *workspace) Tools(ctx context.Context) (*registry.Registry, error) { return w.tools.wait(ctx) }

// Refresh scans the tool directories and asks the MCP servers again (those
// that failed to start are tried anew), and waits for the result.
func (w *workspace) Refresh(ctx context.Context) (*registry.Registry, error) {
	w.tools.start(func() (*registry.Registry, error) {
		return w.env.discover(context.WithoutCancel(ctx), w.log, w.mcp), nil
	})
	return w.tools.wait(ctx)
}

// Model returns the provider choice once it is made.
func (w *workspace) Model(ctx context.Context) (*pick.Choice, error) { return w.model.wait(ctx) }

// SetModel chooses the provider again for the model called name. The
// provider the user set stays; one chosen by default is chosen again, so
// that a model's name can pick its vendor.
func (w *workspace) SetModel(ctx context.Context, name string) (*pick.Choice, error) {
	c, err := pick.Provider(ctx, w.pickSettings(name))
	if err != nil {
		return nil, err
	}
	w.model.start(func() (*pick.Choice, error) { return c, nil })
	return c, nil
}

// Agent returns an agent for the workspace's model and tools, asking the
// user through asker (nil when nobody can be asked).
func (w *workspace) Agent(ctx context.Context, asker approval.Asker, observe func(agent.Event)) (*agent.Agent, error) {
	choice, err := w.Model(ctx)
	if err != nil {
		return nil, err
	}
	reg, err := w.Tools(ctx)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, d := range reg.Definitions() {
		names = append(names, d.Name)
	}
	cfg := w.env.cfg
	mode, _ := approval.ParseMode(cfg.Approval) // checked by applyFlags
	return &agent.Agent{
		Provider:     choice.Provider,
		Model:        choice.Model,
		System:       agent.SystemPrompt(w.dir, names),
		MaxTokens:    cfg.MaxTokens,
		MaxToolTurns: cfg.MaxToolTurns,
		Tools:        w.Tools,
		Policy:       &approval.Policy{Mode: mode, Allow: cfg.Allow, Deny: cfg.Deny, Asker: asker},
		Timeout:      cfg.TimeoutFor,
		Observe: func(ev agent.Event) {
			if ev.Kind == agent.ToolResult {
				w.logCall(ev)
			}
			if observe != nil {
				observe(ev)
			}
		},
	}, nil
}

// logCall records a call in the log, with the source of the tool it ran.
func (w *workspace) logCall(ev agent.Event) {
	var source registry.Source
	if reg := w.tools.peek(); reg != nil {
		if t, ok := reg.Lookup(ev.Call.Name); ok {
			source = t.Source
		}
	}
	w.log.Record(calllog.Call{Tool: ev.Call.Name, Source: source, Args: ev.Call.Arguments, Envelope: ev.Envelope, Elapsed: ev.Elapsed})
}

// latest is a value worked out in the background, perhaps again and
// again: wait returns the newest one, waiting for it if need be.
type latest[T any] struct {
	mu   sync.Mutex
	done chan struct{} // closed when the newest value is ready
	v    T
	err  error
}

// start works the value out anew in the background.
func (l *latest[T]) start(f func() (T, error)) {
	done := make(chan struct{})
	l.mu.Lock()
	l.done = done
	l.mu.Unlock()
	go func() {
		v, err := f()
		l.mu.Lock()
		if l.done == done { // a later start wins
			l.v, l.err = v, err
		}
		l.mu.Unlock()
		close(done)
	}()
}

// peek returns the value last worked out, without waiting for one under
// way: the zero value until the first is ready.
func (l *latest[T]) peek() T {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.v
}

// wait returns the newest value, or ctx's error.
func (l *latest[T]) wait(ctx context.Context) (T, error) {
	for {
		l.mu.Lock()
		done := l.done
		l.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			var zero T
			return zero, ctx.Err()
		}
		l.mu.Lock()
		v, err, current := l.v, l.err, l.done == done
		l.mu.Unlock()
		if current {
			return v, err
		}
	}
}

// runAgent is what ikigai does without a command: answer a prompt with -p,
// else talk with the user.
func runAgent(c *cli.Context) error {
	switch {
	case c.Bool("continue") && c.IsSet("resume"):
		return cli.Exit("--continue and --resume cannot go together", 2)
	case c.Bool("print"):
		return oneShot(c)
	case c.Bool("json"):
		return cli.Exit("--json goes with -p (ikigai -p --json PROMPT)", 2)
	}
	return interactive(c)
}

// shell returns a shell over the workspace whose conversation is saved,
// resuming the session --continue or --resume names.
func (w *workspace) shell(c *cli.Context) (*repl.Shell, error) {
	e := w.env
	store := sessionStore(e.home)
	s := &repl.Shell{Backend: w, Dir: e.cwd, Skills: e.skillDirs(), Sessions: store, LogDir: calllog.Dir(os.Getenv, e.home)}
	id := c.String("resume")
	if c.Bool("continue") {
		var err error
		if id, err = store.Latest(e.cwd); err != nil {
			return nil, err
		}
		if id == "" {
			return nil, fmt.Errorf("no conversation to continue in %s (ikigai sessions lists them)", e.cwd)
		}
	}
	if id == "" {
		return s, nil
	}
	sess, err := store.Open(id)
	if err != nil {
		return nil, err
	}
	if err := s.Resume(sess); err != nil {
		return nil, fmt.Errorf("session %s: %w", id, err)
	}
	return s, nil
}

// sessionStore is where conversations are saved.
func sessionStore(home string) *session.Store {
	return session.At(session.Dir(os.Getenv, home))
}

// skillDirs are the directories skills are found in; the project's only
// when it is trusted.
func (e *env) skillDirs() skills.Dirs {
	d := skills.Dirs{System: skills.SystemDir()}
	if e.home != "" {
		d.User = filepath.Join(e.home, ".ikigai", "skills")
	}
	if e.project != "" && e.dirs.TrustProject {
		d.Project = filepath.Join(e.project, "skills")
	}
	return d
}
