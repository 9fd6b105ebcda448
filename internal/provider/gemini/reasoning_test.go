package gemini_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/provider/providertest"
)

func TestThinkingConfig(t *testing.T) {
	for _, tc := range []struct {
		model     string
		reasoning provider.Reasoning
		want      any
	}{
		{"gemini-2.5-pro", provider.ReasoningDefault, nil},
		{"gemini-2.5-pro", provider.ReasoningLow, map[string]any{"includeThoughts": true, "thinkingBudget": 1024.0}},
		{"gemini-2.5-pro", provider.ReasoningMedium, map[string]any{"includeThoughts": true, "thinkingBudget": 8192.0}},
		{"gemini-2.5-flash", provider.ReasoningHigh, map[string]any{"includeThoughts": true, "thinkingBudget": 24576.0}},
		// Off is the least the model allows: 2.5 Pro cannot stop thinking.
		{"gemini-2.5-pro", provider.ReasoningOff, map[string]any{"thinkingBudget": 128.0}},
		{"gemini-2.5-flash", provider.ReasoningOff, map[string]any{"thinkingBudget": 0.0}},
		{"gemini-3-pro-preview", provider.ReasoningHigh, map[string]any{"includeThoughts": true, "thinkingLevel": "HIGH"}},
		{"gemini-3-pro-preview", provider.ReasoningOff, map[string]any{"thinkingLevel": "LOW"}},
		{"gemini-3-flash-preview", provider.ReasoningOff, map[string]any{"thinkingLevel": "MINIMAL"}},
		{"gemini-2.0-flash", provider.ReasoningHigh, nil}, // it does not think
		{"gemini-1.5-pro", provider.ReasoningLow, nil},
		{"gemma-3-27b-it", provider.ReasoningLow, nil},
		{"gemini-10-ultra", provider.ReasoningLow, map[string]any{"includeThoughts": true, "thinkingLevel": "LOW"}},
		// A name without a version gets a budget, which every thinking model takes.
		{"gemini-flash-latest", provider.ReasoningMedium, map[string]any{"includeThoughts": true, "thinkingBudget": 8192.0}},
		{"gemini-pro-latest", provider.ReasoningOff, map[string]any{"thinkingBudget": 128.0}},
	} {
		req := provider.Request{Model: tc.model, Reasoning: tc.reasoning, Messages: []provider.Message{provider.UserText("hi")}}
		p := providertest.Play(t, connect, provider.Config{}, req, providertest.Reply{Text: "ok"})
		if p.Err != nil {
			t.Fatal(p.Err)
		}
		var body struct {
			GenerationConfig struct {
				ThinkingConfig any `json:"thinkingConfig"`
			} `json:"generationConfig"`
		}
		json.Unmarshal(p.Requests[0].Body, &body)
		if d := cmp.Diff(tc.want, body.GenerationConfig.ThinkingConfig); d != "" {
			t.Errorf("%s at %q (-want +got):\n%s", tc.model, tc.reasoning, d)
		}
	}
}

// Thought summaries are shown and kept, counted, and not sent back.
func TestThoughts(t *testing.T) {
	srv := providertest.NewServer(providertest.Transcript{Replies: []providertest.Reply{
		{Thinking: "Listing helps here.", ToolCalls: []providertest.Call{{Name: "ls"}}},
		{Text: "Done."},
	}})
	defer srv.Close()
	p := connect(t, srv.URL, provider.Config{})
	req := provider.Request{Model: "gemini-2.5-flash", Reasoning: provider.ReasoningLow, Messages: []provider.Message{provider.UserText("List.")}}
	var thought string
	first, err := p.Stream(t.Context(), req, func(ev provider.Event) {
		if ev.Kind == provider.ThinkingDelta {
			thought += ev.Text
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	th, ok := first.Message.Parts[0].(provider.Thinking)
	if !ok || th.Text != "Listing helps here." || th.Provider != "google" || thought != th.Text || first.Usage.ThinkingTokens != 4 {
		t.Fatalf("parts %+v, streamed %q, usage %+v", first.Message.Parts, thought, first.Usage)
	}
	req.Messages = append(req.Messages, first.Message, provider.Message{Role: provider.User, Parts: []provider.Part{
		provider.ToolResult{CallID: first.Message.ToolCalls()[0].ID, Content: "{}"}}})
	if _, err := p.Stream(t.Context(), req, nil); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Contents []struct {
			Parts []map[string]any `json:"parts"`
		} `json:"contents"`
	}
	json.Unmarshal(srv.Requests()[1].Body, &body)
	if parts := body.Contents[1].Parts; len(parts) != 1 || parts[0]["functionCall"] == nil {
		t.Errorf("the model turn went back as %v, want its call only", parts)
	}
}
