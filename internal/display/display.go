// Package display renders tool calls and their results as the scrollback
// shows them, in the reference implementation's shape:
//
//	→ bash: command="echo hello"
//	← bash: hello
package display

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

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

// Result renders what a call came back with: a tool's output or error, or
// the reason the call failed, shortened to a few lines.
func Result(name string, env execute.Envelope) string {
	return fmt.Sprintf("← %s: %s", name, Lines(Summary(env), MaxResultLines, MaxLineWidth))
}

// Summary is the text that best stands for an envelope: for a successful
// call, the result's "output" text or its error, else the result as JSON;
// for a failed one, its code and message.
func Summary(env execute.Envelope) string {
	if !env.Success {
		return env.Code + ": " + env.Error
	}
	var fields struct {
		Output    *string `json:"output"`
		Error     string  `json:"error"`
		ErrorCode string  `json:"error_code"`
	}
	if json.Unmarshal(env.Result, &fields) == nil {
		switch {
		case fields.Error != "":
			return strings.TrimSpace(fields.ErrorCode + ": " + fields.Error)
		case fields.Output != nil && *fields.Output == "":
			return "(no output)"
		case fields.Output != nil:
			return *fields.Output
		}
	}
	return string(env.Result)
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
