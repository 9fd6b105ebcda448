// Package agent runs the conversation: the user's prompt goes to the model
// with the tools on offer, every tool call the model makes is approved and
// run, the results go back, and so on until the model is done or the turn
// limit is reached.
package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/ikigai-tools/ikigai/internal/approval"
	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/registry"
)

// DefaultMaxToolTurns is how many times in a row the model may answer with
// tool calls before the agent stops and hands back to the user.
const DefaultMaxToolTurns = 50

// Agent runs turns of a conversation. Its fields are set once; Run may be
// called again for each prompt, but not concurrently on one Conversation.
type Agent struct {
	Provider  provider.Provider
	Model     string
	System    string // the system prompt
	MaxTokens int    // 0 for the provider's default
	// MaxToolTurns is how many model answers with tool calls one Run
	// allows; 0 means DefaultMaxToolTurns.
	MaxToolTurns int
	// Tools returns the tools on offer, waiting for discovery if it is
	// still running. It is called before every request, so a refreshed
	// registry takes effect at once.
	Tools func(ctx context.Context) (*registry.Registry, error)
	// Policy approves every call before it runs.
	Policy *approval.Policy
	// Timeout returns how long a call of the named tool may run.
	Timeout func(tool string) time.Duration
	// Observe, if set, is told what happens as it happens. Calls are
	// serialised, but may come from more than one goroutine.
	Observe func(Event)
}

// Conversation is the messages so far.
type Conversation struct {
	Messages []provider.Message
	// OnAppend, if set, is called with each message as it joins the
	// conversation, so that it can be saved as it goes.
	OnAppend func(provider.Message)
}

func (c *Conversation) append(m provider.Message) {
	c.Messages = append(c.Messages, m)
	if c.OnAppend != nil {
		c.OnAppend(m)
	}
}

// Outcome is how a Run ended.
type Outcome struct {
	Text         string // the model's last text
	StopReason   provider.StopReason
	ToolTurns    int            // model answers that asked for tools
	Usage        provider.Usage // summed over every request
	LimitReached bool           // stopped at MaxToolTurns, with the model still calling tools
}

// Run adds prompt to the conversation as the user's message and runs the
// model and its tool calls until the model stops asking for tools.
//
// Every message is appended to conv as it is complete: the prompt, each
// answer of the model, each set of tool results. A failed or cancelled
// request leaves conv as it was before that request; a cancellation while
// tools run still records their (TOOL_CANCELLED) results, so conv always
// answers every tool call it holds. The error is the provider's
// *provider.Error, the context's error, or one from Tools.
func (a *Agent) Run(ctx context.Context, conv *Conversation, prompt string) (*Outcome, error) {
	conv.append(provider.UserText(prompt))
	out := &Outcome{}
	maxTurns := a.MaxToolTurns
	if maxTurns <= 0 {
		maxTurns = DefaultMaxToolTurns
	}
	var mu sync.Mutex // serialises Observe
	emit := func(e Event) {
		if a.Observe != nil {
			mu.Lock()
			defer mu.Unlock()
			a.Observe(e)
		}
	}
	for turn := 1; ; turn++ {
		reg, err := a.Tools(ctx)
		if err != nil {
			return out, err
		}
		req := provider.Request{
			Model:     a.Model,
			System:    a.System,
			Messages:  conv.Messages,
			Tools:     a.offered(reg),
			MaxTokens: a.MaxTokens,
		}
		emit(Event{Kind: RequestSent, Turn: turn, Tools: len(req.Tools)})
		resp, err := a.Provider.Stream(ctx, req, func(e provider.Event) {
			switch e.Kind {
			case provider.TextDelta:
				emit(Event{Kind: TextDelta, Turn: turn, Text: e.Text})
			case provider.Retrying:
				emit(Event{Kind: Retrying, Turn: turn, Err: e.Err, Wait: e.Wait})
			}
		})
		if err != nil {
			return out, err
		}
		conv.append(resp.Message)
		out.Text, out.StopReason = resp.Message.Text(), resp.StopReason
		out.Usage.InputTokens += resp.Usage.InputTokens
		out.Usage.OutputTokens += resp.Usage.OutputTokens
		emit(Event{Kind: ResponseDone, Turn: turn, Text: out.Text, StopReason: resp.StopReason, Usage: resp.Usage})

		calls := resp.Message.ToolCalls()
		if len(calls) == 0 {
			return out, nil
		}
		out.ToolTurns++
		results := a.runCalls(ctx, reg, turn, calls, emit)
		conv.append(provider.Message{Role: provider.User, Parts: results})
		if err := ctx.Err(); err != nil {
			return out, err
		}
		if out.ToolTurns >= maxTurns {
			out.LimitReached = true
			emit(Event{Kind: TurnLimit, Turn: turn})
			return out, nil
		}
	}
}

