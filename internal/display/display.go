// Package display renders tool calls and their results as the scrollback
// shows them, in the reference implementation's shape:
//
//	→ bash: command="echo hello"
//	← bash: ok: hello
package display

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/ikigai-tools/ikigai/internal/agent"
	"github.com/ikigai-tools/ikigai/internal/execute"
)

// Limits on how much of a call or result a line shows.
const (
	MaxValue       = 80 // bytes of one argument's value
	MaxResultLines = 4
	MaxLineWidth   = 160
)

// Call renders a tool call: its name and arguments as key=value pairs in the
// order the model sent them, string values quoted, long values shortened.
func Call(name string, args json.RawMessage) string {
	var b strings.Builder
	fmt.Fprintf(&b, "→ %s:", name)
	pairs, ok := objectPairs(args)
	if !ok {
		fmt.Fprintf(&b, " %s", shorten(string(bytes.TrimSpace(args)), MaxValue))
		return b.String()
	}
	for _, p := range pairs {
		fmt.Fprintf(&b, " %s=%s", p.key, shorten(p.value, MaxValue))
	}
	return b.String()
}

// Result renders what a call came back with, outcome first: "ok", "exit
// 3" or "timed out" for a result (from its exit_code and timed_out
// fields), the error code of an operation error or of a failure; then the
// output, error message or result, shortened to a few lines.
//
//	← bash: ok: hello
//	← bash: exit 3: partial output
//	← file_read: FILE_NOT_FOUND: Error: reading file 'x': No such file or directory
func Result(name string, env execute.Envelope) string {
	return fmt.Sprintf("← %s: %s", name, Lines(Summary(env), MaxResultLines, MaxLineWidth))
}

// ResultWhole is Result uncut: every line of the summary, each whole.
func ResultWhole(name string, env execute.Envelope) string {
	return fmt.Sprintf("← %s: %s", name, Lines(Summary(env), math.MaxInt, math.MaxInt))
}

// Summary is the text that best stands for an envelope: its outcome, then
// what goes with it. A failed call gives its code and message; an
// operation error its code and message; any other result "ok" (or "exit
// N", "timed out") and its "output" text, or the whole result as JSON
// when it has no output field.
func Summary(env execute.Envelope) string {
	if !env.Success {
		return env.Code + ": " + env.Error
	}
	if code, message, ok := env.OperationError(); ok {
		return joinDetail(code, message)
	}
	// Each field on its own, so that one of an unexpected type does not
	// hide the others.
	var fields map[string]json.RawMessage
	if json.Unmarshal(env.Result, &fields) != nil || fields == nil {
		return joinDetail("ok", string(env.Result))
	}
	var output string
	var exitCode int64
	var timedOut bool
	outcome := "ok"
	switch {
	case json.Unmarshal(fields["timed_out"], &timedOut) == nil && timedOut:
		outcome = "timed out"
	case json.Unmarshal(fields["exit_code"], &exitCode) == nil && exitCode != 0:
		outcome = fmt.Sprintf("exit %d", exitCode)
	}
	if json.Unmarshal(fields["output"], &output) == nil {
		return joinDetail(outcome, output)
	}
	return joinDetail(outcome, string(env.Result))
}

// joinDetail is "outcome: detail", or the outcome alone when there is no
// detail.
func joinDetail(outcome, detail string) string {
	if strings.TrimSpace(detail) == "" {
		return outcome
	}
	return outcome + ": " + detail
}

// Lines keeps the first max lines of s, each at most width bytes, and says
// how many lines it left out.
func Lines(s string, max, width int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	kept := lines[:min(len(lines), max)]
	for i, l := range kept {
		kept[i] = shorten(l, width)
	}
	out := strings.Join(kept, "\n  ")
	if n := len(lines) - len(kept); n > 0 {
		out += fmt.Sprintf("\n  … %d more line%s", n, plural(n))
	}
	return out
}

type pair struct{ key, value string }

// objectPairs returns the members of a JSON object in their order, each
// value compact JSON.
func objectPairs(data json.RawMessage) ([]pair, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var pairs []pair
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, false
		}
		var compact bytes.Buffer
		if json.Compact(&compact, value) != nil {
			return nil, false
		}
		pairs = append(pairs, pair{tok.(string), compact.String()})
	}
	return pairs, true
}

// shorten cuts s to at most max bytes at a character boundary, marking the cut.
func shorten(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// Context shows what takes the space of the next request, as /context
// does, with the session's cost so far when it is known.
func Context(b agent.Breakdown, cost *float64) string {
	var s strings.Builder
	total := b.Total()
	if b.Window > 0 {
		fmt.Fprintf(&s, "Context: %s of %s tokens (%d%%)\n", Tokens(total), Tokens(b.Window), total*100/b.Window)
	} else {
		fmt.Fprintf(&s, "Context: %s tokens, of a window of unknown size (context_window in the configuration sets it)\n", Tokens(total))
	}
	for _, row := range []struct {
		name string
		n    int
	}{{"system prompt", b.System}, {"tool schemas", b.Tools}, {"messages", b.Messages}, {"tool results", b.ToolResults}} {
		fmt.Fprintf(&s, "  %-14s %8s\n", row.name, Tokens(row.n))
	}
	if cost != nil {
		fmt.Fprintf(&s, "Cost so far: $%.4f", *cost)
	}
	return strings.TrimRight(s.String(), "\n")
}

// Compacted tells the user what a compaction did.
func Compacted(c *agent.Compaction) string {
	return fmt.Sprintf("compacted %s → %s tokens", Tokens(c.Before), Tokens(c.After))
}

// Tokens writes a number of tokens as people read them: 950, 12.3k, 182k.
func Tokens(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 10_000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	case n < 1_000_000:
		return fmt.Sprintf("%dk", (n+500)/1000)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1e6)
}
