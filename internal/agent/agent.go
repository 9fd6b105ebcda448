// Package agent runs the conversation: the user's prompt goes to the model
// with the tools on offer, every tool call the model makes is approved and
// run, the results go back, and so on until the model is done or the turn
// limit is reached.
package agent

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/ikigai-tools/ikigai/internal/approval"
	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/hooks"
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
	// Reasoning is how much the model thinks; the model's default when
	// empty. It may be changed between runs (/reasoning).
	Reasoning provider.Reasoning
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
	// NoImages, when set, says why the model takes no images: each is
	// sent as a line of text saying so instead (provider.WithoutImages).
	NoImages string
	// Inline returns how big a result of the named tool may be and still
	// go to the model whole; a bigger one is kept in the conversation's
	// Results directory and the model gets its head and tail. Nil means
	// execute.DefaultInline.
	Inline func(tool string) int
	// MaxParallel bounds the read-only calls of one answer that run at
	// once; 0 means the number of CPUs.
	MaxParallel int
	// Observe, if set, is told what happens as it happens. Calls are
	// serialised, but may come from more than one goroutine.
	Observe func(Event)
	// ContextWindow is how many tokens the model reads; 0 when unknown,
	// which leaves compaction to a request the API refuses as too long.
	ContextWindow int
	// CompactAt is the share of ContextWindow the next request may fill
	// before the conversation is compacted: DefaultCompactAt if 0, never
	// if negative.
	CompactAt float64
	// Price is what the model costs; nil when unknown.
	Price *provider.Price
	// Hooks run at the points of the loop the user hooks into: a prompt
	// sent, a call before and after it runs, the model stopping, the
	// conversation compacted; nil for none.
	Hooks *hooks.Set
	// Session is the conversation the hooks are told about.
	Session hooks.Session
	// Allowed, if set, lets the calls it accepts run without asking: the
	// allowed_tools of the custom command being run.
	Allowed hooks.Matcher
	// Around, if set, is called as each approved call starts, with the
	// context the call was to run with; the call runs with the context it
	// returns (the host API's token attached, say), and the function it
	// returns is called when the call ends.
	Around func(ctx context.Context, c Call) (context.Context, func())

	now func() time.Time // time.Now, unless a test says otherwise
}

// Conversation is the messages so far.
type Conversation struct {
	Messages []provider.Message
	// OnAppend, if set, is called with each message as it joins the
	// conversation, so that it can be saved as it goes.
	OnAppend func(provider.Message)
	// OnCut, if set, is called with n when the conversation is cut back to
	// its first n messages: a run that failed is taken out.
	OnCut func(n int)
	// OnCompact, if set, is called with the messages of the conversation
	// once it is compacted: the summary of the older part first, then the
	// messages kept as they were.
	OnCompact func(msgs []provider.Message)

	// OnSubagent, if set, is called with each message of a sub-agent's
	// conversation started from this one (or from one of its sub-agents),
	// with the sub-agent's id, so that its transcript is saved with this
	// conversation.
	OnSubagent func(id string, m provider.Message)

	// Results is the directory that keeps the tool results too big to
	// give the model whole (made when first needed); "" keeps none, and
	// the model gets only their head and tail.
	Results string

	reported   int // the tokens the last response reported for the messages
	reportedAt int // how many messages they covered

	// noImages says why the model of that name took no images in this
	// conversation, for the agents of its later turns.
	noImages map[string]string

	mu      sync.Mutex
	enabled map[string]bool // deferred tools offered from now on
}

// Enable offers the deferred tools called names in the conversation's
// requests from now on.
func (c *Conversation) Enable(names ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.enabled == nil {
		c.enabled = map[string]bool{}
	}
	for _, n := range names {
		c.enabled[n] = true
	}
}

// Enabled reports whether the deferred tool called name is offered.
func (c *Conversation) Enabled(name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.enabled[name]
}

// EnabledTools returns the deferred tools the conversation offers, sorted.
func (c *Conversation) EnabledTools() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Sorted(maps.Keys(c.enabled))
}

func (c *Conversation) append(m provider.Message) {
	c.Messages = append(c.Messages, m)
	if c.OnAppend != nil {
		c.OnAppend(m)
	}
}

