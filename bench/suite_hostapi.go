package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ikigai-tools/ikigai/internal/agent"
	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/hostapi"
	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/provider/providertest"
	"github.com/ikigai-tools/ikigai/toolsdk/host"
)

func init() {
	register("host API: round trip", benchHostAPI)
	register("host API: deferred tools", benchDeferred)
}

// benchHostAPI times requests to the host API as a tool makes them with
// toolsdk/host: a connection of its own, the request, the reply.
func benchHostAPI(b *bench) error {
	s, err := hostapi.Start(hostapi.Options{Dir: b.work})
	if err != nil {
		return err
	}
	defer s.Close()
	ctx, end := s.Hook()(context.Background(), agent.Call{
		ToolCall: provider.ToolCall{ID: "bench", Name: "bench"}, Agent: &agent.Agent{},
		Conversation: &agent.Conversation{}, Emit: func(agent.Event) {},
	})
	defer end()
	c := &host.Client{}
	for _, kv := range execute.CallEnv(ctx) {
		if v, ok := strings.CutPrefix(kv, host.EnvAPI+"="); ok {
			c.Addr = v
		}
		if v, ok := strings.CutPrefix(kv, host.EnvToken+"="); ok {
			c.Token = v
		}
	}
	b.Printf("A request as a tool makes it with `toolsdk/host`: a connection to the session's socket, one line of JSON each way.\n\n")
	b.Printf("| request | median | p95 | target |\n|---|---|---|---|\n")
	for _, r := range []struct {
		label, op string
		target    bool
	}{
		{"ping (the round trip itself)", host.OpPing, true},
		{"job.list", host.OpJobList, false},
		{"skill.list (reads the skills directories)", host.OpSkillList, false},
	} {
		var times []time.Duration
		for range b.Runs(2000) {
			start := time.Now()
			if err := c.Call(context.Background(), r.op, nil, nil); err != nil {
				return fmt.Errorf("%s: %w", r.op, err)
			}
			times = append(times, time.Since(start))
		}
		slices.Sort(times)
		target := ""
		if r.target {
			target = "< 1 ms: " + Verdict(median(times) < time.Millisecond)
		}
		b.Printf("| %s | %s | %s | %s |\n", r.label, Dur(median(times)), Dur(times[len(times)*95/100]), target)
	}
	return nil
}

// referenceServers are the three reference MCP servers, as npm has them.
var referenceServers = []struct{ name, pkg string }{
	{"everything", "@modelcontextprotocol/server-everything"},
	{"filesystem", "@modelcontextprotocol/server-filesystem"},
	{"memory", "@modelcontextprotocol/server-memory"},
}

// benchDeferred measures what deferring the tools of the three reference
// MCP servers saves in every request: ikigai -p sends one prompt to the
// fake model API, once with the servers' tools sent whole and once
// deferred, and the request bodies are weighed.
func benchDeferred(b *bench) error {
	if !b.Have("npx", "npm") {
		return nil
	}
	fmt.Fprintln(os.Stderr, "bench: starting the reference MCP servers with npx (the first time downloads them)")
	type weighed struct {
		bytes, tools int
		system       int
	}
	weigh := func(deferred bool) (weighed, error) {
		home := filepath.Join(b.work, fmt.Sprintf("home-deferred-%v", deferred))
		servers := map[string]any{}
		for _, s := range referenceServers {
			args := []string{"-y", s.pkg}
			if s.name == "filesystem" {
				args = append(args, b.work)
			}
			servers[s.name] = map[string]any{"command": "npx", "args": args, "startup_timeout_seconds": 300, "deferred": deferred}
		}
		cfg, _ := json.Marshal(map[string]any{"mcp_servers": servers})
		if err := os.MkdirAll(filepath.Join(home, ".ikigai"), 0o755); err != nil {
			return weighed{}, err
		}
		if err := os.WriteFile(filepath.Join(home, ".ikigai", "config.json"), cfg, 0o644); err != nil {
			return weighed{}, err
		}
		srv := providertest.NewServer(providertest.Transcript{Replies: []providertest.Reply{{Text: "ok"}}})
		defer srv.Close()
		cmd := exec.Command(b.Ikigai(), "-p", "--model", "claude-test", "Say ok")
		cmd.Dir = b.work
		cmd.Env = append(os.Environ(), "HOME="+home, "IKIGAI_SYSTEM_CONFIG=/nonexistent", "IKIGAI_LIBEXEC_DIR="+b.Libexec(),
			"IKIGAI_PROVIDER=anthropic", "ANTHROPIC_API_KEY=sk-ant-bench", "IKIGAI_BASE_URL="+srv.AnthropicURL(), "XDG_STATE_HOME="+filepath.Join(home, "state"))
		if out, err := cmd.CombinedOutput(); err != nil {
			return weighed{}, fmt.Errorf("ikigai -p: %v\n%s", err, out)
		}
		reqs := srv.Requests()
		if len(reqs) != 1 {
			return weighed{}, fmt.Errorf("%d requests, want 1", len(reqs))
		}
		var body struct {
			Tools  []struct{ Name string } `json:"tools"`
			System []struct{ Text string } `json:"system"`
		}
		if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
			return weighed{}, err
		}
		w := weighed{bytes: len(reqs[0].Body)}
		for _, t := range body.Tools {
			if strings.HasPrefix(t.Name, "mcp--") {
				w.tools++
			}
		}
		for _, s := range body.System {
			w.system += len(s.Text)
		}
		return w, nil
	}
	whole, err := weigh(false)
	if err != nil {
		return err
	}
	deferred, err := weigh(true)
	if err != nil {
		return err
	}
	b.Printf("The three reference MCP servers (everything, filesystem, memory: %d tools) started with npx, and the core tools; "+
		"the first request of `ikigai -p`, in Anthropic's format, as the fake model API received it.\n\n", whole.tools)
	b.Printf("| the servers' tools | MCP tools sent whole | system prompt | request |\n|---|---|---|---|\n")
	b.Printf("| sent whole | %d | %d B | %d B |\n", whole.tools, whole.system, whole.bytes)
	b.Printf("| deferred (a line each, and tool_search) | %d | %d B | %d B |\n\n", deferred.tools, deferred.system, deferred.bytes)
	saved := whole.bytes - deferred.bytes
	b.Printf("Deferring saves %d bytes (%.1f KiB) in every request: the request is %.2f× smaller (%.0f%% of the bytes saved).\n\n",
		saved, float64(saved)/1024, float64(whole.bytes)/float64(deferred.bytes), 100*float64(saved)/float64(whole.bytes))
	return nil
}
