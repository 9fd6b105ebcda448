// Package hooks runs the user's hooks: executables that ikigai starts at
// points of a conversation (a session starts, a prompt is sent, a tool is
// about to run or has run, the model stops, the conversation is compacted,
// the session ends). A hook reads the event as one JSON object on stdin and
// may answer with one JSON object on stdout, as a tool does: allow, deny or
// rewrite a call, add context for the model, send the model back to work.
// The field names follow Claude Code's hooks where the ideas match, so that
// hooks written for it port with little change (docs/hooks.md).
//
// Hooks come from the configuration (a shell command per entry, with a rule
// that says which tools it is for) and from the hooks directories, where an
// executable named EVENT-NAME-hook runs at EVENT. A project's hooks run only
// in a trusted directory.
package hooks

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"
)

// Event is a point of the conversation hooks run at.
type Event string

const (
	// SessionStart: a conversation starts, before its first prompt goes
	// to the model. Hooks may add context.
	SessionStart Event = "session_start"
	// UserPrompt: a prompt is about to go to the model. Hooks may add
	// context or block it.
	UserPrompt Event = "user_prompt"
	// PreTool: a tool call is about to be approved and run. Hooks may
	// allow it, deny it, have the user asked, or replace its arguments.
	PreTool Event = "pre_tool"
	// PostTool: a tool call ran. Hooks may add context for the model, or
	// mark the result as failed with feedback.
	PostTool Event = "post_tool"
	// Stop: the model ended its turn. Hooks may send it back to work.
	Stop Event = "stop"
	// PreCompact: the older part of the conversation is about to be
	// summarised.
	PreCompact Event = "pre_compact"
	// SessionEnd: the conversation ends (ikigai exits, or /clear).
	SessionEnd Event = "session_end"
)

// Events are every event, in the order a conversation meets them.
var Events = []Event{SessionStart, UserPrompt, PreTool, PostTool, Stop, PreCompact, SessionEnd}

// ParseEvent checks an event's name.
func ParseEvent(s string) (Event, error) {
	if slices.Contains(Events, Event(s)) {
		return Event(s), nil
	}
	names := make([]string, len(Events))
	for i, e := range Events {
		names[i] = string(e)
	}
	return "", fmt.Errorf("unknown hook event %q: want one of %s", s, strings.Join(names, ", "))
}

// ForTools reports whether the event is about a tool call, which is what a
// hook's match rule is matched against.
func (e Event) ForTools() bool { return e == PreTool || e == PostTool }

// DefaultTimeout is how long a hook may run unless configured otherwise.
const DefaultTimeout = 10 * time.Second

// Source says where a hook comes from: a configuration file (by the name
// errors use for it, such as ~/.ikigai/config.json) or a hooks directory.
type Source string

const (
	// User is the user's hooks directory, ~/.ikigai/hooks.
	User Source = "user"
	// Project is a trusted project's hooks directory, .ikigai/hooks.
	Project Source = "project"
)

// Scope orders hooks: they run from the project's to the system's, so that
// the user's and the administrator's hooks have the last word on a call's
// arguments.
type Scope int

const (
	ProjectScope Scope = iota
	UserScope
	SystemScope
)

// A Hook is one hook in force.
type Hook struct {
	Event Event `json:"event"`
	// Name tells the hook from the others: its file name for a hook in a
	// hooks directory; hooks.EVENT[i] for a configured one.
	Name   string `json:"name"`
	Source Source `json:"source"`
	Scope  Scope  `json:"-"`
	// Match is the rule that says which tools the hook is for, as
	// written; "" for every tool and for events that are not about tools.
	Match string `json:"match,omitempty"`
	// Command is a configured hook's shell command line, run with sh -c;
	// Path a discovered hook's executable. One of them is set.
	Command string        `json:"command,omitempty"`
	Path    string        `json:"path,omitempty"`
	Timeout time.Duration `json:"-"`

	matcher Matcher
}

