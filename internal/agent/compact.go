package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/ikigai-tools/ikigai/internal/hooks"
	"github.com/ikigai-tools/ikigai/internal/provider"
)

// DefaultCompactAt is the share of the context window the next request
// may fill before the older part of the conversation is summarised.
const DefaultCompactAt = 0.85

// bytesPerToken estimates tokens from bytes until a response reports them.
const bytesPerToken = 4

// SummaryPrefix starts the message that stands for the older part of a
// compacted conversation.
const SummaryPrefix = "[The conversation so far, summarised to save context]\n\n"

// Tokens estimates how many tokens the conversation's messages fill in
// the next request: what the last response reported for its prompt and
// its answer, and about a token for every four bytes added since. Before
// any report, the whole estimate is from bytes.
func (c *Conversation) Tokens() int {
	n := 0
	from := 0
	if c.reported > 0 && c.reportedAt <= len(c.Messages) {
		n, from = c.reported, c.reportedAt
	}
	for _, m := range c.Messages[from:] {
		n += messageBytes(m) / bytesPerToken
	}
	return n
}

// report records a response's usage: the prompt it read and the answer it
// wrote fill the context up to the message just appended.
func (c *Conversation) report(u provider.Usage, promptOverhead int) {
	if u.InputTokens <= 0 {
		return
	}
	// The reported prompt holds the system prompt and the tools too,
	// which Tokens leaves to the agent.
	c.reported = max(0, u.InputTokens-promptOverhead) + u.OutputTokens
	c.reportedAt = len(c.Messages)
}

// imageTokens is what an image costs at most, about: Anthropic counts
// width×height/750 tokens of an image it scales to 1.15 megapixels, and
// OpenAI 765 to 1,105 for one in high detail.
const imageTokens = 1600

// messageBytes is about how many bytes a message takes in a request.
func messageBytes(m provider.Message) int {
	n := 16
	for _, p := range m.Parts {
		switch p := p.(type) {
		case provider.Text:
			n += len(p)
		case provider.Image:
			n += imageTokens * bytesPerToken
		case provider.ToolCall:
			n += len(p.Name) + len(p.Arguments) + len(p.ID) + 16
		case provider.ToolResult:
			n += len(p.Content) + len(p.CallID) + 16 + len(p.Images)*imageTokens*bytesPerToken
		}
	}
	return n
}

// overhead estimates the tokens of what a request carries besides the
// messages: the system prompt and the tools' schemas.
func overhead(system string, tools []provider.Tool) int {
	n := len(system)
	for _, t := range tools {
		n += len(t.Name) + len(t.Description) + len(t.Parameters) + 16
	}
	return n / bytesPerToken
}

// Compaction is what compacting a conversation did.
type Compaction struct {
	// Replaced is how many of the oldest messages the summary replaced.
	Replaced int
	// Summary is the message that stands for them.
	Summary provider.Message
	// Before and After are the estimated tokens of the request, the
	// system prompt and the tools included.
	Before, After int
}

// ErrNothingToCompact is Compact's error for a conversation too short to
// summarise.
var ErrNothingToCompact = errors.New("nothing to compact: the conversation is too short")

// Compact asks the model to summarise the older part of conv (with focus,
// if set, as what the summary should keep above all) and replaces that
// part with the summary, keeping the most recent turns as they were. A
// tool call is never parted from its result.
func (a *Agent) Compact(ctx context.Context, conv *Conversation, focus string) (*Compaction, error) {
	return a.compact(ctx, conv, focus, "manual", 0)
}

