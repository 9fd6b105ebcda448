package providertest_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/provider/anthropic"
	"github.com/ikigai-tools/ikigai/internal/provider/gemini"
	"github.com/ikigai-tools/ikigai/internal/provider/openai"
	"github.com/ikigai-tools/ikigai/internal/provider/providertest"
)

var update = flag.Bool("update", false, "rewrite testdata/switch with the request bodies sent")

// One conversation, with reasoning on, moves from Anthropic to Gemini to
// OpenAI, as /model moves it: each provider writes the whole history its
// own way, tool calls and results still paired, other vendors' thinking
// dropped. Every request passes the fake's checks, which are the APIs'
// own, and is the body recorded in testdata/switch (go test -update
// rewrites them).
func TestSwitchProviders(t *testing.T) {
	call := func(name, args string) []providertest.Call {
		return []providertest.Call{{Name: name, Arguments: json.RawMessage(args)}}
	}
	srv := providertest.NewServer(providertest.Transcript{Replies: []providertest.Reply{
		{Thinking: "Listing first.", Text: "Let me look.", ToolCalls: call("bash", `{"command":"ls"}`)},
		{Thinking: "Two files.", Text: "There are a.txt and b.txt."},
		{Thinking: "Read it.", ToolCalls: call("file_read", `{"file_path":"a.txt"}`)},
		{Text: "It says hi."},
		{Thinking: "Count them.", ToolCalls: call("bash", `{"command":"wc -l a.txt"}`)},
		{Thinking: "One.", Text: "One line."},
	}})
	defer srv.Close()
	cfg := provider.Config{APIKey: "k", Retry: provider.Retry{Attempts: 1}}
	connect := map[string]func() (provider.Provider, error){
		"anthropic": func() (provider.Provider, error) { c := cfg; c.BaseURL = srv.AnthropicURL(); return anthropic.New(c) },
		"google":    func() (provider.Provider, error) { c := cfg; c.BaseURL = srv.GeminiURL(); return gemini.New(c) },
		"openai":    func() (provider.Provider, error) { c := cfg; c.BaseURL = srv.OpenAIURL(); return openai.New(c) },
	}
	tools := []provider.Tool{
		{Name: "bash", Description: "Run a command", Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`)},
		{Name: "file_read", Description: "Read a file", Parameters: json.RawMessage(`{"type":"object","properties":{"file_path":{"type":"string"}},"required":["file_path"]}`)},
	}
	results := map[string]string{
		`{"command":"ls"}`:          `{"tool_success":true,"result":{"output":"a.txt\nb.txt","exit_code":0}}`,
		`{"file_path":"a.txt"}`:     `{"tool_success":true,"result":{"content":"hi\n"}}`,
		`{"command":"wc -l a.txt"}`: `{"tool_success":true,"result":{"output":"1 a.txt","exit_code":0}}`,
	}
	var msgs []provider.Message
	n := 0
	// prompt sends text through the provider called name, and the results
	// of the calls it answers with, until it stops calling tools.
	prompt := func(name, model, text string) {
		t.Helper()
		p, err := connect[name]()
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, provider.UserText(text))
		for {
			n++
			res, err := p.Stream(t.Context(), provider.Request{Model: model, System: "You are terse.", Messages: msgs, Tools: tools, Reasoning: provider.ReasoningHigh}, nil)
			if err != nil {
				t.Fatalf("request %d, to %s: %v", n, name, err)
			}
			msgs = append(msgs, res.Message)
			calls := res.Message.ToolCalls()
			if len(calls) == 0 {
				return
			}
			var parts []provider.Part
			for _, c := range calls {
				parts = append(parts, provider.ToolResult{CallID: c.ID, Content: results[string(c.Arguments)]})
			}
			msgs = append(msgs, provider.Message{Role: provider.User, Parts: parts})
		}
	}
	prompt("anthropic", "claude-sonnet-5-5", "What files are here?")
	prompt("google", "gemini-2.5-pro", "What does a.txt say?")
	prompt("openai", "gpt-5.5", "How many lines has it?")

	reqs := srv.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d requests, want 6", len(reqs))
	}
	names := []string{"anthropic", "anthropic", "google", "google", "openai", "openai"}
	for i, r := range reqs {
		var body bytes.Buffer
		if err := json.Indent(&body, r.Body, "", "  "); err != nil {
			t.Fatal(err)
		}
		body.WriteByte('\n')
		path := filepath.Join("testdata", "switch", fmt.Sprintf("%d-%s.json", i+1, names[i]))
		if *update {
			if err := os.WriteFile(path, body.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(string(want), body.String()); d != "" {
			t.Errorf("request %d (%s) differs from %s (-want +got):\n%s", i+1, r.Path, path, d)
		}
	}
}