// cut takes the messages after the first n out of the conversation.
func (c *Conversation) cut(n int) {
	if n >= len(c.Messages) {
		return
	}
	clear(c.Messages[n:])
	c.Messages = c.Messages[:n]
	if c.OnCut != nil {
		c.OnCut(n)
	}
}

// Cut takes the messages after the first n out of the conversation, as
// rewinding it to an earlier turn does, between runs.
func (c *Conversation) Cut(n int) {
	if c.reportedAt > n {
		c.reported, c.reportedAt = 0, 0 // the report covered messages now gone
	}
	c.cut(n)
}

// Add appends a message the user brings to the conversation (a loaded
// skill), between runs.
func (c *Conversation) Add(m provider.Message) { c.append(m) }

// AnswerInterrupted closes a conversation restored from a session that
// ended while tools ran: when the last message holds tool calls, which
// then have no results, it appends TOOL_CANCELLED results for them, so that
// the model is told and the conversation can go on. It reports whether it
// did.
func (c *Conversation) AnswerInterrupted() bool {
	if len(c.Messages) == 0 {
		return false
	}
	last := c.Messages[len(c.Messages)-1]
	calls := last.ToolCalls()
	if last.Role != provider.Assistant || len(calls) == 0 {
		return false
	}
	results := make([]provider.Part, len(calls))
	for i, call := range calls {
		env := execute.Failed(execute.ToolCancelled, "Tool '%s' was interrupted: the session ended before it finished", call.Name)
		results[i] = provider.ToolResult{CallID: call.ID, Content: string(env.JSON()), IsError: true}
	}
	c.append(provider.Message{Role: provider.User, Parts: results})
	return true
}

// Outcome is how a Run ended.
type Outcome struct {
	Text         string // the model's last text
	StopReason   provider.StopReason
	ToolTurns    int            // model answers that asked for tools
	Usage        provider.Usage // summed over every request
	LimitReached bool           // stopped at MaxToolTurns, with the model still calling tools
	// Context is how full the model's context is after the run.
	Context Context
	// Cost is what the run's requests cost in US dollars; nil when the
	// model's price is unknown.
	Cost *float64
}

// Context is how much of the model's context window a conversation fills.
type Context struct {
	Tokens int `json:"tokens"` // estimated: the last reported usage, and bytes since
	Window int `json:"window"` // 0 when unknown
}

