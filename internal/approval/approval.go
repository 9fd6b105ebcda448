// Package approval decides, before any tool runs, whether it may: the one
// place where the user's policy (a mode, and allow, ask and deny rules) and,
// when it comes to that, the user's own answer are applied. A refusal
// becomes a TOOL_DENIED envelope and the conversation goes on.
package approval

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/ikigai-tools/ikigai/internal/rules"
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
	// Sandboxed runs without asking what will run inside a workspace-write
	// sandbox (see Policy.Sandboxed), and asks before anything else.
	Sandboxed Mode = "sandboxed"
)

// Request is one tool call awaiting a decision.
type Request struct {
	Tool     string
	Args     json.RawMessage
	ReadOnly bool // the tool says it changes nothing (readOnlyHint)
	// OpenWorld says the tool reaches beyond the machine (openWorldHint):
	// read-only or not, it is asked about in ask mode, since what it
	// sends out can leave with the conversation.
	OpenWorld bool
	// Rule is set when a rule makes the call a question whatever else
	// allows it (an ask rule, or a deny rule the call may match): it must
	// be put to the user every time, an earlier "always" notwithstanding.
	Rule string
	// Allowed lets the call run without asking, as a tool in Allow does:
	// a pre_tool hook allowed it, or the custom command being run does.
	Allowed bool
	// Ask has the user asked even where the policy would not: a pre_tool
	// hook wants it, for Reason. It wins over Allowed.
	Ask    bool
	Reason string
}

// Answer is the user's answer to a question about a call.
type Answer struct {
	Yes bool
	// Why, for a refusal, is what the user wants the model told: it goes
	// back in the TOOL_DENIED message. "" says nothing more.
	Why string
}

// Asker puts a request to the user and returns their answer. An error
// (the user went away, the context ended) counts as a refusal.
type Asker interface {
	Ask(ctx context.Context, req Request) (Answer, error)
}

// AskerFunc adapts a function to Asker.
type AskerFunc func(ctx context.Context, req Request) (Answer, error)

// Ask calls f.
func (f AskerFunc) Ask(ctx context.Context, req Request) (Answer, error) { return f(ctx, req) }

// Policy is the user's approval settings.
type Policy struct {
	Mode Mode
	// Allow holds the rules of calls that run without asking, in any mode
	// but ReadOnly.
	Allow rules.List
	// Ask holds the rules of calls that are put to the user even in Auto
	// mode, and even when an allow rule covers them.
	Ask rules.List
	// Deny holds the rules of calls that never run; they win over every
	// other rule. A tool that a rule without a pattern names is not even
	// offered to the model.
	Deny rules.List
	// Dir is the working directory, where relative paths in calls and in
	// rules start; Home is the user's home directory, for rules from ~/.
	Dir, Home string
	// Sandboxed reports whether a call will run inside a workspace-write
	// sandbox, or a stricter one; in Sandboxed mode such calls run without
	// asking. Nil means that none will.
	Sandboxed func(Request) bool
	// Asker asks the user. Nil means nobody can be asked, as in a
	// non-interactive run: what would need asking is refused.
	Asker Asker
}

// ParseMode checks a mode name from configuration or a flag.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Ask, Auto, ReadOnly, Sandboxed:
		return m, nil
	case "":
		return Ask, nil
	}
	return "", fmt.Errorf("approval mode %q: want ask, auto, read-only or sandboxed", s)
}

// Offered reports whether the tool may be offered to the model at all.
func (p *Policy) Offered(tool string) bool {
	return !p.Deny.Covers(tool)
}

// Decide returns whether the call may run and, when it may not, the reason
// the model is told.
func (p *Policy) Decide(ctx context.Context, req Request) (ok bool, reason string) {
	call := rules.Call{Tool: req.Tool, Args: req.Args, Dir: p.Dir, Home: p.Home}
	denied, rule := p.Deny.Match(call)
	switch {
	case denied == rules.Yes && rule.Whole():
		return false, "the user's configuration denies this tool"
	case denied == rules.Yes:
		return false, fmt.Sprintf("the user's configuration denies this call (rule %s)", rule)
	case p.Mode == ReadOnly && !req.ReadOnly:
		return false, "the agent is in read-only mode; only tools that change nothing may run"
	}
	why := ""
	switch v, askRule := p.Ask.Match(call); {
	case denied == rules.Maybe:
		why, req.Rule = fmt.Sprintf("it may run what the rule %s denies", rule), rule.String()
	case v != rules.No:
		why, req.Rule = fmt.Sprintf("the rule %s asks", askRule), askRule.String()
	case req.Ask:
		why = "a hook wants the user to approve it: " + req.Reason
	}
	if why == "" && (req.ReadOnly && (!req.OpenWorld || p.Mode == ReadOnly) || p.Mode == Auto || p.Allow.Allows(call) || req.Allowed ||
		p.Mode == Sandboxed && p.Sandboxed != nil && p.Sandboxed(req)) {
		return true, ""
	}
	if p.Asker == nil {
		if req.Ask && req.Rule == "" {
			return false, "a hook wants the user to approve this call (" + req.Reason + ") and nobody can be asked in a non-interactive run"
		}
		if why != "" {
			return false, "this call needs the user's approval (" + why + ") and nobody can be asked in a non-interactive run"
		}
		if u := rules.Unreadable(call); u != "" && p.Allow.Names(req.Tool) {
			// The model can often do without what stops the rules (a
			// redirection: file_write; $(...): two calls).
			return false, "this call needs the user's approval and nobody can be asked in a non-interactive run; " +
				"no allow rule can cover it because " + u
		}
		return false, "this tool needs the user's approval and nobody can be asked in a non-interactive run " +
			"(the user can rerun with --yes, or allow the tool in the configuration)"
	}
	a, err := p.Asker.Ask(ctx, req)
	switch {
	case err != nil:
		return false, "the user was asked but did not answer: " + err.Error()
	case !a.Yes && strings.TrimSpace(a.Why) != "":
		return false, "the user refused this call and says: " + strings.TrimSpace(a.Why)
	case !a.Yes:
		return false, "the user refused this call"
	}
	return true, ""
}

// Session remembers, for the rest of an interactive session, the calls the
// user answered "always" to, as the narrowest rules that allow each
// (rules.Suggest: bash(go test *) for go test ./... -run X). It is safe
// for concurrent use.
type Session struct {
	// Dir and Home are as in Policy.
	Dir, Home string

	mu    sync.Mutex
	allow rules.List
}

// Allows reports whether an earlier "always" covers the request. A request
// that a rule makes a question (Request.Rule) is never covered.
func (s *Session) Allows(req Request) bool {
	if req.Rule != "" {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.allow) > 0 && s.allow.Allows(s.call(req))
}

// Always remembers that the user allowed calls like req for the rest of
// the session, and returns the rules it keeps; none when no rule short of
// the exact call would do (a script that cannot be read, a heredoc fed to
// an interpreter), and then only this call was allowed.
func (s *Session) Always(req Request) rules.List {
	l := rules.Suggest(s.call(req))
	s.mu.Lock()
	defer s.mu.Unlock()
	s.allow = append(s.allow, l...)
	return l
}

func (s *Session) call(req Request) rules.Call {
	return rules.Call{Tool: req.Tool, Args: req.Args, Dir: s.Dir, Home: s.Home}
}
