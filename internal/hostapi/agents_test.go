package hostapi

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ikigai-tools/ikigai/internal/agent"
	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/provider/anthropic"
	"github.com/ikigai-tools/ikigai/internal/provider/providertest"
	"github.com/ikigai-tools/ikigai/internal/registry"
	"github.com/ikigai-tools/ikigai/toolsdk/host"
)

// beginWith starts a call of the user's conversation made by a, as begin
// does.
func beginWith(t *testing.T, s *Server, a *agent.Agent, conv *agent.Conversation) (*host.Client, func()) {
	t.Helper()
	ctx, end := s.Hook()(context.Background(), agent.Call{
		ToolCall: provider.ToolCall{ID: "call_1", Name: "agent"}, Agent: a, Conversation: conv, Emit: func(agent.Event) {},
	})
	c := &host.Client{Addr: s.Addr()}
	for _, kv := range execute.CallEnv(ctx) {
		if v, ok := strings.CutPrefix(kv, host.EnvToken+"="); ok {
			c.Token = v
		}
	}
	return c, end
}

// testAgent is an agent on a fake model that answers from replies, with no
// tools.
func testAgent(t *testing.T, replies ...providertest.Reply) *agent.Agent {
	t.Helper()
	srv := providertest.NewServer(providertest.Transcript{Replies: replies})
	t.Cleanup(srv.Close)
	p, err := anthropic.New(anthropic.Config{APIKey: "test", BaseURL: srv.AnthropicURL(), Retry: provider.Retry{Attempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	reg := registry.New(nil, nil, nil)
	return &agent.Agent{Provider: p, Model: "claude-test", Tools: func(context.Context) (*registry.Registry, error) { return reg, nil }}
}

// At the limit of sub-agents running, another is refused until one ends;
// wait, send and kill find only the caller's sub-agents, and refuse what
// cannot be done.
func TestAgentLimits(t *testing.T) {
	s := start(t, Options{MaxRunning: 1})
	a := testAgent(t,
		// The prompts, not "first" anywhere: the sub-agent's system
		// prompt speaks of "the first message", and the second's request
		// took the hanging reply when the first was killed before it sent.
		providertest.Reply{Match: `"text":"first"`, Text: "...", Hang: true},
		providertest.Reply{Match: `"text":"second"`, Text: "Second done."},
	)
	c, end := beginWith(t, s, a, &agent.Conversation{})
	defer end()
	ctx := context.Background()
	call := func(op string, args any) (host.Agent, string) {
		var out host.Agent
		err := c.Call(ctx, op, args, &out)
		return out, code(err)
	}

	first, errCode := call(host.OpAgentStart, host.AgentStart{Prompt: "first", Background: true})
	if errCode != "" || first.Status != "running" || first.ID != "agent-1" {
		t.Fatalf("start: %+v %s", first, errCode)
	}
	if _, errCode := call(host.OpAgentStart, host.AgentStart{Prompt: "second", Background: true}); errCode != AgentLimit {
		t.Errorf("a second at once: %s, want %s", errCode, AgentLimit)
	}
	if _, errCode := call(host.OpAgentSend, host.AgentSend{ID: "agent-1", Prompt: "more"}); errCode != AgentBusy {
		t.Errorf("send while running: %s, want %s", errCode, AgentBusy)
	}
	if _, errCode := call(host.OpAgentWait, host.AgentRef{ID: "agent-9"}); errCode != AgentNotFound {
		t.Errorf("wait for another: %s, want %s", errCode, AgentNotFound)
	}
	killed, errCode := call(host.OpAgentKill, host.AgentRef{ID: "agent-1"})
	if errCode != "" || killed.Status != "killed" {
		t.Errorf("kill: %+v %s", killed, errCode)
	}
	if _, errCode := call(host.OpAgentSend, host.AgentSend{ID: "agent-1", Prompt: "more"}); errCode != AgentEnded {
		t.Errorf("send to a killed one: %s, want %s", errCode, AgentEnded)
	}
	second, errCode := call(host.OpAgentStart, host.AgentStart{Prompt: "second"})
	want := host.Agent{ID: "agent-2", Status: "done", Answer: "Second done.", Model: "claude-test", Prompt: "second"}
	if diff := cmp.Diff(want, second); errCode != "" || diff != "" {
		t.Errorf("start once there is room (%s), (-want +got):\n%s", errCode, diff)
	}
	var list host.AgentList
	if err := c.Call(ctx, host.OpAgentList, nil, &list); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, a := range list.Agents {
		ids = append(ids, a.ID+" "+a.Status)
	}
	if diff := cmp.Diff([]string{"agent-1 killed", "agent-2 done"}, ids); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}
}

// A waiting start answers by the request's timeout, with the sub-agent
// still running; it goes on, and wait collects it.
func TestAgentOutlivesItsRequest(t *testing.T) {
	s := start(t, Options{})
	a := testAgent(t, providertest.Reply{Text: "Late.", DelayMS: 300})
	c, end := beginWith(t, s, a, &agent.Conversation{})
	defer end()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	var out host.Agent
	if err := c.Call(ctx, host.OpAgentStart, host.AgentStart{Prompt: "slow"}, &out); err != nil || out.Status != "running" {
		t.Fatalf("start: %+v %v", out, err)
	}
	if err := c.Call(context.Background(), host.OpAgentWait, host.AgentRef{ID: out.ID}, &out); err != nil || out.Status != "done" || out.Answer != "Late." {
		t.Errorf("wait: %+v %v", out, err)
	}
}

// A search loads the deferred tools that match best, names first.
func TestSearch(t *testing.T) {
	tool := func(name, desc string, deferred bool) registry.Tool {
		return registry.Tool{Entry: registry.Entry{Name: name}, Schema: registry.Schema{Description: desc}, Deferred: deferred}
	}
	reg := registry.New([]registry.Tool{
		tool("mcp--fs--read_file", "Read the contents of a file.", true),
		tool("mcp--fs--write_file", "Write a file; read it back with read_file.", true),
		tool("mcp--mem--read_graph", "Read the knowledge graph.", true),
		tool("file_read", "Reads a file.", false),
	}, nil, nil)
	var got []string
	for _, t := range Search(reg, "read file", func(registry.Tool) bool { return true }) {
		got = append(got, t.Name)
	}
	if diff := cmp.Diff([]string{"mcp--fs--read_file", "mcp--fs--write_file", "mcp--mem--read_graph"}, got); diff != "" {
		t.Errorf("search (-want +got):\n%s", diff)
	}
}
