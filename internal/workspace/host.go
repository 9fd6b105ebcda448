package workspace

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"sync"

	"github.com/ikigai-tools/ikigai/internal/agent"
	"github.com/ikigai-tools/ikigai/internal/approval"
	"github.com/ikigai-tools/ikigai/internal/calllog"
	"github.com/ikigai-tools/ikigai/internal/hooks"
	"github.com/ikigai-tools/ikigai/internal/hostapi"
	"github.com/ikigai-tools/ikigai/internal/instructions"
	"github.com/ikigai-tools/ikigai/internal/mcp"
	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/provider/anthropic"
	"github.com/ikigai-tools/ikigai/internal/provider/gemini"
	"github.com/ikigai-tools/ikigai/internal/provider/openai"
	"github.com/ikigai-tools/ikigai/internal/provider/pick"
	"github.com/ikigai-tools/ikigai/internal/registry"
	"github.com/ikigai-tools/ikigai/internal/repl"
	"github.com/ikigai-tools/ikigai/internal/sandbox"
)

// A Host is everything a conversation needs once started: the workspace's
// settings, the tools (found in the background, the MCP servers' included),
// the model (chosen in the background), and the log every call is recorded
// in. It is the Backend of a repl.Shell.
type Host struct {
	w     *Workspace
	tools latest[*registry.Registry]
	model latest[*pick.Choice]
	log   *calllog.Log
	mcp   *mcp.Servers
	hooks *hooks.Set
	// shells are those the host made, whose conversations end with it.
	shells []*repl.Shell
	// api is the host API the tools talk to; nil when it could not be
	// started, which leaves its tools to answer HOST_UNAVAILABLE.
	api *hostapi.Server

	// served is what OpenAI-compatible servers said of their models, by
	// base URL and model: asked once a session.
	servedMu sync.Mutex
	served   map[[2]string]provider.ModelInfo
}

// Start starts discovery and the choice of provider, which may mean asking
// a local server for its models, in the background: whatever needs them
// waits for them, nothing else does. The host records calls in log (nil
// for none) and owns it from then on: Close closes it.
func (w *Workspace) Start(ctx context.Context, log *calllog.Log) *Host {
	h := &Host{w: w, log: log, hooks: w.Hooks(log)}
	h.mcp = w.StartMCP(log)
	ctx = context.WithoutCancel(ctx) // a scan or a choice outlives the request that started it
	h.tools.start(func() (*registry.Registry, error) { return w.Discover(ctx, log, h.mcp), nil })
	h.model.start(func() (*pick.Choice, error) { return pick.Provider(ctx, h.pickSettings("")) })
	api, err := hostapi.Start(hostapi.Options{
		MaxDepth:   w.Config.AgentMaxDepth,
		MaxRunning: w.Config.AgentMaxRunning,
		Skills:     w.SkillDirs(),
		Sandbox:    w.Sandbox,
		Dir:        w.Dir,
		JobState:   w.State,
		Model:      h.subagentModel,
	})
	if err != nil {
		log.Logger().Warn("no host API", "error", err.Error())
	}
	h.api = api
	return h
}

// Close ends the conversations of its shells (their session_end hooks
// run), the sub-agents and the jobs (but those kept), stops the MCP
// servers and closes the log.
func (h *Host) Close() {
	for _, s := range h.shells {
		s.End(context.Background(), "exit")
	}
	if h.api != nil {
		h.api.Close()
	}
	h.mcp.Close()
	h.log.Close()
}

// subagentModel chooses the provider for a sub-agent that asks for the
// model called name, as /model would, without changing the session's.
func (h *Host) subagentModel(ctx context.Context, name string) (hostapi.Model, error) {
	c, err := pick.Provider(ctx, h.pickSettings(name))
	if err != nil {
		return hostapi.Model{}, err
	}
	info := h.ModelInfo(ctx, c)
	return hostapi.Model{Provider: c.Provider, Name: c.Model, Window: info.Window, Price: info.Price}, nil
}

// pickSettings are the user's provider settings, with model instead of the
// configured one if it is set.
func (h *Host) pickSettings(model string) pick.Settings {
	cfg := h.w.Config
	return pick.Settings{Provider: cfg.Provider, Model: cmp.Or(model, cfg.Model), BaseURL: cfg.BaseURL,
		IdleTimeout: cfg.StreamIdleTimeout, MaxResponseBytes: cfg.MaxResponseBytes}
}