// NewHook returns a configured hook: command runs at event for the calls
// match accepts, within timeout (DefaultTimeout if zero).
func NewHook(event Event, name string, source Source, scope Scope, match, command string, timeout time.Duration) (Hook, error) {
	m, err := ParseMatch(match)
	if err != nil {
		return Hook{}, err
	}
	if match != "" && !event.ForTools() {
		return Hook{}, fmt.Errorf("match applies only to pre_tool and post_tool hooks")
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return Hook{Event: event, Name: name, Source: source, Scope: scope, Match: match, Command: command, Timeout: timeout, matcher: m}, nil
}

// ID names the hook in the log: a file's path, or a configured hook's
// source, name and a digest of its command (not the command, which may
// hold anything), so that an edited command starts a new record.
func (h Hook) ID() string {
	if h.Path != "" {
		return h.Path
	}
	sum := sha256.Sum256([]byte(h.Command))
	return fmt.Sprintf("%s %s %s", h.Source, h.Name, hex.EncodeToString(sum[:4]))
}

// argv is how the hook is started.
func (h Hook) argv() []string {
	if h.Path != "" {
		return []string{h.Path}
	}
	return []string{"/bin/sh", "-c", h.Command}
}

// applies reports whether the hook runs for in.
func (h Hook) applies(in *Input) bool {
	if h.Event != in.Event {
		return false
	}
	if !h.Event.ForTools() || h.matcher == nil {
		return true
	}
	return h.matcher(in.ToolName, in.ToolInput)
}

// Session names the conversation hooks run in.
type Session struct {
	ID string
	// Transcript is the file the conversation is saved in; "" when it is
	// not saved.
	Transcript string
}

// Input is the event a hook reads on its stdin. Fields that do not apply
// to the event are left out.
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path,omitempty"`
	Cwd            string `json:"cwd"`
	Event          Event  `json:"hook_event_name"`
	// pre_tool and post_tool: the call, with the arguments it runs with.
	ToolName  string          `json:"tool_name,omitempty"`
	ToolInput json.RawMessage `json:"tool_input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	// post_tool: the envelope the call produced.
	ToolResponse json.RawMessage `json:"tool_response,omitempty"`
	// user_prompt: the prompt.
	Prompt string `json:"prompt,omitempty"`
	// stop: whether the model is at work again because a stop hook sent
	// it back, which a hook checks so as not to send it back forever.
	StopHookActive *bool `json:"stop_hook_active,omitempty"`
	// pre_compact: "manual" (/compact) or "auto", and the focus given to
	// /compact.
	Trigger            string `json:"trigger,omitempty"`
	CustomInstructions string `json:"custom_instructions,omitempty"`
	// session_start: "startup", "resume" or "clear".
	Source string `json:"source,omitempty"`
	// session_end: "exit" or "clear".
	Reason string `json:"reason,omitempty"`
}

// Decision is what the hooks of an event decided, short of nothing.
type Decision string

const (
	// Allow: run the call without asking (pre_tool).
	Allow Decision = "allow"
	// Ask: ask the user before the call runs, even where the settings
	// would not (pre_tool).
	Ask Decision = "ask"
	// Deny: refuse the call; the model is told the reason (pre_tool).
	Deny Decision = "deny"
	// Block: refuse the prompt (user_prompt), mark the result as failed
	// (post_tool), or send the model back to work (stop), with a reason.
	Block Decision = "block"
)

// strength orders decisions: a refusal wins over a question, which wins
// over a permission.
func (d Decision) strength() int {
	return map[Decision]int{Allow: 1, Ask: 2, Deny: 3, Block: 3}[d]
}

// Result is what the hooks of one event said, together.
type Result struct {
	// Decision is the strongest decision any hook made; "" when none did.
	Decision Decision
	// Reason is why: the reasons of the hooks that made Decision, one per
	// line.
	Reason string
	// Input replaces the call's arguments (pre_tool); nil leaves them.
	Input json.RawMessage
	// Context is what hooks added for the model, in the order they ran.
	Context []string
	// Runs are the hooks that ran, in order.
	Runs []Run
}

// Run is one hook's run.
type Run struct {
	Hook    Hook
	Elapsed time.Duration
	// Decision is what the hook decided, if anything.
	Decision Decision
	// Reason is why, for a decision; for a failure, what went wrong.
	Reason string
	// Input is the arguments the hook replaced the call's with; nil when
	// it left them.
	Input json.RawMessage
	// Context is what the hook added for the model.
	Context string
	// Message is what the hook asked to show the user (systemMessage).
	Message string
	// Failure is set when the hook failed: it did not run, crashed, timed
	// out or answered nonsense. A failed hook decides nothing.
	Failure Failure
}

// Failure says how a hook failed; "" when it did not.
type Failure string

const (
	FailedStart   Failure = "start"     // it could not be started
	FailedExit    Failure = "exit"      // it exited with a status other than 0 and 2
	FailedTimeout Failure = "timeout"   // it ran past its timeout and was killed
	FailedOutput  Failure = "output"    // its answer is not one it may give
	FailedLarge   Failure = "too_large" // it printed too much
	Cancelled     Failure = "cancelled" // the run it belonged to was cancelled
)

// Outcome is the run's outcome in a word, as the log and ikigai hooks show
// it: "failed", the decision, or "ok".
func (r Run) Outcome() string {
	switch {
	case r.Failure != "":
		return "failed"
	case r.Decision != "":
		return string(r.Decision)
	}
	return "ok"
}

// Noteworthy reports whether the user should see the run: it failed,
// refused something, rewrote the call or has a message. An allow is not:
// a hook that approves every call would fill the scrollback; nor is an
// ask, which the question shows.
func (r Run) Noteworthy() bool {
	return r.Failure != "" || r.Decision == Deny || r.Decision == Block || r.Input != nil || r.Message != ""
}

// A Set is the hooks in force, and the hook files that are not.
type Set struct {
	// Hooks run in this order.
	Hooks []Hook
	// Untrusted are a project's hooks left alone: the directory is not
	// trusted.
	Untrusted []Hook
	// Broken are files in the hooks directories that cannot be hooks.
	Broken []Broken
	// Dir is the working directory, the hooks' cwd.
	Dir string
	// Env is the hooks' whole environment, as execute.RunProcess takes
	// it: nil for execute.Env{}'s (ikigai's, less the providers' keys).
	Env []string
	// Logger records every run: the hook, its time and outcome, never
	// what it read or wrote.
	Logger *slog.Logger
}

// Broken is a file named like a hook that cannot be one.
type Broken struct {
	Path   string `json:"path"`
	Source Source `json:"source"`
	Reason string `json:"reason"`
}

// For returns the hooks that would run for in.
func (s *Set) For(in Input) []Hook {
	if s == nil {
		return nil
	}
	var list []Hook
	for _, h := range s.Hooks {
		if h.applies(&in) {
			list = append(list, h)
		}
	}
	return list
}

// Has reports whether any hook runs at event.
func (s *Set) Has(event Event) bool {
	if s == nil {
		return false
	}
	for _, h := range s.Hooks {
		if h.Event == event {
			return true
		}
	}
	return false
}

// Run runs the hooks for in, one after another in the set's order, and
// combines what they said. A pre_tool hook sees the arguments as the hooks
// before it left them, and a denial ends the round: the hooks after it do
// not run. So does a user_prompt hook's block. A nil set runs nothing.
func (s *Set) Run(ctx context.Context, in Input) Result {
	var res Result
	if s == nil {
		return res
	}
	if in.Cwd == "" {
		in.Cwd = s.Dir
	}
	var reasons []string
	for _, h := range s.For(in) {
		r := s.run(ctx, h, in)
		res.Runs = append(res.Runs, r)
		if r.Failure != "" {
			continue
		}
		if r.Context != "" {
			res.Context = append(res.Context, r.Context)
		}
		if r.Input != nil {
			res.Input, in.ToolInput = r.Input, r.Input
		}
		switch {
		case r.Decision == "":
		case r.Decision.strength() > res.Decision.strength():
			res.Decision, reasons = r.Decision, nil
			fallthrough
		case r.Decision == res.Decision:
			if r.Reason != "" {
				reasons = append(reasons, r.Reason)
			}
		}
		if r.Decision == Deny || r.Decision == Block && in.Event == UserPrompt {
			break
		}
	}
	res.Reason = strings.Join(reasons, "\n")
	return res
}

// run runs one hook and logs it.
func (s *Set) run(ctx context.Context, h Hook, in Input) Run {
	in.Event = h.Event
	start := time.Now()
	r := execHook(ctx, h, in, s.Env)
	r.Elapsed = time.Since(start)
	if s.Logger != nil {
		attrs := []slog.Attr{
			slog.String("event", string(h.Event)),
			slog.String("hook", h.ID()),
			slog.String("source", string(h.Source)),
			slog.Float64("duration_ms", float64(r.Elapsed.Microseconds())/1000),
			slog.String("outcome", r.Outcome()),
		}
		if r.Failure != "" {
			attrs = append(attrs, slog.String("failure", string(r.Failure)))
		}
		s.Logger.LogAttrs(context.Background(), slog.LevelInfo, LogMessage, attrs...)
	}
	return r
}

// LogMessage is the message of a hook's line in the log.
const LogMessage = "hook"

// errNotObject is the failure of an answer or arguments that are not a
// JSON object.
var errNotObject = errors.New("not a JSON object")

// TrialInput returns the input of a trial run at event: the fields of args,
// a JSON object of the input's own names ({"tool_name": "bash",
// "tool_input": {...}}), with the event set and a session id made up.
// Unknown fields are errors: a misspelt one would go unnoticed.
func TrialInput(event Event, args []byte) (Input, error) {
	in := Input{SessionID: "hooks-test"}
	if len(bytes.TrimSpace(args)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(args))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&in); err != nil {
			return in, fmt.Errorf("--args: %v", err)
		}
	}
	if in.Event != "" && in.Event != event {
		return in, fmt.Errorf("--args: hook_event_name %q is not the event tested, %s", in.Event, event)
	}
	in.Event = event
	if event.ForTools() && in.ToolName == "" {
		return in, fmt.Errorf(`--args: a %s hook needs "tool_name" (and "tool_input")`, event)
	}
	if event.ForTools() && in.ToolInput == nil {
		in.ToolInput = json.RawMessage(`{}`)
	}
	return in, nil
}
