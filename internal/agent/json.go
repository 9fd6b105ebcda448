package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"sync"

	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/provider"
)

// A Reporter shows a run as it goes, to a user or a script.
type Reporter interface {
	// Start says which provider and model the run uses.
	Start(provider, model string)
	// Event shows what happened.
	Event(Event)
	// Finish shows how the run ended, maxTurns being the turn limit.
	Finish(o *Outcome, maxTurns int)
	// Fail shows why a run did not finish.
	Fail(err error)
	// Warn shows a problem that does not stop the run: the conversation
	// or the log cannot be written.
	Warn(msg string)
}

// JSONEvents writes a run as one JSON object per line, the --json output
// of ikigai -p: start, request, thinking, text, retry, response, tool_call,
// tool_result, hook, turn_limit, and final or error. A sub-agent's
// tool_call and tool_result carry its id (agent) and the id of the call it
// runs under (parent). It is a public format:
// scripts read it, so fields are added, never renamed or removed.
type JSONEvents struct {
	mu sync.Mutex
	w  io.Writer
}

// NewJSONEvents returns a writer of events to w.
func NewJSONEvents(w io.Writer) *JSONEvents { return &JSONEvents{w: w} }

// jsonEvent is one line; fields not set are left out.
type jsonEvent struct {
	Type         string            `json:"type"`
	Turn         int               `json:"turn,omitempty"`
	Provider     string            `json:"provider,omitempty"`
	Model        string            `json:"model,omitempty"`
	Tools        *int              `json:"tools,omitempty"`
	Text         *string           `json:"text,omitempty"`
	ID           string            `json:"id,omitempty"`
	Name         string            `json:"name,omitempty"`
	Arguments    json.RawMessage   `json:"arguments,omitempty"`
	Envelope     *execute.Envelope `json:"envelope,omitempty"`
	DurationMS   *int64            `json:"duration_ms,omitempty"`
	StopReason   string            `json:"stop_reason,omitempty"`
	ToolTurns    *int              `json:"tool_turns,omitempty"`
	MaxToolTurns int               `json:"max_tool_turns,omitempty"`
	Usage        *jsonUsage        `json:"usage,omitempty"`
	Context      *Context          `json:"context,omitempty"`
	CostUSD      *float64          `json:"cost_usd,omitempty"`
	Before       *int              `json:"tokens_before,omitempty"`
	After        *int              `json:"tokens_after,omitempty"`
	Error        string            `json:"error,omitempty"`
	Kind         string            `json:"kind,omitempty"`
	Steps        []string          `json:"steps,omitempty"`
	WaitMS       *int64            `json:"wait_ms,omitempty"`
	Event        string            `json:"event,omitempty"`
	Source       string            `json:"source,omitempty"`
	Outcome      string            `json:"outcome,omitempty"`
	Reason       string            `json:"reason,omitempty"`
	Message      string            `json:"message,omitempty"`
	Parent       string            `json:"parent,omitempty"`
	Agent        string            `json:"agent,omitempty"`
}

