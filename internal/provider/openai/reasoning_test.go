package openai_test

import (
	"encoding/json"
	"testing"

	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/provider/providertest"
)

func TestReasoningEffort(t *testing.T) {
	for _, tc := range []struct {
		connect   providertest.Connect
		model     string
		reasoning provider.Reasoning
		want      any
	}{
		{connect, "gpt-5.5", provider.ReasoningDefault, nil},
		{connect, "gpt-5.5", provider.ReasoningOff, "none"},
		{connect, "gpt-5.5", provider.ReasoningHigh, "high"},
		{connect, "gpt-5", provider.ReasoningOff, "minimal"},
		{connect, "gpt-5-mini", provider.ReasoningOff, "minimal"},
		{connect, "gpt-5-mini", provider.ReasoningMedium, "medium"},
		{connect, "o3", provider.ReasoningOff, "low"},
		{connect, "o4-mini", provider.ReasoningLow, "low"},
		{connect, "gpt-4.1", provider.ReasoningHigh, nil}, // it does not reason, and refuses the field
		{compatible, "qwen3", provider.ReasoningHigh, "high"},
		{compatible, "qwen3", provider.ReasoningOff, nil},
	} {
		req := provider.Request{Model: tc.model, Reasoning: tc.reasoning, Messages: []provider.Message{provider.UserText("hi")}}
		p := providertest.Play(t, tc.connect, provider.Config{}, req, providertest.Reply{Text: "ok"})
		if p.Err != nil {
			t.Fatal(p.Err)
		}
		var body map[string]any
		json.Unmarshal(p.Requests[0].Body, &body)
		if body["reasoning_effort"] != tc.want {
			t.Errorf("%s at %q: reasoning_effort %v, want %v", tc.model, tc.reasoning, body["reasoning_effort"], tc.want)
		}
	}
}

// A server's reasoning_content is shown and kept, counted, and never sent
// back.
func TestReasoningContent(t *testing.T) {
	srv := providertest.NewServer(providertest.Transcript{Replies: []providertest.Reply{
		{Thinking: "The user wants a listing.", ToolCalls: []providertest.Call{{Name: "ls"}}},
		{Text: "Done."},
	}})
	defer srv.Close()
	p := compatible(t, srv.URL, provider.Config{})
	req := provider.Request{Model: "deepseek-r1", Messages: []provider.Message{provider.UserText("List.")}}
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
	if !ok || th.Text != "The user wants a listing." || th.Provider != "openai-compatible" || thought != th.Text || first.Usage.ThinkingTokens != 6 {
		t.Fatalf("parts %+v, streamed %q, usage %+v", first.Message.Parts, thought, first.Usage)
	}
	req.Messages = append(req.Messages, first.Message, provider.Message{Role: provider.User, Parts: []provider.Part{
		provider.ToolResult{CallID: first.Message.ToolCalls()[0].ID, Content: "{}"}}})
	if _, err := p.Stream(t.Context(), req, nil); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Messages []map[string]any `json:"messages"`
	}
	json.Unmarshal(srv.Requests()[1].Body, &body)
	if m := body.Messages[1]; m["content"] != nil || m["reasoning_content"] != nil {
		t.Errorf("the assistant turn went back as %v, want its calls only", m)
	}
}
