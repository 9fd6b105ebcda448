package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"

	"github.com/ikigai-tools/ikigai/internal/execute"
)

const (
	// MaxOutput is the most a hook may print on stdout: room for a
	// rewritten file_write's content.
	MaxOutput = 4 << 20
	// maxStderr caps what is kept of a hook's stderr, its reason or its
	// complaint.
	maxStderr = 4 << 10
	// BlockStatus is the exit status by which a hook blocks, with its
	// stderr as the reason.
	BlockStatus = 2
)

// execHook runs h with in on its stdin, in its own process group, and reads
// its answer. Like a tool, it gets SIGTERM at its timeout or when ctx ends,
// and SIGKILL execute.Grace later.
func execHook(ctx context.Context, h Hook, in Input, env []string) Run {
	r := Run{Hook: h}
	stdin, err := json.Marshal(in)
	if err != nil {
		return r.failed(FailedStart, "could not write its input: %v", err)
	}
	stdin = append(stdin, '\n') // for readers of lines
	timeout := h.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	o := execute.RunProcess(ctx, h.argv(), stdin, env, execute.Limits{
		Timeout: timeout, MaxStdout: MaxOutput, MaxStderr: maxStderr, Stop: syscall.SIGTERM, WaitDelay: execute.Grace,
	})
	stderr := strings.TrimSpace(o.Stderr)
	switch {
	case errors.Is(o.Stopped, execute.ErrTimeout):
		return r.failed(FailedTimeout, "timed out after %v and was stopped", timeout)
	case errors.Is(o.Stopped, execute.ErrTooLarge):
		return r.failed(FailedLarge, "printed more than %d MiB", MaxOutput>>20)
	case o.Stopped != nil:
		return r.failed(Cancelled, "cancelled")
	case o.State == nil:
		var pe *fs.PathError
		if errors.As(o.Err, &pe) {
			return r.failed(FailedStart, "could not be started: %v", pe.Err)
		}
		return r.failed(FailedStart, "could not be started: %v", o.Err)
	}
	how, code := o.Exit()
	switch code {
	case 0:
	case BlockStatus:
		return r.blocked(in.Event, stderr)
	default:
		if stderr != "" {
			return r.failed(FailedExit, "%s: %s", how, stderr)
		}
		return r.failed(FailedExit, "%s", how)
	}
	return r.answer(in.Event, o.Stdout)
}

func (r Run) failed(f Failure, format string, args ...any) Run {
	r.Failure, r.Reason = f, fmt.Sprintf(format, args...)
	return r
}

// blocked is the run of a hook that exited with BlockStatus: a refusal
// with reason, where the event can be refused; elsewhere the reason is
// shown to the user.
func (r Run) blocked(ev Event, reason string) Run {
	switch ev {
	case PreTool:
		r.Decision = Deny
	case UserPrompt, PostTool, Stop:
		r.Decision = Block
	default:
		r.Message = reason
		return r
	}
	r.Reason = reason
	if r.Reason == "" {
		r.Reason = r.noReason()
	}
	return r
}

// noReason stands for the reason of a decision given without one.
func (r Run) noReason() string {
	switch {
	case r.Hook.Event == Stop:
		return fmt.Sprintf("the stop hook %s sent you back to work without saying why", r.Hook.Name)
	case r.Decision == Deny:
		return fmt.Sprintf("the hook %s denied it without saying why", r.Hook.Name)
	}
	return fmt.Sprintf("the hook %s blocked it without saying why", r.Hook.Name)
}

// output is a hook's answer. The fields of hookSpecificOutput may also be
// given at the top level.
type output struct {
	Continue       *bool  `json:"continue"`
	StopReason     string `json:"stopReason"`
	SuppressOutput bool   `json:"suppressOutput"`
	SystemMessage  string `json:"systemMessage"`
	Decision       string `json:"decision"`
	Reason         string `json:"reason"`
	specific
	HookSpecificOutput *specific `json:"hookSpecificOutput"`
}

