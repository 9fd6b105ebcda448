package display

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ikigai-tools/ikigai/internal/hooks"
)

// Hook renders what a hook's run did, for the scrollback: how it failed,
// what it decided and why, that it rewrote a call, what it asked to show.
//
//	hook pre_tool-guard-hook (user): denied the call: rm is not allowed
func Hook(r *hooks.Run) string {
	var what []string
	if r.Failure != "" {
		what = append(what, "failed: "+r.Reason)
	}
	if r.Input != nil {
		what = append(what, "rewrote the arguments: "+shorten(string(r.Input), 2*MaxValue))
	}
	if d := decided(r); d != "" {
		if r.Reason != "" && r.Failure == "" {
			d += ": " + r.Reason
		}
		what = append(what, d)
	}
	if r.Message != "" {
		what = append(what, r.Message)
	}
	if len(what) == 0 {
		what = append(what, "no opinion")
	}
	return fmt.Sprintf("hook %s (%s): %s", r.Hook.Name, r.Hook.Source, Lines(strings.Join(what, "; "), MaxResultLines, MaxLineWidth))
}

// decided says what a hook's decision did.
func decided(r *hooks.Run) string {
	switch r.Decision {
	case hooks.Allow:
		return "allowed the call"
	case hooks.Ask:
		return "asks the user to approve the call"
	case hooks.Deny:
		return "denied the call"
	case hooks.Block:
		switch r.Hook.Event {
		case hooks.UserPrompt:
			return "blocked the prompt"
		case hooks.PostTool:
			return "marked the result as failed"
		case hooks.Stop:
			return "sent the model back to work"
		}
		return "blocked"
	}
	return ""
}

// HookList is the listing of `ikigai hooks --json`: the hooks in force in
// the order they run, with each one's last run, those of an untrusted
// project, and the files that cannot be hooks. Every list is present.
type HookList struct {
	Hooks     []ListedHook   `json:"hooks"`
	Untrusted []ListedHook   `json:"untrusted"`
	Broken    []hooks.Broken `json:"broken"`
}

// ListedHook is one hook of a HookList.
type ListedHook struct {
	hooks.Hook
	TimeoutSeconds float64     `json:"timeout_seconds"`
	Last           *hooks.Last `json:"last"` // nil: never run, as far as the log knows
}

// NewHookList returns the listing of s, with the last runs from last.
func NewHookList(s *hooks.Set, last map[string]hooks.Last) HookList {
	l := HookList{Hooks: []ListedHook{}, Untrusted: []ListedHook{}, Broken: s.Broken}
	for _, h := range s.Hooks {
		lh := ListedHook{Hook: h, TimeoutSeconds: h.Timeout.Seconds()}
		if run, ok := last[h.ID()]; ok {
			lh.Last = &run
		}
		l.Hooks = append(l.Hooks, lh)
	}
	for _, h := range s.Untrusted {
		l.Untrusted = append(l.Untrusted, ListedHook{Hook: h, TimeoutSeconds: h.Timeout.Seconds()})
	}
	if l.Broken == nil {
		l.Broken = []hooks.Broken{}
	}
	return l
}

// WriteHooks writes the listing of `ikigai hooks`: a line per hook in the
// order they run, with its event, name, source, match rule, timeout, last
// run and command, then the untrusted project's hooks and the files that
// cannot be hooks. Without any, a line on stderr says where hooks go.
func WriteHooks(w, stderr io.Writer, l HookList) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, h := range l.Hooks {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%v\t%s\t%s\n", h.Event, h.Name, h.Source, cmp.Or(h.Match, "*"), h.Timeout, lastRun(h.Last), cmp.Or(h.Command, h.Path))
	}
	if len(l.Hooks) == 0 {
		fmt.Fprintln(stderr, `No hooks. Configure them under "hooks" in ~/.ikigai/config.json, or put EVENT-NAME-hook executables in ~/.ikigai/hooks (docs/hooks.md).`)
	}
	sections := len(l.Hooks) > 0
	section := func(title string) {
		tw.Flush()
		if sections {
			fmt.Fprintln(w)
		}
		sections = true
		fmt.Fprintln(w, title)
	}
	for i, h := range l.Untrusted {
		if i == 0 {
			section("Not run, the directory is not trusted (ikigai trust, or --trust for one run):")
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", h.Event, h.Name, h.Path)
	}
	for i, b := range l.Broken {
		if i == 0 {
			section("Not hooks:")
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", b.Source, b.Path, b.Reason)
	}
	return tw.Flush()
}

// lastRun says how a hook's last run went: "deny in 3 ms, 2026-01-02
// 10:00:00", or "never run".
func lastRun(l *hooks.Last) string {
	if l == nil {
		return "never run"
	}
	what := l.Outcome
	if l.Failure != "" {
		what += " (" + string(l.Failure) + ")"
	}
	return fmt.Sprintf("%s in %s, %s", what, ms(l.DurationMS), l.Time.Local().Format(time.DateTime))
}

// ms renders a duration in milliseconds.
func ms(d float64) string {
	if d >= 1000 {
		return fmt.Sprintf("%.1f s", d/1000)
	}
	return fmt.Sprintf("%.0f ms", d)
}

// WriteHookTest writes what `ikigai hooks test` found: every hook that
// ran, with its time, and what they decided together.
func WriteHookTest(w io.Writer, in hooks.Input, res hooks.Result) {
	if len(res.Runs) == 0 {
		what := string(in.Event)
		if in.Event.ForTools() {
			what += " of " + in.ToolName
		}
		fmt.Fprintf(w, "No hook runs at %s.\n", what)
		return
	}
	for i := range res.Runs {
		r := &res.Runs[i]
		fmt.Fprintf(w, "%s (%s)\n", Hook(r), ms(float64(r.Elapsed.Microseconds())/1000))
	}
	switch {
	case res.Decision == "":
		fmt.Fprintln(w, "Decision: none")
	case res.Reason != "":
		fmt.Fprintf(w, "Decision: %s: %s\n", res.Decision, res.Reason)
	default:
		fmt.Fprintf(w, "Decision: %s\n", res.Decision)
	}
	if res.Input != nil {
		fmt.Fprintf(w, "Arguments: %s\n", res.Input)
	}
	for _, c := range res.Context {
		fmt.Fprintf(w, "Context: %s\n", c)
	}
}
