package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/hooks"
	"github.com/ikigai-tools/ikigai/internal/provider"
)

// MaxStopRounds is how many times in one run stop hooks may send the model
// back to work. Past it the model stops whatever they say: a hook that
// forgets stop_hook_active must not keep the model talking for ever.
const MaxStopRounds = 8

// PromptBlocked is Run's error when a user_prompt hook refused the prompt,
// which then is neither sent nor kept in the conversation.
type PromptBlocked struct {
	Reason string
}

func (e *PromptBlocked) Error() string { return "a user_prompt hook blocked the prompt: " + e.Reason }

// emitKey is the context key of the function that reports a run's
// events, one at a time.
type emitKey struct{}

// emitter returns a function that tells Observe about one event at a
// time, for one run, and ctx carrying it for what the run calls.
func (a *Agent) emitter(ctx context.Context) (context.Context, func(Event)) {
	var mu sync.Mutex
	emit := func(e Event) {
		if a.Observe == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		a.Observe(e)
	}
	return context.WithValue(ctx, emitKey{}, emit), emit
}

// emit reports e through the run of ctx, or straight to Observe outside a
// run.
func (a *Agent) emit(ctx context.Context, e Event) {
	if emit, ok := ctx.Value(emitKey{}).(func(Event)); ok {
		emit(e)
	} else if a.Observe != nil {
		a.Observe(e)
	}
}

// hook runs the hooks for in, in the run's turn, and reports each run.
func (a *Agent) hook(ctx context.Context, turn int, in hooks.Input) hooks.Result {
	in.SessionID, in.TranscriptPath = a.Session.ID, a.Session.Transcript
	res := a.Hooks.Run(ctx, in)
	for i := range res.Runs {
		a.emit(ctx, Event{Kind: HookRan, Turn: turn, Hook: &res.Runs[i]})
	}
	return res
}

// promptMessage is the user's message for prompt, with what the
// user_prompt hooks add to it, unless they block it.
func (a *Agent) promptMessage(ctx context.Context, prompt string) (provider.Message, error) {
	msg := provider.UserText(prompt)
	if !a.Hooks.Has(hooks.UserPrompt) {
		return msg, nil
	}
	res := a.hook(ctx, 0, hooks.Input{Event: hooks.UserPrompt, Prompt: prompt})
	if res.Decision == hooks.Block {
		return msg, &PromptBlocked{Reason: res.Reason}
	}
	for _, c := range res.Context {
		// Parts of one message are joined without a separator where a
		// provider takes the message as one text.
		msg.Parts = append(msg.Parts, provider.Text("\n\n"+ContextNote(hooks.UserPrompt)+c))
	}
	return msg, nil
}

// ContextNote introduces what a hook of event added for the model.
func ContextNote(event hooks.Event) string {
	return "[Context from the user's " + string(event) + " hook]\n"
}

// stopHooks runs the stop hooks when the model ends its turn and returns
// the message that sends it back to work, or "" to let it stop. stops
// counts the times they did in this run.
func (a *Agent) stopHooks(ctx context.Context, turn int, stops *int) string {
	if !a.Hooks.Has(hooks.Stop) || *stops >= MaxStopRounds || ctx.Err() != nil {
		return ""
	}
	active := *stops > 0
	res := a.hook(ctx, turn, hooks.Input{Event: hooks.Stop, StopHookActive: &active})
	if res.Decision != hooks.Block {
		return ""
	}
	*stops++
	return "The user's stop hook did not let you stop yet:\n\n" + res.Reason
}

// callResult is how one call went, with what the hooks made of it.
type callResult struct {
	env     execute.Envelope
	elapsed time.Duration
	// context is what pre_tool and post_tool hooks added for the model.
	context []string
	// feedback is why post_tool hooks marked the result as failed.
	feedback string
	// images are the pictures the result carried, lifted out of it.
	images []provider.Image
}

// part is the tool result the model gets: the envelope, with the hooks'
// feedback (hook_error) and context (hook_context) added to it, and
// marked as an error when the call failed or a hook says it did.
func (r callResult) part(id string) provider.ToolResult {
	content := r.env.JSON()
	if r.feedback != "" || len(r.context) > 0 {
		var b bytes.Buffer
		b.Write(content[:len(content)-1]) // the envelope's closing brace
		add := func(key, value string) {
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			b.WriteString(`,"` + key + `":`)
			enc.Encode(strings.ToValidUTF8(value, "\uFFFD"))
			b.Truncate(b.Len() - 1) // Encode's newline
		}
		if r.feedback != "" {
			add("hook_error", r.feedback)
		}
		if len(r.context) > 0 {
			add("hook_context", strings.Join(r.context, "\n\n"))
		}
		b.WriteByte('}')
		content = b.Bytes()
	}
	return provider.ToolResult{CallID: id, Content: string(content), IsError: !r.env.Success || r.feedback != "", Images: r.images}
}
