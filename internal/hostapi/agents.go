package hostapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/ikigai-tools/ikigai/internal/agent"
	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/registry"
	"github.com/ikigai-tools/ikigai/toolsdk"
	"github.com/ikigai-tools/ikigai/toolsdk/host"
)

const (
	// DefaultMaxDepth is how deep sub-agents may nest unless configured
	// otherwise: a sub-agent may start sub-agents of its own, which may not.
	DefaultMaxDepth = 2
	// DefaultMaxRunning is how many sub-agents may run at once.
	DefaultMaxRunning = 4
)

// Error codes of the agent operations.
const (
	AgentNotFound    = "AGENT_NOT_FOUND"
	AgentBusy        = "AGENT_BUSY"
	AgentEnded       = "AGENT_ENDED"
	DepthLimit       = "DEPTH_LIMIT"
	AgentLimit       = "AGENT_LIMIT"
	ModelUnavailable = "MODEL_UNAVAILABLE"
	ToolNotFound     = "TOOL_NOT_FOUND"
)

// Statuses of a sub-agent.
const (
	running   = "running"
	done      = "done"
	failed    = "failed"
	cancelled = "cancelled"
	killed    = "killed"
)

// errKilled is the cause of a sub-agent's end by agent.kill.
var errKilled = errors.New("killed")

// A subagent is a conversation of its own, started by a tool call of
// another, run by a copy of the caller's agent.
type subagent struct {
	id     string
	node   *node
	agent  *agent.Agent
	conv   *agent.Conversation
	cancel context.CancelCauseFunc

	mu    sync.Mutex
	state host.Agent
	done  chan struct{} // closed when the latest run ends
}

func (sa *subagent) snapshot() host.Agent {
	sa.mu.Lock()
	defer sa.mu.Unlock()
	return sa.state
}

func (sa *subagent) finished() chan struct{} {
	sa.mu.Lock()
	defer sa.mu.Unlock()
	return sa.done
}

func (s *Server) maxDepth() int {
	if s.opts.MaxDepth > 0 {
		return s.opts.MaxDepth
	}
	return DefaultMaxDepth
}

func (s *Server) maxRunning() int {
	if s.opts.MaxRunning > 0 {
		return s.opts.MaxRunning
	}
	return DefaultMaxRunning
}

// reserve takes one of the places for a running sub-agent.
func (s *Server) reserve() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return toolsdk.Errorf(AgentEnded, "Error: the session is ending")
	}
	if s.running >= s.maxRunning() {
		return toolsdk.Errorf(AgentLimit, "Error: %d sub-agents are running, the most at once (agent_max_running): wait for one to finish, or kill one", s.running)
	}
	s.running++
	return nil
}

func (s *Server) release() {
	s.mu.Lock()
	s.running--
	s.mu.Unlock()
}

