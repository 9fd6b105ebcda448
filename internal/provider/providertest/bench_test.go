package providertest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/provider/anthropic"
	"github.com/ikigai-tools/ikigai/internal/provider/openai"
	"github.com/ikigai-tools/ikigai/internal/provider/providertest"
)

// BenchmarkTurn is one turn of a conversation with 20 messages and 6
// tools, answered with text and a tool call, over loopback: the cost of a
// provider and the fake server together.
func BenchmarkTurn(b *testing.B) {
	schema := json.RawMessage(`{"type":"object","properties":{"file_path":{"type":"string","description":"Path"},"limit":{"type":"integer"}},"required":["file_path"]}`)
	req := provider.Request{Model: "m", System: "You are a coding agent."}
	for i := range 6 {
		req.Tools = append(req.Tools, provider.Tool{Name: fmt.Sprintf("tool_%d", i), Description: "Does a thing", Parameters: schema})
	}
	for i := range 10 {
		id := fmt.Sprintf("call_%d", i)
		req.Messages = append(req.Messages,
			provider.Message{Role: provider.Assistant, Parts: []provider.Part{provider.Text("Reading."), provider.ToolCall{ID: id, Name: "tool_0", Arguments: json.RawMessage(`{"file_path":"a.go"}`)}}},
			provider.Message{Role: provider.User, Parts: []provider.Part{provider.ToolResult{CallID: id, Content: `{"tool_success":true,"result":{"output":"package main\n"}}`}}})
	}
	req.Messages = append([]provider.Message{provider.UserText("Fix the bug.")}, req.Messages...)
	reply := providertest.Reply{Text: "Let me read the file first.", ToolCalls: []providertest.Call{{Name: "tool_0", Arguments: json.RawMessage(`{"file_path":"main.go","limit":200}`)}}}
	for _, tc := range []struct {
		name string
		new  func(root string) (provider.Provider, error)
	}{
		{"anthropic", func(root string) (provider.Provider, error) {
			return anthropic.New(anthropic.Config{APIKey: "k", BaseURL: root})
		}},
		{"openai", func(root string) (provider.Provider, error) {
			return openai.New(openai.Config{APIKey: "k", BaseURL: root + "/v1"})
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			replies := make([]providertest.Reply, b.N)
			for i := range replies {
				replies[i] = reply
			}
			srv := providertest.NewServer(providertest.Transcript{Replies: replies})
			defer srv.Close()
			p, err := tc.new(srv.URL)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for range b.N {
				if _, err := p.Stream(context.Background(), req, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