// Run adds prompt to the conversation as the user's message, with the
// images it attaches, and runs the model and its tool calls until the
// model stops asking for tools.
//
// Every message is appended to conv as it is complete: the prompt, each
// answer of the model, each set of tool results. A run that fails is taken
// out of conv whole, the prompt and everything after it, so that what
// failed (a prompt too long for the model, say) is not sent again with the
// next prompt; the tools it ran are not undone. A cancelled request leaves
// conv as it was before that request, the prompt included, and a
// cancellation while tools run still records their (TOOL_CANCELLED)
// results, so conv always answers every tool call it holds. The error is
// the provider's *provider.Error, the context's error, or one from Tools.
func (a *Agent) Run(ctx context.Context, conv *Conversation, prompt string, images ...provider.Image) (out *Outcome, err error) {
	ctx, emit := a.emitter(ctx)
	before := len(conv.Messages)
	defer func() {
		if err != nil && ctx.Err() == nil && !IsCancel(err) {
			conv.cut(before)
		}
	}()
	out = &Outcome{}
	msg, err := a.promptMessage(ctx, prompt)
	if err != nil {
		return out, err
	}
	for _, img := range images {
		msg.Parts = append(msg.Parts, img)
	}
	conv.append(msg)
	maxTurns := a.MaxToolTurns
	if maxTurns <= 0 {
		maxTurns = DefaultMaxToolTurns
	}
	stops := 0 // times stop hooks sent the model back
	// compact summarises the older part of the conversation, keeping the
	// run's prompt where it can be cut again if the run fails.
	compact := func(turn int, why string) error {
		cp, err := a.compact(ctx, conv, "", "auto", turn)
		if err != nil {
			return err
		}
		if before >= cp.Replaced {
			before -= cp.Replaced - 1
		} else {
			before = 1 // the prompt is in the summary now
		}
		emit(Event{Kind: Compacted, Turn: turn, Text: why, Compaction: cp})
		return nil
	}
	for turn := 1; ; turn++ {
		reg, err := a.Tools(ctx)
		if err != nil {
			return out, err
		}
		tools := a.offered(reg, conv)
		extra := overhead(a.System, tools)
		compacted := false
		if limit := a.compactLimit(); limit > 0 && extra+conv.Tokens() > limit {
			if err := compact(turn, "the context is nearly full"); err != nil && !errors.Is(err, ErrNothingToCompact) {
				return out, err
			}
			compacted = true
		}
		var resp *provider.Response
		droppedImages := false
		for {
			req := provider.Request{
				Model:     a.Model,
				System:    a.System,
				Messages:  a.messages(conv),
				Tools:     tools,
				MaxTokens: a.MaxTokens,
				Reasoning: a.Reasoning,
			}
			emit(Event{Kind: RequestSent, Turn: turn, Tools: len(req.Tools)})
			resp, err = a.Provider.Stream(ctx, req, func(e provider.Event) {
				switch e.Kind {
				case provider.TextDelta:
					emit(Event{Kind: TextDelta, Turn: turn, Text: e.Text})
				case provider.ThinkingDelta:
					emit(Event{Kind: ThinkingDelta, Turn: turn, Text: e.Text})
				case provider.Retrying:
					emit(Event{Kind: Retrying, Turn: turn, Err: e.Err, Wait: e.Wait, Attempt: e.Attempt, Attempts: e.Attempts})
				}
			})
			// A request too long for the model is compacted and sent
			// again, once; one with images the model refused is sent
			// again with a line of text for each.
			switch {
			case err == nil:
			case !compacted && promptTooLong(err):
				compacted = true
				if cerr := compact(turn, "the model refused a request that long"); cerr != nil {
					return out, errors.Join(err, cerr)
				}
				continue
			case a.NoImages == "" && imagesRefused(err, req.Messages):
				a.NoImages = "the model refused images (" + err.Error() + ")"
				droppedImages = true
				continue
			}
			break
		}
		if err != nil {
			if droppedImages {
				// Refused without them too: the images were not why.
				a.NoImages = ""
			}
			return out, err
		}
		if droppedImages {
			// Each turn has an agent of its own: the conversation
			// remembers, so that no later turn is refused again.
			if conv.noImages == nil {
				conv.noImages = map[string]string{}
			}
			conv.noImages[a.Model] = a.NoImages
		}
		conv.append(resp.Message)
		conv.report(resp.Usage, extra)
		out.Text, out.StopReason = resp.Message.Text(), resp.StopReason
		out.Usage = out.Usage.Add(resp.Usage)
		out.Context = Context{Tokens: extra + conv.Tokens(), Window: a.ContextWindow}
		var cost *float64
		if a.Price != nil {
			c, total := a.Price.Cost(resp.Usage), a.Price.Cost(out.Usage)
			cost, out.Cost = &c, &total
		}
		emit(Event{Kind: ResponseDone, Turn: turn, Text: out.Text, StopReason: resp.StopReason, Usage: resp.Usage, Context: out.Context, Cost: cost})

		calls := resp.Message.ToolCalls()
		if len(calls) == 0 {
			if back := a.stopHooks(ctx, turn, &stops); back != "" {
				conv.append(provider.UserText(back))
				continue
			}
			return out, nil
		}
		out.ToolTurns++
		results := a.runCalls(ctx, reg, conv, turn, calls, emit)
		conv.append(provider.Message{Role: provider.User, Parts: results})
		out.Context.Tokens = extra + conv.Tokens()
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

// messages returns the conversation's messages as the model gets them:
// with its newest images, or a line of text for each where it takes none.
func (a *Agent) messages(conv *Conversation) []provider.Message {
	if a.NoImages == "" && conv.noImages[a.Model] != "" {
		a.NoImages = conv.noImages[a.Model]
	}
	if a.NoImages != "" {
		return provider.WithoutImages(conv.Messages, a.NoImages)
	}
	return newestImages(conv.Messages)
}

// offered returns the tools the model may call: the registry's, less those
// the policy denies outright and the deferred ones conv has not enabled.
func (a *Agent) offered(reg *registry.Registry, conv *Conversation) []provider.Tool {
	var tools []provider.Tool
	for _, d := range reg.Definitions() {
		if a.Policy != nil && !a.Policy.Offered(d.Name) || d.Deferred && !conv.Enabled(d.Name) {
			continue
		}
		tools = append(tools, provider.Tool{Name: d.Name, Description: d.Description, Parameters: d.Parameters})
	}
	return tools
}

// runCalls approves and runs every call of one answer and returns their
// results in call order. Consecutive read-only calls run at the same time,
// MaxParallel at most; any other call waits for everything before it and
// runs alone, so a read after a write sees the write. Results are reported
// in call order too.
func (a *Agent) runCalls(ctx context.Context, reg *registry.Registry, conv *Conversation, turn int, calls []provider.ToolCall, emit func(Event)) []provider.Part {
	results := make([]provider.Part, len(calls))
	type run struct {
		i int
		callResult
	}
	finish := func(r *run) {
		call := calls[r.i]
		emit(Event{Kind: ToolResult, Turn: turn, Call: call, Envelope: r.env, Elapsed: r.elapsed})
		results[r.i] = r.part(call.ID)
	}
	limit := a.MaxParallel
	if limit <= 0 {
		limit = runtime.NumCPU()
	}
	slots := make(chan struct{}, limit)
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
			r.callResult = a.call(ctx, reg, Call{ToolCall: call, Agent: a, Conversation: conv, Turn: turn, Emit: emit}, readOnly)
		}
		if readOnly {
			batch = append(batch, r)
			slots <- struct{}{}
			running.Go(func() {
				defer func() { <-slots }()
				do()
			})
		} else {
			do()
			finish(r)
		}
	}
	flush()
	return results
}