func agentStart(s *Server, ctx context.Context, cl *call, op string, args json.RawMessage) (any, error) {
	var a host.AgentStart
	if err := decodeArgs(op, args, &a); err != nil {
		return nil, err
	}
	if strings.TrimSpace(a.Prompt) == "" {
		return nil, badRequest("prompt is empty: say what the sub-agent is to do")
	}
	depth := cl.node.depth + 1
	if depth > s.maxDepth() {
		return nil, toolsdk.Errorf(DepthLimit, "Error: sub-agents may nest %d deep (agent_max_depth), and this one would be %d deep: do the task yourself", s.maxDepth(), depth)
	}
	base := cl.Agent
	sub := *base
	if a.Model != "" && a.Model != base.Model {
		if s.opts.Model == nil {
			return nil, toolsdk.Errorf(ModelUnavailable, "Error: a sub-agent can only use the caller's model here")
		}
		m, err := s.opts.Model(ctx, a.Model)
		if err != nil {
			return nil, toolsdk.Errorf(ModelUnavailable, "Error: model '%s': %v", a.Model, err)
		}
		sub.Provider, sub.Model, sub.ContextWindow, sub.Price = m.Provider, m.Name, m.Window, m.Price
	}
	if len(a.Tools) > 0 {
		reg, err := base.Tools(ctx)
		if err != nil {
			return nil, err
		}
		var missing []string
		for _, name := range a.Tools {
			if _, ok := reg.Lookup(name); !ok {
				missing = append(missing, name)
			}
		}
		if len(missing) > 0 {
			return nil, toolsdk.Errorf(ToolNotFound, "Error: no tool called %s: give the sub-agent tools the caller has", strings.Join(quote(missing), ", "))
		}
	}
	// At the depth limit the tool that starts sub-agents is left out: it
	// could only fail.
	atLimit := depth >= s.maxDepth()
	only, starter, parentTools := a.Tools, cl.Name, base.Tools
	sub.Tools = func(ctx context.Context) (*registry.Registry, error) {
		reg, err := parentTools(ctx)
		if err != nil {
			return nil, err
		}
		return reg.Only(func(t registry.Tool) bool {
			return (len(only) == 0 || slices.Contains(only, t.Name)) && !(atLimit && t.Name == starter)
		}), nil
	}
	if err := s.reserve(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.agents++
	id := fmt.Sprintf("agent-%d", s.agents)
	s.mu.Unlock()

	nodeCtx, cancel := context.WithCancelCause(cl.node.ctx)
	sa := &subagent{id: id, node: &node{depth: depth, ctx: nodeCtx}, agent: &sub, cancel: cancel,
		state: host.Agent{ID: id, Model: sub.Model}}
	sub.System = base.System + subagentNote(id)
	sub.Observe = forward(cl, id, depth)
	sub.Around = s.around(sa.node)
	record := cl.Conversation.OnSubagent
	sa.conv = &agent.Conversation{OnSubagent: record, Results: cl.Conversation.Results}
	if record != nil {
		sa.conv.OnAppend = func(m provider.Message) { record(id, m) }
	}
	sa.conv.Enable(cl.Conversation.EnabledTools()...)
	sa.conv.Enable(a.Tools...)
	cl.node.mu.Lock()
	cl.node.children = append(cl.node.children, sa)
	cl.node.mu.Unlock()
	return s.run(ctx, cl, sa, a.Prompt, a.Background)
}

// subagentNote ends a sub-agent's system prompt.
func subagentNote(id string) string {
	return fmt.Sprintf("\nYou are %s, a sub-agent: another agent gave you the task in the first message, and your last answer is all "+
		"it gets back. Do the task with your tools, then answer with what it asked for, complete and to the point. Nobody reads "+
		"what you write before then, and nobody can answer a question.\n", id)
}

// forward passes a sub-agent's tool calls and results on to the run of
// the call that started it, marked as the sub-agent's: they show nested
// under that call, and are logged as any call is. Its other events (its
// text, its requests) are its own business.
func forward(cl *call, id string, depth int) func(agent.Event) {
	return func(e agent.Event) {
		if e.Kind != agent.ToolCall && e.Kind != agent.ToolResult {
			return
		}
		if e.Agent == "" {
			e.Agent, e.Parent, e.Depth = id, cl.ID, depth
		}
		cl.Emit(e)
	}
}

// run runs prompt in the sub-agent's conversation, a place having been
// reserved for it, and answers the request: at once in the background,
// else when the run ends or the reply is due. A run the caller waits for
// is cancelled with the call if the user cancels it, but outlives a call
// that merely ends (one that timed out): it goes on in the background.
func (s *Server) run(ctx context.Context, cl *call, sa *subagent, prompt string, background bool) (any, error) {
	finished := make(chan struct{})
	sa.mu.Lock()
	sa.state.Status, sa.state.Prompt, sa.state.Answer, sa.state.Error, sa.state.LimitReached = running, firstLine(prompt), "", "", false
	sa.done = finished
	sa.mu.Unlock()
	if !background {
		stop := context.AfterFunc(cl.ctx, func() { sa.cancel(context.Canceled) })
		cl.atEnd(func() { stop() })
	}
	started := sa.snapshot()
	s.serve.Go(func() {
		defer close(finished)
		defer s.release()
		out, err := sa.agent.Run(sa.node.ctx, sa.conv, prompt)
		sa.mu.Lock()
		defer sa.mu.Unlock()
		if out != nil {
			sa.state.ToolTurns += out.ToolTurns
			sa.state.LimitReached = out.LimitReached
		}
		switch {
		case err == nil:
			sa.state.Status, sa.state.Answer = done, out.Text
		case errors.Is(context.Cause(sa.node.ctx), errKilled):
			sa.state.Status = killed
		case agent.IsCancel(err):
			sa.state.Status = cancelled
		default:
			sa.state.Status, sa.state.Error = failed, err.Error()
		}
	})
	if background {
		return started, nil
	}
	return wait(ctx, sa), nil
}

// wait returns the sub-agent's state once its run ends, or when ctx does.
func wait(ctx context.Context, sa *subagent) host.Agent {
	select {
	case <-sa.finished():
	case <-ctx.Done():
	}
	return sa.snapshot()
}

// child returns the sub-agent of the caller's conversation called id.
func child(cl *call, op string, args json.RawMessage) (*subagent, error) {
	var ref host.AgentRef
	if err := decodeArgs(op, args, &ref); err != nil {
		return nil, err
	}
	return findChild(cl, ref.ID)
}

func findChild(cl *call, id string) (*subagent, error) {
	cl.node.mu.Lock()
	defer cl.node.mu.Unlock()
	for _, sa := range cl.node.children {
		if sa.id == id {
			return sa, nil
		}
	}
	return nil, toolsdk.Errorf(AgentNotFound, "Error: no sub-agent '%s' started by this conversation (list them with agent.list)", id)
}

func agentWait(s *Server, ctx context.Context, cl *call, op string, args json.RawMessage) (any, error) {
	sa, err := child(cl, op, args)
	if err != nil {
		return nil, err
	}
	return wait(ctx, sa), nil
}

func agentKill(s *Server, ctx context.Context, cl *call, op string, args json.RawMessage) (any, error) {
	sa, err := child(cl, op, args)
	if err != nil {
		return nil, err
	}
	sa.cancel(errKilled)
	return wait(ctx, sa), nil
}

func agentSend(s *Server, ctx context.Context, cl *call, op string, args json.RawMessage) (any, error) {
	var a host.AgentSend
	if err := decodeArgs(op, args, &a); err != nil {
		return nil, err
	}
	if strings.TrimSpace(a.Prompt) == "" {
		return nil, badRequest("prompt is empty: say what the sub-agent is to do next")
	}
	sa, err := findChild(cl, a.ID)
	if err != nil {
		return nil, err
	}
	switch st := sa.snapshot(); {
	case st.Status == running:
		return nil, toolsdk.Errorf(AgentBusy, "Error: sub-agent '%s' is still running: wait for it first", a.ID)
	case sa.node.ctx.Err() != nil:
		return nil, toolsdk.Errorf(AgentEnded, "Error: sub-agent '%s' was %s and cannot go on: start another", a.ID, st.Status)
	}
	if err := s.reserve(); err != nil {
		return nil, err
	}
	return s.run(ctx, cl, sa, a.Prompt, a.Background)
}

func agentList(s *Server, ctx context.Context, cl *call, op string, args json.RawMessage) (any, error) {
	if err := decodeArgs(op, args, &struct{}{}); err != nil {
		return nil, err
	}
	cl.node.mu.Lock()
	children := slices.Clone(cl.node.children)
	cl.node.mu.Unlock()
	list := host.AgentList{Agents: []host.Agent{}}
	for _, sa := range children {
		st := sa.snapshot()
		st.Answer = "" // wait gives it; a listing stays short
		list.Agents = append(list.Agents, st)
	}
	return list, nil
}

// firstLine is the first line of s, cut to 80 characters.
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > 80 {
		s = string(r[:79]) + "…"
	}
	return s
}

func quote(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = "'" + n + "'"
	}
	return out
}

// RunningAgents is how many sub-agents are running now.
func (s *Server) RunningAgents() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running
}
