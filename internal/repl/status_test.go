package repl

import (
	"context"
	"testing"

	"github.com/ikigai-tools/ikigai/internal/agent"
	"github.com/ikigai-tools/ikigai/toolsdk/host"
)

func TestStatusLine(t *testing.T) {
	cost := 0.4213
	for _, tc := range []struct {
		st   Status
		want string
	}{
		{Status{Model: "claude-x"}, "claude-x"},
		{Status{Model: "claude-x", Context: agent.Context{Tokens: 82_000, Window: 200_000}, Cost: &cost, Approval: "ask"},
			"claude-x · ctx 41% · 82k/200k · $0.42 · ask"},
		{Status{Model: "qwen3", Context: agent.Context{Tokens: 1500}, Tokens: 12_345, Approval: "auto", Sandbox: "workspace-write", Jobs: 1, Agents: 2},
			"qwen3 · ctx 1.5k/? · 12k tokens · auto · sandbox workspace-write · 1 job · 2 agents"},
		{Status{Model: "claude-x", Reasoning: "high", Approval: "ask"}, "claude-x · thinking high · ask"},
	} {
		if got := tc.st.String(); got != tc.want {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
	}
}

// /approval changes the mode for the session, which the status shows at
// once and the next run's policy takes.
func TestApprovalCommand(t *testing.T) {
	s := &Shell{Approval: "ask", Jobs: func() []host.Job { return []host.Job{{Status: "running"}, {Status: "exited"}} }}
	for arg, want := range map[string]string{
		"":        "Approval: ask (one of ask, auto, read-only, sandboxed)",
		"bogus":   `approval mode "bogus": want ask, auto, read-only or sandboxed`,
		"auto":    "Approval: auto, for the rest of this session",
		"sandbox": `approval mode "sandbox": want ask, auto, read-only or sandboxed`,
	} {
		s.Approval = "ask"
		res, err := s.setApproval(context.Background(), arg)
		if err != nil || res.Output != want {
			t.Errorf("/approval %s = %q, %v; want %q", arg, res.Output, err, want)
		}
	}
	s.setApproval(context.Background(), "auto")
	if got := s.Status("m").String(); got != "m · auto · 1 job" {
		t.Errorf("status %q", got)
	}
}