// call runs one tool call through the pre_tool hooks, approval, the
// registry and the post_tool hooks. The time it returns is the tool's
// alone, not the time the hooks took or the user took to approve it: zero
// for a call that never started.
func (a *Agent) call(ctx context.Context, reg *registry.Registry, c Call, readOnly bool) (r callResult) {
	call, turn := c.ToolCall, c.Turn
	if err := ctx.Err(); err != nil {
		r.env = execute.Failed(execute.ToolCancelled, "Tool '%s' was cancelled before it started", call.Name)
		return r
	}
	tool, known := reg.Lookup(call.Name)
	if !known {
		r.env = execute.NotFound(call.Name)
		return r
	}
	var ok bool
	if r.env, ok = execute.CheckArgs(call.Name, call.Arguments); !ok {
		return r
	}
	req := approval.Request{Tool: call.Name, Args: call.Arguments, ReadOnly: readOnly, OpenWorld: tool.Schema.Annotations.OpenWorld()}
	if a.Hooks.Has(hooks.PreTool) {
		res := a.hook(ctx, turn, hooks.Input{Event: hooks.PreTool, ToolName: call.Name, ToolInput: call.Arguments, ToolUseID: call.ID})
		r.context = res.Context
		switch res.Decision {
		case hooks.Deny:
			r.env = execute.Denied(call.Name, "a pre_tool hook refused it: "+res.Reason)
			return r
		case hooks.Ask:
			req.Ask, req.Reason = true, res.Reason
		case hooks.Allow:
			req.Allowed = true
		}
		if res.Input != nil {
			req.Args = res.Input
		}
	}
	if a.Allowed != nil && a.Allowed(call.Name, req.Args) {
		req.Allowed = true
	}
	if a.Policy != nil {
		ok, reason := a.Policy.Decide(ctx, req)
		switch {
		case !ok && ctx.Err() != nil:
			// Cancelled while the user was being asked (Ctrl-C at the
			// question): the call did not run, as for any cancellation.
			r.env = execute.Failed(execute.ToolCancelled, "Tool '%s' was cancelled before it started", call.Name)
			return r
		case !ok:
			r.env = execute.Denied(call.Name, reason)
			return r
		}
	}
	timeout := execute.DefaultTimeout
	if a.Timeout != nil {
		timeout = a.Timeout(call.Name)
	}
	now := a.now
	if now == nil {
		now = time.Now
	}
	if tool.Deferred {
		// Called by the name its one line gave: offered from now on.
		c.Conversation.Enable(call.Name)
	}
	if a.Around != nil {
		var done func()
		ctx, done = a.Around(ctx, c)
		defer done()
	}
	if c.Emit != nil {
		ctx = execute.WithProgress(ctx, func(msg string) {
			c.Emit(Event{Kind: ToolProgress, Turn: turn, Call: call, Text: msg})
		})
	}
	start := now()
	r.env = reg.Call(ctx, call.Name, req.Args, timeout)
	r.elapsed = now().Sub(start)
	inline := execute.DefaultInline
	if a.Inline != nil {
		inline = a.Inline(call.Name)
	}
	r.env, r.images = liftImages(call.Name, r.env)
	r.env = execute.Spill(r.env, inline, c.Conversation.Results, execute.SpillName(call.ID))
	if a.Hooks.Has(hooks.PostTool) && ctx.Err() == nil {
		res := a.hook(ctx, turn, hooks.Input{Event: hooks.PostTool, ToolName: call.Name, ToolInput: req.Args, ToolUseID: call.ID, ToolResponse: r.env.JSON()})
		r.context = append(r.context, res.Context...)
		if res.Decision == hooks.Block {
			r.feedback = res.Reason
		}
	}
	return r
}