// Tools returns the registry once discovery is done; discovery runs
// again first when an MCP server's tools changed since, so that the next
// request offers them.
func (h *Host) Tools(ctx context.Context) (*registry.Registry, error) {
	if h.mcp != nil && h.mcp.Changed() {
		h.tools.start(func() (*registry.Registry, error) {
			return h.w.Discover(context.WithoutCancel(ctx), h.log, h.mcp), nil
		})
	}
	return h.tools.wait(ctx)
}

// Refresh scans the tool directories and asks the MCP servers again (those
// that failed to start are tried anew), and waits for the result.
func (h *Host) Refresh(ctx context.Context) (*registry.Registry, error) {
	h.tools.start(func() (*registry.Registry, error) {
		return h.w.Rediscover(context.WithoutCancel(ctx), h.log, h.mcp), nil
	})
	return h.tools.wait(ctx)
}

// Model returns the provider choice once it is made.
func (h *Host) Model(ctx context.Context) (*pick.Choice, error) { return h.model.wait(ctx) }

// SetModel chooses the provider again for the model called name. The
// provider the user set stays; one chosen by default is chosen again, so
// that a model's name can pick its vendor.
func (h *Host) SetModel(ctx context.Context, name string) (*pick.Choice, error) {
	c, err := pick.Provider(ctx, h.pickSettings(name))
	if err != nil {
		return nil, err
	}
	h.model.start(func() (*pick.Choice, error) { return c, nil })
	return c, nil
}

// Choose returns the provider choice for the model called name, for one
// turn (a custom command's model), leaving the host's as it is.
func (h *Host) Choose(ctx context.Context, name string) (*pick.Choice, error) {
	return pick.Provider(ctx, h.pickSettings(name))
}

// Agent returns an agent for the host's model and tools, asking the user
// through asker (nil when nobody can be asked).
func (h *Host) Agent(ctx context.Context, asker approval.Asker, observe func(agent.Event)) (*agent.Agent, error) {
	choice, err := h.Model(ctx)
	if err != nil {
		return nil, err
	}
	reg, err := h.Tools(ctx)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, d := range reg.Definitions() {
		if !d.Deferred {
			names = append(names, d.Name)
		}
	}
	cfg := h.w.Config
	policy, err := h.w.Policy(asker)
	if err != nil {
		return nil, err
	}
	policy.Sandboxed = h.sandboxed
	info := h.ModelInfo(ctx, choice)
	system := agent.SystemPrompt(h.w.Dir, names, instructions.ReadAll(h.w.Instructions()))
	system += agent.DeferredPrompt(reg.Definitions(), ToolSearch)
	var around func(context.Context, agent.Call) (context.Context, func())
	if h.api != nil {
		around = h.api.Hook()
	}
	return &agent.Agent{
		Around:        around,
		ContextWindow: info.Window,
		NoImages:      noImages(info),
		CompactAt:     cfg.CompactAt,
		Price:         info.Price,
		Provider:      choice.Provider,
		Model:         choice.Model,
		System:        system,
		MaxTokens:     cfg.MaxTokens,
		Reasoning:     provider.Reasoning(cfg.Reasoning),
		MaxToolTurns:  cfg.MaxToolTurns,
		Tools:         h.Tools,
		Policy:        policy,
		Timeout:       cfg.TimeoutFor,
		Inline:        cfg.InlineFor,
		MaxParallel:   cfg.MaxParallelTools,
		Hooks:         h.hooks,
		Observe: func(ev agent.Event) {
			if ev.Kind == agent.ToolResult {
				h.logCall(ev)
			}
			if observe != nil {
				observe(ev)
			}
		},
	}, nil
}

// noImages is why the model of info takes no images, "" if it does.
func noImages(info provider.ModelInfo) string {
	if info.TextOnly {
		return "the model reads no images"
	}
	return ""
}

// sandboxed reports whether the call req will run confined to the
// workspace: its tool runs in the sandbox and may write nothing outside
// the project's root and its own temporary directory.
func (h *Host) sandboxed(req approval.Request) bool {
	reg := h.tools.peek()
	if reg == nil {
		return false
	}
	t, ok := reg.Lookup(req.Tool)
	if !ok {
		return false
	}
	c := t.Confinement()
	if c == nil || c.Refused != "" {
		return false
	}
	for _, p := range c.Write {
		if rel, err := filepath.Rel(h.w.Root, p); err != nil || !filepath.IsLocal(rel) && rel != "." {
			return false
		}
	}
	return true
}

