package anthropic_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/provider/providertest"
)

func thinkingOf(t *testing.T, body []byte) (maxTokens float64, thinking any) {
	t.Helper()
	var b map[string]any
	if err := json.Unmarshal(body, &b); err != nil {
		t.Fatal(err)
	}
	return b["max_tokens"].(float64), b["thinking"]
}

func TestThinkingBudgets(t *testing.T) {
	for _, tc := range []struct {
		reasoning provider.Reasoning
		maxTokens int
		wantMax   float64
		want      any
	}{
		{provider.ReasoningDefault, 0, 16384, nil},
		{provider.ReasoningOff, 0, 16384, nil},
		{provider.ReasoningLow, 0, 16384 + 4000, map[string]any{"type": "enabled", "budget_tokens": 4000.0}},
		{provider.ReasoningMedium, 0, 16384 + 10000, map[string]any{"type": "enabled", "budget_tokens": 10000.0}},
		{provider.ReasoningHigh, 0, 16384 + 31999, map[string]any{"type": "enabled", "budget_tokens": 31999.0}},
		// A max_tokens the user set stays, and the budget fits under it.
		{provider.ReasoningHigh, 64000, 64000, map[string]any{"type": "enabled", "budget_tokens": 31999.0}},
		{provider.ReasoningHigh, 8000, 8000, map[string]any{"type": "enabled", "budget_tokens": 4000.0}},
		{provider.ReasoningLow, 1500, 1500, nil}, // no room for the least budget
	} {
		req := hello
		req.Reasoning, req.MaxTokens = tc.reasoning, tc.maxTokens
		p := providertest.Play(t, connect, provider.Config{}, req, providertest.Reply{Text: "ok"})
		if p.Err != nil {
			t.Fatalf("%s, max_tokens %d: %v", tc.reasoning, tc.maxTokens, p.Err)
		}
		gotMax, got := thinkingOf(t, p.Requests[0].Body)
		if gotMax != tc.wantMax || !cmp.Equal(got, tc.want) {
			t.Errorf("%q, max_tokens %d: got max_tokens %v, thinking %v; want %v, %v", tc.reasoning, tc.maxTokens, gotMax, got, tc.wantMax, tc.want)
		}
	}
}

// Thinking streams as its own events, is kept with its signature, and goes
// back on the tool turn, as the API (and the fake) require.
func TestThinkingOnToolTurns(t *testing.T) {
	srv := providertest.NewServer(providertest.Transcript{Replies: []providertest.Reply{
		{Thinking: "I should list the files.", ToolCalls: []providertest.Call{{Name: "bash", Arguments: json.RawMessage(`{"command":"ls"}`)}}},
		{Text: "Two files."},
		{Text: "never"},
	}})
	defer srv.Close()
	p := connect(t, srv.URL, provider.Config{})
	req := provider.Request{Model: "m", Reasoning: provider.ReasoningMedium, Messages: []provider.Message{provider.UserText("List.")}}
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
	if !ok || th.Text != "I should list the files." || th.Signature == "" || th.Provider != "anthropic" || thought != th.Text {
		t.Fatalf("parts %+v, streamed %q; want the thinking first, signed", first.Message.Parts, thought)
	}
	call := first.Message.ToolCalls()[0]
	req.Messages = append(req.Messages, first.Message, provider.Message{Role: provider.User, Parts: []provider.Part{provider.ToolResult{CallID: call.ID, Content: "{}"}}})
	if _, err := p.Stream(t.Context(), req, nil); err != nil {
		t.Fatal(err) // the fake refuses a tool turn without its thinking
	}
	var body struct {
		Messages []struct {
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(srv.Requests()[1].Body, &body)
	if got := body.Messages[1].Content[0]; got["type"] != "thinking" || got["signature"] != th.Signature {
		t.Errorf("the tool turn went back as %v, want its thinking first", got)
	}
	// Without it, the API refuses.
	req.Messages[1].Parts = req.Messages[1].Parts[1:]
	req.Messages[1].Parts = append([]provider.Part{provider.Thinking{Provider: "anthropic", Text: "forged", Signature: "x"}}, req.Messages[1].Parts...)
	if _, err := p.Stream(t.Context(), req, nil); err == nil {
		t.Error("a forged signature was accepted")
	}
}

// Other vendors' thinking is dropped; redacted thinking goes back as its
// data; a tool turn another provider began is asked without thinking,
// which the API would refuse.
func TestThinkingOfOthers(t *testing.T) {
	req := provider.Request{Model: "m", Reasoning: provider.ReasoningHigh, Messages: []provider.Message{
		provider.UserText("List."),
		{Role: provider.Assistant, Parts: []provider.Part{
			provider.Thinking{Provider: "google", Text: "Gemini thought this."},
			provider.ToolCall{ID: "c1", Name: "bash", Arguments: json.RawMessage(`{}`), Signature: "gemini-sig"},
		}},
		{Role: provider.User, Parts: []provider.Part{provider.ToolResult{CallID: "c1", Content: "{}"}}},
	}}
	p := providertest.Play(t, connect, provider.Config{}, req, providertest.Reply{Text: "ok"})
	if p.Err != nil {
		t.Fatal(p.Err)
	}
	var body struct {
		Thinking any `json:"thinking"`
		Messages []struct {
			Content []map[string]any `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(p.Requests[0].Body, &body)
	if body.Thinking != nil || len(body.Messages[1].Content) != 1 || body.Messages[1].Content[0]["type"] != "tool_use" {
		t.Errorf("thinking %v, tool turn %v; want no thinking asked, Gemini's dropped", body.Thinking, body.Messages[1].Content)
	}

	req.Messages[1].Parts[0] = provider.Thinking{Provider: "anthropic", Redacted: "EmwKAhgBEgy"}
	p = providertest.Play(t, connect, provider.Config{}, req, providertest.Reply{Text: "ok"})
	if p.Err != nil {
		t.Fatal(p.Err)
	}
	body.Messages, body.Thinking = nil, nil
	json.Unmarshal(p.Requests[0].Body, &body)
	want := map[string]any{"type": "redacted_thinking", "data": "EmwKAhgBEgy"}
	if d := cmp.Diff(want, body.Messages[1].Content[0]); d != "" || body.Thinking == nil {
		t.Errorf("redacted thinking (-want +got):\n%s\nthinking %v", d, body.Thinking)
	}
}

// A turn of nothing but another vendor's thinking (Gemini stopped while
// it thought) is left out: the API refuses an empty turn.
func TestOnlyOthersThinking(t *testing.T) {
	req := provider.Request{Model: "m", Messages: []provider.Message{
		provider.UserText("Think."),
		{Role: provider.Assistant, Parts: []provider.Part{provider.Thinking{Provider: "google", Text: "Hmm."}}},
		provider.UserText("Go on."),
	}}
	p := providertest.Play(t, connect, provider.Config{}, req, providertest.Reply{Text: "ok"})
	if p.Err != nil {
		t.Fatal(p.Err)
	}
	var body struct {
		Messages []any `json:"messages"`
	}
	json.Unmarshal(p.Requests[0].Body, &body)
	if len(body.Messages) != 2 {
		t.Errorf("messages %v, want the two user turns only", body.Messages)
	}
}