type specific struct {
	HookEventName            string          `json:"hookEventName"`
	PermissionDecision       string          `json:"permissionDecision"`
	PermissionDecisionReason string          `json:"permissionDecisionReason"`
	UpdatedInput             json.RawMessage `json:"updatedInput"`
	AdditionalContext        string          `json:"additionalContext"`
}

// answer reads what a hook that exited with 0 printed: nothing (no
// opinion), a JSON object, or, for session_start and user_prompt, text
// that is context for the model, as Claude Code takes it. Text for other
// events is ignored.
func (r Run) answer(ev Event, stdout []byte) Run {
	text := bytes.TrimSpace(stdout)
	switch {
	case len(text) == 0:
		return r
	case text[0] != '{':
		if ev == SessionStart || ev == UserPrompt {
			r.Context = strings.ToValidUTF8(string(text), "\uFFFD")
		}
		return r
	}
	var out output
	dec := json.NewDecoder(bytes.NewReader(text))
	if err := dec.Decode(&out); err != nil {
		return r.failed(FailedOutput, "printed an answer that is not valid: %v", err)
	}
	if dec.More() {
		return r.failed(FailedOutput, "printed more than one JSON document")
	}
	if out.HookSpecificOutput != nil {
		s := *out.HookSpecificOutput
		for _, f := range []struct{ from, to *string }{
			{&s.PermissionDecision, &out.PermissionDecision}, {&s.PermissionDecisionReason, &out.PermissionDecisionReason},
			{&s.AdditionalContext, &out.AdditionalContext},
		} {
			if *f.from != "" {
				*f.to = *f.from
			}
		}
		if s.UpdatedInput != nil {
			out.UpdatedInput = s.UpdatedInput
		}
	}
	r.Message = out.SystemMessage
	switch ev {
	case SessionStart, UserPrompt, PreTool, PostTool:
		r.Context = out.AdditionalContext
	}
	var err error
	if ev == PreTool {
		err = r.permission(out)
	} else {
		err = r.decide(ev, out)
	}
	if err != nil {
		return r.failed(FailedOutput, "%v", err)
	}
	return r
}

// permission reads a pre_tool hook's decision: permissionDecision, or the
// older decision "approve" or "block", and the arguments it may replace.
func (r *Run) permission(out output) error {
	switch d, legacy := out.PermissionDecision, out.Decision; {
	case d == "allow" || d == "deny" || d == "ask":
		r.Decision, r.Reason = Decision(d), out.PermissionDecisionReason
	case d != "":
		return fmt.Errorf(`permissionDecision %q: want "allow", "deny" or "ask"`, d)
	case legacy == "approve":
		r.Decision, r.Reason = Allow, out.Reason
	case legacy == "block":
		r.Decision, r.Reason = Deny, out.Reason
	case legacy != "":
		return fmt.Errorf(`decision %q: want "approve" or "block" (or permissionDecision)`, legacy)
	}
	if r.Decision == Deny && r.Reason == "" {
		r.Reason = r.noReason()
	}
	if in := bytes.TrimSpace(out.UpdatedInput); len(in) > 0 && !bytes.Equal(in, []byte("null")) {
		if in[0] != '{' {
			return fmt.Errorf("updatedInput: %w", errNotObject)
		}
		var b bytes.Buffer
		json.Compact(&b, in) // cannot fail: the answer was decoded
		r.Input = b.Bytes()
	}
	return nil
}

// decide reads the decision of a hook of any other event: "block", where
// the event can be blocked, with its reason.
func (r *Run) decide(ev Event, out output) error {
	switch out.Decision {
	case "", "approve":
		return nil
	case "block":
	default:
		return fmt.Errorf(`decision %q: want "block" or none`, out.Decision)
	}
	switch ev {
	case UserPrompt, PostTool, Stop:
		r.Decision, r.Reason = Block, out.Reason
		if r.Reason == "" {
			r.Reason = r.noReason()
		}
	default:
		if r.Message == "" {
			r.Message = out.Reason
		}
	}
	return nil
}
