package repl

import (
	"context"
	"fmt"
	"strings"

	"github.com/ikigai-tools/ikigai/internal/agent"
	"github.com/ikigai-tools/ikigai/internal/approval"
	"github.com/ikigai-tools/ikigai/internal/display"
)

// Status is what the status line shows of the session.
type Status struct {
	Model     string
	Reasoning string        // the level set for the session or by the settings; "" for the model's default
	Context   agent.Context // the next request's size, and the window; zero before any
	Cost      *float64      // what the session's requests cost; nil when the price is unknown
	Tokens    int           // the tokens the session's requests read and wrote, for when it is
	// Approval is the approval mode; Sandbox the sandbox's, "" when off.
	Approval, Sandbox string
	// Jobs and Agents count the background jobs and sub-agents running.
	Jobs, Agents int
}

// String is the status line: "claude-sonnet-5 · thinking high · ctx 41% ·
// 82k/200k · $0.42 · ask · sandbox workspace-write · 1 job · 2 agents".
func (st Status) String() string {
	parts := []string{st.Model}
	if st.Reasoning != "" {
		parts = append(parts, "thinking "+st.Reasoning)
	}
	switch c := st.Context; {
	case c.Window > 0 && c.Tokens > 0:
		parts = append(parts, fmt.Sprintf("ctx %d%% · %s/%s", c.Tokens*100/c.Window, display.Tokens(c.Tokens), display.Tokens(c.Window)))
	case c.Tokens > 0:
		parts = append(parts, "ctx "+display.Tokens(c.Tokens)+"/?")
	}
	switch {
	case st.Cost != nil:
		parts = append(parts, fmt.Sprintf("$%.2f", *st.Cost))
	case st.Tokens > 0:
		parts = append(parts, display.Tokens(st.Tokens)+" tokens")
	}
	if st.Approval != "" {
		parts = append(parts, st.Approval)
	}
	if st.Sandbox != "" {
		parts = append(parts, "sandbox "+st.Sandbox)
	}
	count := func(n int, what string) {
		switch {
		case n == 1:
			parts = append(parts, "1 "+what)
		case n > 1:
			parts = append(parts, fmt.Sprintf("%d %ss", n, what))
		}
	}
	count(st.Jobs, "job")
	count(st.Agents, "agent")
	return strings.Join(parts, " · ")
}

// Status returns what the status line shows now. It may be called while a
// line runs.
func (s *Shell) Status(model string) Status {
	s.mu.Lock()
	st := Status{Model: model, Reasoning: string(s.Reasoning), Context: s.ctxUse, Tokens: s.tokens, Approval: string(s.approvalMode()), Sandbox: s.Sandbox}
	if s.cost != nil {
		c := *s.cost
		st.Cost = &c
	}
	s.mu.Unlock()
	if s.Jobs != nil {
		for _, j := range s.Jobs() {
			if j.Status == "running" {
				st.Jobs++
			}
		}
	}
	if s.Agents != nil {
		st.Agents = s.Agents()
	}
	return st
}

// approvalMode is the session's approval mode, with s.mu held.
func (s *Shell) approvalMode() approval.Mode {
	if s.Approval == "" {
		return approval.Ask
	}
	return s.Approval
}

// setApproval shows the approval mode, or sets it for the session.
func (s *Shell) setApproval(_ context.Context, arg string) (Result, error) {
	if arg == "" {
		s.mu.Lock()
		defer s.mu.Unlock()
		return Result{Output: fmt.Sprintf("Approval: %s (one of ask, auto, read-only, sandboxed)", s.approvalMode())}, nil
	}
	mode, err := approval.ParseMode(arg)
	if err != nil {
		return Result{Output: err.Error()}, nil
	}
	s.mu.Lock()
	s.Approval = mode
	s.mu.Unlock()
	return Result{Output: fmt.Sprintf("Approval: %s, for the rest of this session", mode)}, nil
}
