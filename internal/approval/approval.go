// Package approval decides, before any tool runs, whether it may: the one
// place where the user's policy (a mode, allow and deny lists) and, when it
// comes to that, the user's own answer are applied. A refusal becomes a
// TOOL_DENIED envelope and the conversation goes on.
package approval

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
)

// Mode is how much the agent may do without asking.
type Mode string

const (
	// Ask runs read-only tools and asks before any other.
	Ask Mode = "ask"
	// Auto runs every tool that is not denied.
	Auto Mode = "auto"
	// ReadOnly runs read-only tools and refuses every other.
	ReadOnly Mode = "read-only"
)

// Request is one tool call awaiting a decision.
type Request struct {
	Tool     string
	Args     json.RawMessage
	ReadOnly bool // the tool says it changes nothing (readOnlyHint)
}

// Asker puts a request to the user and returns their answer. An error
// (the user went away, the context ended) counts as a refusal.
type Asker interface {
	Ask(ctx context.Context, req Request) (bool, error)
}

// AskerFunc adapts a function to Asker.
type AskerFunc func(ctx context.Context, req Request) (bool, error)

// Ask calls f.
func (f AskerFunc) Ask(ctx context.Context, req Request) (bool, error) { return f(ctx, req) }

// Policy is the user's approval settings.
type Policy struct {
	Mode Mode
	// Allow lists tools that run without asking, in any mode but ReadOnly.
	Allow []string
	// Deny lists tools that never run; they are not even offered to the model.
	Deny []string
	// Asker asks the user. Nil means nobody can be asked, as in a
	// non-interactive run: what would need asking is refused.
	Asker Asker
}

// ParseMode checks a mode name from configuration or a flag.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Ask, Auto, ReadOnly:
		return m, nil
	case "":
		return Ask, nil
	}
	return "", fmt.Errorf("approval mode %q: want ask, auto or read-only", s)
}

// Offered reports whether the tool may be offered to the model at all.
func (p *Policy) Offered(tool string) bool {
	return !slices.Contains(p.Deny, tool)
}

// Decide returns whether the call may run and, when it may not, the reason
// the model is told.
func (p *Policy) Decide(ctx context.Context, req Request) (ok bool, reason string) {
	switch {
	case !p.Offered(req.Tool):
		return false, "the user's configuration denies this tool"
	case p.Mode == ReadOnly && !req.ReadOnly:
		return false, "the agent is in read-only mode; only tools that change nothing may run"
	case req.ReadOnly, p.Mode == Auto, slices.Contains(p.Allow, req.Tool):
		return true, ""
	case p.Asker == nil:
		return false, "this tool needs the user's approval and nobody can be asked in a non-interactive run " +
			"(the user can rerun with --yes, or allow the tool in the configuration)"
	}
	yes, err := p.Asker.Ask(ctx, req)
	switch {
	case err != nil:
		return false, "the user was asked but did not answer: " + err.Error()
	case !yes:
		return false, "the user refused this call"
	}
	return true, ""
}