// Call is a tool call about to run, as Agent.Around sees it.
type Call struct {
	provider.ToolCall
	// Agent is the agent making the call.
	Agent *Agent
	// Conversation is the conversation it is part of.
	Conversation *Conversation
	// Turn is the request of the run whose answer asked for it.
	Turn int
	// Emit reports an event as part of the run the call belongs to,
	// serialised with the run's own events.
	Emit func(Event)
}

// EventKind says what an Event reports.
type EventKind int

const (
	// RequestSent: a request went to the model, offering Event.Tools tools.
	RequestSent EventKind = iota + 1
	// TextDelta: Event.Text is the next piece of the model's text.
	TextDelta
	// Retrying: the request failed with Event.Err and goes again after
	// Event.Wait, as attempt Event.Attempt of Event.Attempts.
	Retrying
	// ResponseDone: the model finished an answer; Event.Text is its text.
	ResponseDone
	// ToolCall: Event.Call is about to be approved and run.
	ToolCall
	// ToolResult: Event.Call ran (or was refused) with Event.Envelope;
	// the tool took Event.Elapsed, which leaves out the time the user took
	// to approve it and is zero when it never started.
	ToolResult
	// TurnLimit: the model was still calling tools at MaxToolTurns; the
	// agent stopped.
	TurnLimit
	// Compacted: the older part of the conversation was summarised
	// (Event.Compaction), for the reason in Event.Text.
	Compacted
	// HookRan: a hook ran (Event.Hook): what it decided, or how it failed.
	HookRan
	// ThinkingDelta: Event.Text is the next piece of the model's reasoning.
	ThinkingDelta
	// ToolProgress: Event.Call, running, reported its progress: Event.Text
	// (an MCP server's progress notification).
	ToolProgress
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
	Context    Context
	Cost       *float64 // of this response, when the price is known
	Compaction *Compaction
	Hook       *hooks.Run
	Err        error
	Wait       time.Duration
	Attempt    int // Retrying: the attempt about to be made, from 2
	Attempts   int // Retrying: how many attempts there will be at most
	// Agent is the sub-agent whose event this is, "" for the agent's own;
	// Parent is the id of the call the sub-agent runs under, and Depth how
	// deep it is (1 for a sub-agent of the user's conversation).
	Agent  string
	Parent string
	Depth  int
}

// compactLimit is how many tokens the next request may hold before the
// conversation is compacted; 0 for no limit.
func (a *Agent) compactLimit() int {
	at := a.CompactAt
	if at == 0 {
		at = DefaultCompactAt
	}
	if a.ContextWindow <= 0 || at < 0 {
		return 0
	}
	return int(float64(a.ContextWindow) * at)
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
