package provider

import "fmt"

// Reasoning is how much a model thinks before it answers. Each provider
// maps it to its API's own control: Anthropic's thinking budget, OpenAI's
// reasoning_effort, Gemini's thinkingConfig.
type Reasoning string

const (
	ReasoningDefault Reasoning = ""    // the model's own default; nothing is sent
	ReasoningOff     Reasoning = "off" // as little as the model allows
	ReasoningLow     Reasoning = "low"
	ReasoningMedium  Reasoning = "medium"
	ReasoningHigh    Reasoning = "high"
)

// ParseReasoning reads a reasoning setting: off, low, medium or high, or
// empty for the model's default.
func ParseReasoning(s string) (Reasoning, error) {
	switch r := Reasoning(s); r {
	case ReasoningDefault, ReasoningOff, ReasoningLow, ReasoningMedium, ReasoningHigh:
		return r, nil
	}
	return "", fmt.Errorf("reasoning %q: want off, low, medium or high", s)
}

// Thinking is the model's reasoning, as its API showed it: shown to the
// user, kept in the conversation, and sent back only to the API that
// wrote it, which may need it (Anthropic, on a turn of tool calls).
type Thinking struct {
	Provider string // the API that wrote it: "anthropic", "google", "openai-compatible"...
	Text     string
	// Signature is what the API attached to the text to check it when
	// it comes back (Anthropic's signature); empty for none.
	Signature string
	// Redacted is thinking the API gave only encrypted (Anthropic's
	// redacted_thinking data), sent back as it came; Text is empty then.
	Redacted string
}

func (Thinking) isPart() {}

// Thinking reports a piece of the model's reasoning, unless it would take
// the answer past its cap.
func (r *Reader) Thinking(text string) error {
	if text == "" {
		return nil
	}
	if err := r.Keep(len(text)); err != nil {
		return err
	}
	r.Emit(Event{Kind: ThinkingDelta, Text: text})
	return nil
}