// ModelInfo is what is known of the chosen model: its provider's table, or
// what an OpenAI-compatible server says of it, corrected by the
// configuration's context_window and prices.
func (h *Host) ModelInfo(ctx context.Context, c *pick.Choice) provider.ModelInfo {
	var info provider.ModelInfo
	switch c.Name {
	case pick.Anthropic:
		info = anthropic.Models.Lookup(c.Model)
	case pick.OpenAI:
		info = openai.Models.Lookup(c.Model)
	case pick.OpenAICompatible:
		info = h.servedModel(ctx, c)
	case pick.Google:
		info = gemini.Models.Lookup(c.Model)
	}
	cfg := h.w.Config
	if cfg.ContextWindow > 0 {
		info.Window = cfg.ContextWindow
	}
	if p, ok := cfg.Prices[c.Model]; ok {
		info.Price = &p
	}
	return info
}

// servedModel returns what the OpenAI-compatible server of c says of its
// model, asking it the first time.
func (h *Host) servedModel(ctx context.Context, c *pick.Choice) provider.ModelInfo {
	p, ok := c.Provider.(*openai.Provider)
	if !ok {
		return provider.ModelInfo{}
	}
	key := [2]string{c.BaseURL, c.Model}
	h.servedMu.Lock()
	defer h.servedMu.Unlock()
	info, ok := h.served[key]
	if !ok {
		info = p.ServerInfo(ctx, c.Model).Info()
		if h.served == nil {
			h.served = map[[2]string]provider.ModelInfo{}
		}
		h.served[key] = info
	}
	return info
}

// logCall records a call in the log, with the source of the tool it ran.
func (h *Host) logCall(ev agent.Event) {
	var source registry.Source
	if reg := h.tools.peek(); reg != nil {
		if t, ok := reg.Lookup(ev.Call.Name); ok {
			source = t.Source
		}
	}
	h.log.Record(calllog.Call{Tool: ev.Call.Name, Source: source, Args: ev.Call.Arguments, Envelope: ev.Envelope, Elapsed: ev.Elapsed})
}

// Resume says which saved conversation a shell goes on with.
type Resume struct {
	// Latest goes on with the latest conversation held in the working
	// directory.
	Latest bool
	// ID goes on with the conversation of that id.
	ID string
}

// Shell returns a shell over the host whose conversation is saved, going
// on with the conversation r names, if any.
func (h *Host) Shell(r Resume) (*repl.Shell, error) {
	w := h.w
	store := w.Sessions()
	s := &repl.Shell{Backend: h, Dir: w.Dir, Home: w.Home, Skills: w.SkillDirs(), Sessions: store, LogDir: w.LogDir(), Hooks: h.hooks, Commands: w.CommandDirs(),
		Reasoning: provider.Reasoning(w.Config.Reasoning), Approval: approval.Mode(w.Config.Approval)}
	if w.Sandbox != nil && w.Sandbox.Mode != sandbox.Off {
		s.Sandbox = string(w.Sandbox.Mode)
	}
	if dir := w.Checkpoints(); dir != "" {
		s.Checkpoints, s.CheckpointMax, s.CheckpointRoot = dir, int64(w.Config.CheckpointMaxMB)*1_000_000, w.Root
	}
	h.shells = append(h.shells, s)
	if h.api != nil {
		s.Jobs, s.Agents = h.api.Jobs, h.api.RunningAgents
	}
	h.log.OnWriteFailure(s.Warning)
	id := r.ID
	if r.Latest || id != "" {
		if store == nil {
			return nil, fmt.Errorf("no saved conversations: neither $XDG_STATE_HOME nor a home directory is set")
		}
	}
	if r.Latest {
		var err error
		if id, err = store.Latest(w.Dir); err != nil {
			return nil, err
		}
		if id == "" {
			return nil, fmt.Errorf("no conversation to continue in %s (ikigai sessions lists them)", w.Dir)
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

// Ask answers one prompt, in the conversation r names if any, with
// nobody to approve calls, showing the run through rep; it closes the host
// when done. A failure is shown through rep too.
func (h *Host) Ask(ctx context.Context, r Resume, prompt string, rep agent.Reporter) (*agent.Outcome, error) {
	defer h.Close()
	outcome, err := h.ask(ctx, r, prompt, rep)
	if err != nil {
		rep.Fail(err)
		return nil, err
	}
	rep.Finish(outcome, h.w.Config.MaxToolTurns)
	return outcome, nil
}

func (h *Host) ask(ctx context.Context, r Resume, prompt string, rep agent.Reporter) (*agent.Outcome, error) {
	choice, err := h.Model(ctx)
	if err != nil {
		return nil, err
	}
	rep.Start(choice.Name, choice.Model)
	s, err := h.Shell(r)
	if err != nil {
		return nil, err
	}
	s.Observe, s.Warn = rep.Event, rep.Warn
	s.Checkpoints = "" // a run nobody rewinds
	return s.Prompt(ctx, prompt)
}
