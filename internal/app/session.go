package app

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/ikigai-tools/ikigai/internal/agent"
	"github.com/ikigai-tools/ikigai/internal/approval"
	"github.com/ikigai-tools/ikigai/internal/calllog"
	"github.com/ikigai-tools/ikigai/internal/discovery"
	"github.com/ikigai-tools/ikigai/internal/mcp"
	"github.com/ikigai-tools/ikigai/internal/provider/pick"
	"github.com/ikigai-tools/ikigai/internal/registry"
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

// session is everything a conversation needs: the settings, the tools
// (found in the background), and the model.
type session struct {
	env    *env
	dir    string // the working directory
	choice *pick.Choice
	tools  *toolSet
	log    *calllog.Log
	mcp    *mcp.Servers
}

// startSession reads the settings, starts discovery in the background and
// connects to the model. Discovery keeps going while the provider is
// chosen, which may mean asking a local server for its models.
func startSession(ctx context.Context, c *cli.Context) (*session, error) {
	e, err := load(c)
	if err != nil {
		return nil, err
	}
	if err := e.applyFlags(c); err != nil {
		return nil, err
	}
	dir, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	s := &session{env: e, dir: dir, log: e.openLog(c)}
	s.mcp = e.startMCP(s.log)
	s.tools = scanTools(ctx, e, s.log, s.mcp)
	s.choice, err = pick.Provider(ctx, pick.Settings{Provider: e.cfg.Provider, Model: e.cfg.Model, BaseURL: e.cfg.BaseURL})
	if err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// close stops the MCP servers and closes the log.
func (s *session) close() {
	s.mcp.Close()
	s.log.Close()
}

// agent returns an agent for the session, asking the user through asker
// (nil when nobody can be asked).
func (s *session) agent(asker approval.Asker, observe func(agent.Event)) *agent.Agent {
	cfg := s.env.cfg
	mode, _ := approval.ParseMode(cfg.Approval) // checked by applyFlags
	a := &agent.Agent{
		Provider:     s.choice.Provider,
		Model:        s.choice.Model,
		MaxTokens:    cfg.MaxTokens,
		MaxToolTurns: cfg.MaxToolTurns,
		Tools:        s.tools.Wait,
		Policy:       &approval.Policy{Mode: mode, Allow: cfg.Allow, Deny: cfg.Deny, Asker: asker},
		Timeout:      cfg.TimeoutFor,
		Observe: func(ev agent.Event) {
			if ev.Kind == agent.ToolResult {
				s.logCall(ev)
			}
			if observe != nil {
				observe(ev)
			}
		},
	}
	return a
}

// logCall records a call in the log.
func (s *session) logCall(ev agent.Event) {
	var source registry.Source
	if reg := s.tools.latest(); reg != nil {
		if t, ok := reg.Lookup(ev.Call.Name); ok {
			source = t.Source
		}
	}
	s.log.Record(calllog.Call{Tool: ev.Call.Name, Source: source, Args: ev.Call.Arguments, Envelope: ev.Envelope, Elapsed: ev.Elapsed})
}

// systemPrompt waits for the tools and returns the system prompt that
// teaches them.
func (s *session) systemPrompt(ctx context.Context) (string, error) {
	reg, err := s.tools.Wait(ctx)
	if err != nil {
		return "", err
	}
	var names []string
	for _, d := range reg.Definitions() {
		names = append(names, d.Name)
	}
	return agent.SystemPrompt(s.dir, names), nil
}

// toolSet is the registry as discovery will have it: asking for it waits
// until discovery is done. Refresh starts a new scan.
type toolSet struct {
	env  *env
	log  *calllog.Log
	more []discovery.ToolSource
	mu   sync.Mutex
	done chan struct{}
	reg  *registry.Registry
	took time.Duration
}

func scanTools(ctx context.Context, e *env, log *calllog.Log, more ...discovery.ToolSource) *toolSet {
	t := &toolSet{env: e, log: log, more: more}
	t.Refresh(ctx)
	return t
}

// Refresh scans the directories again in the background.
func (t *toolSet) Refresh(ctx context.Context) {
	done := make(chan struct{})
	t.mu.Lock()
	t.done = done
	t.mu.Unlock()
	go func() {
		start := time.Now()
		reg := t.env.discover(context.WithoutCancel(ctx), t.log, t.more...)
		t.mu.Lock()
		if t.done == done { // a later refresh wins
			t.reg, t.took = reg, time.Since(start)
		}
		t.mu.Unlock()
		close(done)
	}()
}

// latest returns the registry of the last scan that finished, without
// waiting for one under way: the one a call ran from, or a newer one.
func (t *toolSet) latest() *registry.Registry {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.reg
}

// Wait returns the registry once the latest scan is done, or ctx's error.
func (t *toolSet) Wait(ctx context.Context) (*registry.Registry, error) {
	for {
		t.mu.Lock()
		done := t.done
		t.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		t.mu.Lock()
		reg, current := t.reg, t.done == done
		t.mu.Unlock()
		if current {
			return reg, nil
		}
	}
}

// runAgent is what ikigai does without a command: answer a prompt with -p,
// else talk with the user.
func runAgent(c *cli.Context) error {
	switch {
	case c.Bool("print"):
		return oneShot(c)
	case c.Bool("json"):
		return cli.Exit("--json goes with -p (ikigai -p --json PROMPT)", 2)
	}
	return cli.ShowAppHelp(c)
}