// compact is Compact, for the reason trigger ("manual" or "auto") in the
// turn of a run (0 outside one), which the pre_compact hooks are told.
func (a *Agent) compact(ctx context.Context, conv *Conversation, focus, trigger string, turn int) (*Compaction, error) {
	keep := a.keepBudget()
	split := splitPoint(conv.Messages, keep)
	if split <= 0 {
		return nil, ErrNothingToCompact
	}
	if a.Hooks.Has(hooks.PreCompact) {
		a.hook(ctx, turn, hooks.Input{Event: hooks.PreCompact, Trigger: trigger, CustomInstructions: focus})
	}
	extra := 0
	if a.Tools != nil {
		if reg, err := a.Tools(ctx); err == nil {
			extra = overhead(a.System, a.offered(reg, conv))
		}
	}
	before := extra + conv.Tokens()
	req := provider.Request{
		Model:     a.Model,
		System:    summarySystem,
		Messages:  []provider.Message{provider.UserText(transcript(conv.Messages[:split], a.transcriptBudget()) + summaryAsk(focus))},
		MaxTokens: summaryMaxTokens,
	}
	resp, err := a.Provider.Stream(ctx, req, nil)
	if err != nil {
		return nil, fmt.Errorf("compacting the conversation: %w", err)
	}
	text := strings.TrimSpace(resp.Message.Text())
	if text == "" {
		return nil, errors.New("compacting the conversation: the model wrote no summary")
	}
	c := &Compaction{Replaced: split, Summary: provider.UserText(SummaryPrefix + text), Before: before}
	conv.compact(c)
	c.After = extra + conv.Tokens()
	return c, nil
}

// compact replaces the first c.Replaced messages with c.Summary.
func (c *Conversation) compact(cp *Compaction) {
	msgs := append([]provider.Message{cp.Summary}, c.Messages[cp.Replaced:]...)
	clear(c.Messages)
	c.Messages = msgs
	c.reported, c.reportedAt = 0, 0
	if c.OnCompact != nil {
		c.OnCompact(c.Messages)
	}
}

// keepBudget is how many tokens of recent messages a compaction keeps as
// they are: a quarter of the window, or 8,000 tokens when it is unknown.
func (a *Agent) keepBudget() int {
	if a.ContextWindow > 0 {
		return a.ContextWindow / 4
	}
	return 8000
}

// transcriptBudget bounds the transcript a summary is asked for, in bytes:
// half the window, so that the request itself fits.
func (a *Agent) transcriptBudget() int {
	if a.ContextWindow > 0 {
		return a.ContextWindow / 2 * bytesPerToken
	}
	return 400 << 10
}

// splitPoint returns where the kept part of msgs starts: the earliest
// message whose tail fits keep tokens, where a tail may start (not a
// message of tool results, which must follow their calls), and after at
// least one message to summarise. When no tail fits, the shortest one
// that may start does; 0 when there is nowhere to split.
func splitPoint(msgs []provider.Message, keep int) int {
	best, size := 0, 0
	for i := len(msgs) - 1; i >= 1; i-- {
		size += messageBytes(msgs[i]) / bytesPerToken
		if !mayStart(msgs[i]) {
			continue
		}
		if best == 0 || size <= keep {
			best = i
		}
		if size > keep {
			break
		}
	}
	return best
}

// mayStart reports whether a kept part may start at m: anything but a
// message of tool results.
func mayStart(m provider.Message) bool {
	for _, p := range m.Parts {
		if _, ok := p.(provider.ToolResult); ok {
			return false
		}
	}
	return true
}

// summaryMaxTokens bounds the summary's length.
const summaryMaxTokens = 4096

const summarySystem = `You summarise a working session between a user and a coding agent so that the agent can carry on from your summary alone, without the conversation. Write it for the agent, in the second person where it helps. Be complete about what matters and brief about everything else.`

// summaryAsk is the request that follows the transcript.
func summaryAsk(focus string) string {
	ask := `

Summarise the conversation above under these headings:
- Goal: what the user wants, in their words where they matter.
- Decisions: what was decided and why, including what the user rejected.
- Files: the files read, created or changed, each with what matters about it now.
- State: what was done, what was verified (builds, tests) and how it went.
- Open tasks: what is left to do, the next step first.
Quote exact names, paths, commands and error messages. Do not call tools.`
	if focus = strings.TrimSpace(focus); focus != "" {
		ask += "\nAbove all, keep what concerns: " + focus
	}
	return ask
}