type jsonUsage struct {
	InputTokens      int `json:"input_tokens"`
	OutputTokens     int `json:"output_tokens"`
	CacheReadTokens  int `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int `json:"cache_write_tokens,omitempty"`
	ThinkingTokens   int `json:"thinking_tokens,omitempty"`
}

func usage(u provider.Usage) *jsonUsage {
	return &jsonUsage{u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.ThinkingTokens}
}

func (j *JSONEvents) print(e jsonEvent) {
	j.mu.Lock()
	defer j.mu.Unlock()
	b, err := json.Marshal(e)
	if err != nil {
		b, _ = json.Marshal(jsonEvent{Type: "error", Error: err.Error()})
	}
	j.w.Write(append(b, '\n'))
}

// Start writes the start event: which provider and model the run uses.
func (j *JSONEvents) Start(provider, model string) {
	j.print(jsonEvent{Type: "start", Provider: provider, Model: model})
}

// Event writes what happened, if it is an event of the format.
func (j *JSONEvents) Event(e Event) {
	switch e.Kind {
	case RequestSent:
		j.print(jsonEvent{Type: "request", Turn: e.Turn, Tools: &e.Tools})
	case TextDelta:
		j.print(jsonEvent{Type: "text", Turn: e.Turn, Text: &e.Text})
	case ThinkingDelta:
		j.print(jsonEvent{Type: "thinking", Turn: e.Turn, Text: &e.Text})
	case Retrying:
		wait := e.Wait.Milliseconds()
		j.print(jsonEvent{Type: "retry", Turn: e.Turn, Error: e.Err.Error(), WaitMS: &wait})
	case ResponseDone:
		j.print(jsonEvent{Type: "response", Turn: e.Turn, StopReason: string(e.StopReason), Usage: usage(e.Usage), Context: &e.Context, CostUSD: dollars(e.Cost)})
	case Compacted:
		j.print(jsonEvent{Type: "compacted", Turn: e.Turn, Text: &e.Text, Before: &e.Compaction.Before, After: &e.Compaction.After})
	case ToolCall:
		j.print(jsonEvent{Type: "tool_call", Turn: e.Turn, ID: e.Call.ID, Name: e.Call.Name, Arguments: validJSON(e.Call.Arguments), Parent: e.Parent, Agent: e.Agent})
	case ToolResult:
		ms := e.Elapsed.Milliseconds()
		j.print(jsonEvent{Type: "tool_result", Turn: e.Turn, ID: e.Call.ID, Name: e.Call.Name, Envelope: &e.Envelope, DurationMS: &ms, Parent: e.Parent, Agent: e.Agent})
	case TurnLimit:
		j.print(jsonEvent{Type: "turn_limit", Turn: e.Turn})
	case HookRan:
		r := e.Hook
		ms := r.Elapsed.Milliseconds()
		ev := jsonEvent{Type: "hook", Turn: e.Turn, Event: string(r.Hook.Event), Name: r.Hook.Name, Source: string(r.Hook.Source),
			Outcome: r.Outcome(), Arguments: r.Input, Message: r.Message, DurationMS: &ms}
		if r.Failure != "" {
			ev.Kind, ev.Error = string(r.Failure), r.Reason
		} else {
			ev.Reason = r.Reason
		}
		j.print(ev)
	}
}

// Finish writes the final event: the answer, or the turn limit reached.
func (j *JSONEvents) Finish(o *Outcome, maxTurns int) {
	e := jsonEvent{Type: "final", Text: &o.Text, StopReason: string(o.StopReason), ToolTurns: &o.ToolTurns, Usage: usage(o.Usage), Context: &o.Context, CostUSD: dollars(o.Cost)}
	if o.LimitReached {
		e.MaxToolTurns = maxTurns
		e.Error = LimitMessage(maxTurns)
	}
	j.print(e)
}

// Fail writes the error event of a run that did not finish: its kind
// ("interrupted", or the provider error's kind) and what to do about it.
func (j *JSONEvents) Fail(err error) {
	e := jsonEvent{Type: "error", Error: err.Error()}
	var pe *provider.Error
	switch {
	case IsCancel(err):
		e.Kind = "interrupted"
	case errors.As(err, &pe):
		e.Kind, e.Steps = pe.Kind.String(), pe.Steps
	}
	j.print(e)
}

// Warn writes a warning event: a problem that does not stop the run, such
// as a conversation that cannot be saved.
func (j *JSONEvents) Warn(msg string) {
	j.print(jsonEvent{Type: "warning", Error: msg})
}

// dollars rounds a cost to a millionth of a dollar, which reads better
// than a float's last digits.
func dollars(c *float64) *float64 {
	if c == nil {
		return nil
	}
	r := math.Round(*c*1e6) / 1e6
	return &r
}

// validJSON returns args when they are JSON, else the text as a JSON
// string, so that a model's malformed arguments cannot break a line.
func validJSON(args json.RawMessage) json.RawMessage {
	if json.Valid(args) {
		var b bytes.Buffer
		if json.Compact(&b, args) == nil {
			return b.Bytes()
		}
	}
	s, _ := json.Marshal(string(args))
	return s
}
