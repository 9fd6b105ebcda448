package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"sync"
	"time"

	"github.com/ikigai-tools/ikigai/internal/agent"
	"github.com/ikigai-tools/ikigai/internal/approval"
	"github.com/ikigai-tools/ikigai/internal/discovery"
	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/provider/anthropic"
	"github.com/ikigai-tools/ikigai/internal/provider/providertest"
	"github.com/ikigai-tools/ikigai/internal/registry"
)

func init() {
	register("agent: per-turn overhead", benchTurnOverhead)
	register("agent: start to first request", benchFirstRequest)
}

// benchTurnOverhead runs the loop in process against the fake Anthropic
// API: one prompt whose answer is one tool call, then a final answer. What
// ikigai itself costs is the whole Run less the time the tool ran; the fake
// model answers at once, so what remains is the loop, the provider's
// encoding and streaming, approval and the envelope.
func benchTurnOverhead(b *bench) error {
	reg := discovery.Scan(context.Background(), discovery.Dirs{System: b.Libexec()})
	if _, ok := reg.Lookup("file_read"); !ok {
		return fmt.Errorf("file_read not found in the build tree; run make first")
	}
	target := b.work + "/small.txt"
	if err := os.WriteFile(target, []byte("hello\n"), 0o644); err != nil {
		return err
	}
	runs := b.Runs(200)
	var replies []providertest.Reply
	for range runs + 1 {
		replies = append(replies,
			providertest.Reply{ToolCalls: []providertest.Call{{Name: "file_read", Arguments: json.RawMessage(`{"file_path":"` + target + `"}`)}}},
			providertest.Reply{Text: "It says hello."})
	}
	srv := providertest.NewServer(providertest.Transcript{Replies: replies})
	defer srv.Close()
	p, err := anthropic.New(anthropic.Config{APIKey: "bench", BaseURL: srv.AnthropicURL(), Retry: provider.Retry{Attempts: 1}})
	if err != nil {
		return err
	}
	var toolTime time.Duration
	a := &agent.Agent{
		Provider: p,
		Model:    "claude-bench",
		System:   agent.SystemPrompt(b.work, nil, nil),
		Tools:    func(context.Context) (*registry.Registry, error) { return reg, nil },
		Policy:   &approval.Policy{Mode: approval.Ask},
		Observe: func(e agent.Event) {
			if e.Kind == agent.ToolResult {
				toolTime += e.Elapsed
			}
		},
	}
	var total, overhead []time.Duration
	for i := range runs + 1 {
		toolTime = 0
		start := time.Now()
		out, err := a.Run(context.Background(), &agent.Conversation{}, "What does small.txt say?")
		if err != nil {
			return err
		}
		if out.Text != "It says hello." || out.ToolTurns != 1 {
			return fmt.Errorf("run ended with %q after %d tool turns", out.Text, out.ToolTurns)
		}
		if i == 0 {
			continue // warm-up
		}
		elapsed := time.Since(start)
		total = append(total, elapsed)
		overhead = append(overhead, elapsed-toolTime)
	}
	med := median(overhead)
	b.Printf("| measurement | median | target |\n|---|---|---|\n")
	b.Printf("| one prompt: tool call, file_read, final answer (two requests), wall | %s | |\n", Dur(median(total)))
	b.Printf("| the same less the tool's own run time: ikigai's overhead | %s | < 5 ms: %s |\n\n", Dur(med), Verdict(med < 5*time.Millisecond))
	b.Printf("%d runs in process against the fake Anthropic API on loopback; the tool is the real file-read-tool process.\n", runs)
	return nil
}

// benchFirstRequest times ikigai -p from process start to the moment the
// fake API receives the first request, with the six core tools to
// discover, next to ikigai version (process start alone) and
// ikigai tools (start and discovery).
func benchFirstRequest(b *bench) error {
	// A run that fails is reported and made again, up to maxFailures
	// times: twice a full bench saw one of these runs fail (ikigai exited
	// with 1 after a read error at the proxy, the machine busy), which 25
	// runs of this suite alone under load did not repeat.
	const maxFailures = 3
	runs := b.Runs(40)
	var replies []providertest.Reply
	for range runs + 1 + maxFailures {
		replies = append(replies, providertest.Reply{Text: "ok"})
	}
	srv := providertest.NewServer(providertest.Transcript{Replies: replies})
	defer srv.Close()
	var mu sync.Mutex
	var arrived time.Time
	upstream, _ := url.Parse(srv.URL)
	proxy := httputil.NewSingleHostReverseProxy(upstream)
	front := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if arrived.IsZero() {
			arrived = time.Now()
		}
		mu.Unlock()
		proxy.ServeHTTP(w, r)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go front.Serve(ln)
	defer front.Close()

	env := append(os.Environ(), "HOME="+b.work, "IKIGAI_PROVIDER=anthropic", "ANTHROPIC_API_KEY=bench",
		"IKIGAI_BASE_URL=http://"+ln.Addr().String())
	var first []time.Duration
	var failures []string // of runs that were made again
	for i := 0; i < runs+1; i++ {
		mu.Lock()
		arrived = time.Time{}
		mu.Unlock()
		cmd := exec.Command(b.Ikigai(), "-p", "hello")
		cmd.Env, cmd.Dir = env, b.work
		start := time.Now()
		out, err := cmd.Output()
		if err != nil || string(out) != "ok\n" {
			var stderr []byte
			if exit, ok := err.(*exec.ExitError); ok {
				stderr = exit.Stderr
			}
			failure := fmt.Sprintf("ikigai -p: %v, stdout %q, stderr %q", err, out, stderr)
			if len(failures) == maxFailures {
				return errors.New(failure)
			}
			failures = append(failures, failure)
			i--
			continue
		}
		mu.Lock()
		d := arrived.Sub(start)
		mu.Unlock()
		if i > 0 {
			first = append(first, d)
		}
	}
	floor, err := Compare(b.Runs(40),
		Cmd{Label: "ikigai version", Argv: []string{b.Ikigai(), "version"}},
		Cmd{Label: "ikigai tools (start and discovery of the core tools)", Argv: []string{b.Ikigai(), "tools"}, Env: []string{"HOME=" + b.work}, Dir: b.work},
	)
	if err != nil {
		return err
	}
	med := median(first)
	b.Table(floor, nil)
	for _, f := range failures {
		b.Printf("A run failed and was made again: %s\n\n", f)
	}
	b.Printf("| measurement | median | ratio to ikigai version | target |\n|---|---|---|---|\n")
	b.Printf("| ikigai -p: process start to the first request at the API | %s | %.2f× | < 50 ms: %s |\n\n",
		Dur(med), float64(med)/float64(floor[0].Median()), Verdict(med < 50*time.Millisecond))
	return nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