// transcript renders msgs as text for a summary: each turn labelled, long
// tool arguments and results cut to their start and end, and, past budget
// bytes, the oldest turns left out but for the first (an earlier summary).
func transcript(msgs []provider.Message, budget int) string {
	var turns []string
	for _, m := range msgs {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case provider.Text:
				who := "User"
				if m.Role == provider.Assistant {
					who = "Assistant"
				}
				turns = append(turns, who+": "+cut(string(p), 8<<10))
			case provider.ToolCall:
				args, _ := json.Marshal(json.RawMessage(p.Arguments))
				if !json.Valid(p.Arguments) {
					args = []byte(p.Arguments)
				}
				turns = append(turns, fmt.Sprintf("Assistant called %s: %s", p.Name, cut(string(args), 1<<10)))
			case provider.Image:
				turns = append(turns, "User attached an image: "+p.Name)
			case provider.ToolResult:
				turns = append(turns, "Result: "+cut(p.Content, 2<<10))
				for _, img := range p.Images {
					turns = append(turns, "The result carried an image: "+img.MediaType)
				}
			}
		}
	}
	size := 0
	for _, t := range turns {
		size += len(t) + 2
	}
	dropped := 0
	for size > budget && len(turns) > 2 {
		size -= len(turns[1]) + 2
		turns = append(turns[:1], turns[2:]...)
		dropped++
	}
	if dropped > 0 {
		turns = append(turns[:1], append([]string{fmt.Sprintf("[... %d earlier turns left out ...]", dropped)}, turns[1:]...)...)
	}
	return "<conversation>\n" + strings.Join(turns, "\n\n") + "\n</conversation>"
}

// cut keeps the start and the end of s within max bytes.
func cut(s string, max int) string {
	if len(s) <= max {
		return s
	}
	half := max / 2
	// A character cut in two at either edge is dropped.
	head, tail := strings.ToValidUTF8(s[:half], ""), strings.ToValidUTF8(s[len(s)-half:], "")
	return fmt.Sprintf("%s [... %d bytes ...] %s", head, len(s)-len(head)-len(tail), tail)
}

// promptTooLong reports whether err is a provider refusing a request for
// being longer than the model's context.
func promptTooLong(err error) bool {
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Kind != provider.BadRequest {
		return false
	}
	msg := strings.ToLower(pe.Message + " " + pe.Type)
	for _, s := range []string{"prompt is too long", "context_length_exceeded", "maximum context length", "context length", "too many tokens", "context window",
		"available context size", "exceed_context_size", // llama.cpp
		"maximum number of tokens", // Gemini
	} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// Breakdown is what takes the space of a conversation's next request, in
// estimated tokens.
type Breakdown struct {
	System      int // the system prompt
	Tools       int // the tools' schemas
	Messages    int // what the user and the model wrote, tool calls included
	ToolResults int // what the tools answered
	Window      int // the model's context; 0 when unknown
}

// Total is the whole request.
func (b Breakdown) Total() int { return b.System + b.Tools + b.Messages + b.ToolResults }

// Breakdown estimates what the next request for conv would hold.
func (a *Agent) Breakdown(ctx context.Context, conv *Conversation) (Breakdown, error) {
	reg, err := a.Tools(ctx)
	if err != nil {
		return Breakdown{}, err
	}
	b := Breakdown{System: len(a.System) / bytesPerToken, Tools: overhead("", a.offered(reg, conv)), Window: a.ContextWindow}
	for _, m := range conv.Messages {
		for _, p := range m.Parts {
			if r, ok := p.(provider.ToolResult); ok {
				b.ToolResults += (len(r.Content)+16)/bytesPerToken + len(r.Images)*imageTokens
			}
		}
		b.Messages += messageBytes(m) / bytesPerToken
	}
	b.Messages -= b.ToolResults
	// The reported usage is the better measure of the messages, when
	// there is one.
	if reported := conv.Tokens(); conv.reported > 0 && reported > b.ToolResults {
		b.Messages = reported - b.ToolResults
	}
	return b, nil
}