// offered returns the tools the model may call: the registry's, less those
// the policy denies outright.
func (a *Agent) offered(reg *registry.Registry) []provider.Tool {
	var tools []provider.Tool
	for _, d := range reg.Definitions() {
		if a.Policy != nil && !a.Policy.Offered(d.Name) {
			continue
		}
		tools = append(tools, provider.Tool{Name: d.Name, Description: d.Description, Parameters: d.Parameters})
	}
	return tools
}

// runCalls approves and runs every call of one answer and returns their
// results in call order. Consecutive read-only calls run at the same time;
// any other call waits for everything before it and runs alone, so a read
// after a write sees the write. Results are reported in call order too.
func (a *Agent) runCalls(ctx context.Context, reg *registry.Registry, turn int, calls []provider.ToolCall, emit func(Event)) []provider.Part {
	results := make([]provider.Part, len(calls))
	type run struct {
		i       int
		env     execute.Envelope
		elapsed time.Duration
	}
	finish := func(r *run) {
		call := calls[r.i]
		emit(Event{Kind: ToolResult, Turn: turn, Call: call, Envelope: r.env, Elapsed: r.elapsed})
		results[r.i] = provider.ToolResult{CallID: call.ID, Content: string(r.env.JSON()), IsError: !r.env.Success}
	}
	var batch []*run
	var running sync.WaitGroup
	flush := func() {
		running.Wait()
		for _, r := range batch {
			finish(r)
		}
		batch = nil
	}
	for i, call := range calls {
		tool, known := reg.Lookup(call.Name)
		readOnly := known && tool.Schema.Annotations.ReadOnly()
		if !readOnly {
			flush()
		}
		emit(Event{Kind: ToolCall, Turn: turn, Call: call})
		r := &run{i: i}
		do := func() {
			start := time.Now()
			r.env = a.call(ctx, reg, call, readOnly)
			r.elapsed = time.Since(start)
		}
		if readOnly {
			batch = append(batch, r)
			running.Go(do)
		} else {
			do()
			finish(r)
		}
	}
	flush()
	return results
}

// call runs one tool call through approval and the registry.
func (a *Agent) call(ctx context.Context, reg *registry.Registry, call provider.ToolCall, readOnly bool) execute.Envelope {
	if err := ctx.Err(); err != nil {
		return execute.Failed(execute.ToolCancelled, "Tool '%s' was cancelled before it started", call.Name)
	}
	if _, known := reg.Lookup(call.Name); !known {
		return execute.NotFound(call.Name)
	}
	if env, ok := execute.CheckArgs(call.Name, call.Arguments); !ok {
		return env
	}
	if a.Policy != nil {
		ok, reason := a.Policy.Decide(ctx, approval.Request{Tool: call.Name, Args: call.Arguments, ReadOnly: readOnly})
		if !ok {
			return execute.Denied(call.Name, reason)
		}
	}
	timeout := execute.DefaultTimeout
	if a.Timeout != nil {
		timeout = a.Timeout(call.Name)
	}
	return reg.Call(ctx, call.Name, call.Arguments, timeout)
}

// EventKind says what an Event reports.
type EventKind int

const (
	// RequestSent: a request went to the model, offering Event.Tools tools.
	RequestSent EventKind = iota + 1
	// TextDelta: Event.Text is the next piece of the model's text.
	TextDelta
	// Retrying: the request failed with Event.Err and goes again after Event.Wait.
	Retrying
	// ResponseDone: the model finished an answer; Event.Text is its text.
	ResponseDone
	// ToolCall: Event.Call is about to be approved and run.
	ToolCall
	// ToolResult: Event.Call ran (or was refused) with Event.Envelope,
	// taking Event.Elapsed.
	ToolResult
	// TurnLimit: the model was still calling tools at MaxToolTurns; the
	// agent stopped.
	TurnLimit
)

// Event is something that happened during a Run.
type Event struct {
	Kind       EventKind
	Turn       int // which request of the Run, from 1
	Text       string
	Tools      int
	Call       provider.ToolCall
	Envelope   execute.Envelope
	Elapsed    time.Duration
	StopReason provider.StopReason
	Usage      provider.Usage
	Err        error
	Wait       time.Duration
}

// LimitMessage tells the user why the agent stopped at the turn limit.
func LimitMessage(limit int) string {
	return fmt.Sprintf("Stopped after %d tool turns (max_tool_turns); the model was still calling tools. "+
		"Send another message to let it continue, or raise max_tool_turns.", limit)
}

// IsCancel reports whether err means the run was cancelled (by the user or
// a deadline) rather than failed.
func IsCancel(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
