// Package rules matches tool calls against the approval rules of the
// configuration: `bash`, `mcp--github--*`, `bash(go test *)`,
// `file_write(src/**)`, `web_fetch(domain:go.dev)`. A rule names tools, and
// may narrow itself to some of their calls by a pattern whose meaning
// depends on the tool: a bash rule is matched against the commands of the
// parsed script, a file tool's against the path it is given, any other
// tool's against one of its string arguments.
//
// Allow rules must cover the whole call (every command of a script); deny
// and ask rules need to match one part of it. The package decides only
// whether rules match; internal/approval decides what follows.
package rules

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// A Rule names tools, and with a pattern some of their calls.
type Rule struct {
	// Tool is a tool's name, or a glob over names in which * stands for
	// any characters (mcp--github--*, file_*).
	Tool string
	// Pattern narrows the rule to some calls; "" means every call.
	Pattern string

	kind  kind
	words []string // bash: the command's words
	tail  bool     // bash: any further words may follow
	glob  string   // paths: the doublestar pattern, cleaned
	key   string   // generic: the argument matched
	value string   // generic: a glob over its value; domain: the host
}

// kind is how a rule's pattern is read, which depends on its tool.
type kind int

const (
	whole   kind = iota // no pattern
	command             // bash: a command's words
	path_               // file tools, glob, grep: a path argument
	domain              // web_fetch: the URL's host
	generic             // any other tool: KEY:GLOB over a string argument
)

// pathArg names the argument a path rule is matched against, by tool.
var pathArg = map[string]string{
	"file_read":  "file_path",
	"file_write": "file_path",
	"file_edit":  "file_path",
	"glob":       "path",
	"grep":       "path",
}

// claudeNames maps Claude Code's tool names to ours, for a friendlier
// error when a rule is copied from its settings.
var claudeNames = map[string]string{
	"Bash": "bash", "Read": "file_read", "Write": "file_write", "Edit": "file_edit",
	"Glob": "glob", "Grep": "grep", "WebFetch": "web_fetch",
}

// Parse reads a rule: TOOL or TOOL(PATTERN).
func Parse(s string) (Rule, error) {
	tool, pattern, hasPattern := strings.Cut(s, "(")
	if hasPattern {
		var ok bool
		if pattern, ok = strings.CutSuffix(pattern, ")"); !ok {
			return Rule{}, errors.New("a pattern ends with ): TOOL(PATTERN)")
		}
	}
	if err := checkTool(tool, hasPattern); err != nil {
		return Rule{}, err
	}
	r := Rule{Tool: tool, Pattern: pattern}
	if !hasPattern {
		return r, nil
	}
	if strings.TrimSpace(pattern) == "" {
		return Rule{}, fmt.Errorf("an empty pattern: write %s alone for every call", tool)
	}
	var err error
	switch {
	case tool == "bash":
		r.kind = command
		r.words, r.tail, err = parseCommand(pattern)
	case pathArg[tool] != "":
		r.kind = path_
		r.glob, err = parseGlob(pattern)
	case tool == "web_fetch":
		r.kind = domain
		r.value, err = parseDomain(pattern)
	default:
		r.kind = generic
		r.key, r.value, err = parseGeneric(pattern)
	}
	if err != nil {
		return Rule{}, err
	}
	return r, nil
}

// MustParse is Parse for rules known to be good; it panics on an error.
func MustParse(s string) Rule {
	r, err := Parse(s)
	if err != nil {
		panic(fmt.Sprintf("rules.MustParse(%q): %v", s, err))
	}
	return r
}

// checkTool checks a rule's tool part: a tool name as config accepts
// them (hyphens only in MCP names), or with a pattern-less rule a glob.
func checkTool(tool string, hasPattern bool) error {
	if tool == "" {
		return errors.New("no tool name: TOOL or TOOL(PATTERN)")
	}
	if ours, ok := claudeNames[tool]; ok {
		return fmt.Errorf("%s is Claude Code's name for the tool; here it is %s", tool, ours)
	}
	if len(tool) > 64 {
		return errors.New("a tool name has at most 64 characters")
	}
	mcp := strings.HasPrefix(tool, "mcp--")
	for _, c := range []byte(tool) {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_':
		case c == '-' && mcp:
		case c == '*' && !hasPattern:
		case c == '*':
			return errors.New("a rule with a pattern names one tool: no * in the name")
		case c == '-':
			return errors.New("not a tool name: hyphens belong to MCP tools' names (mcp--SERVER--TOOL); a tool's name has underscores (file_read)")
		default:
			return errors.New("not a tool name: letters, digits and underscores (and * to match several)")
		}
	}
	return nil
}

// String returns the rule as it is written.
func (r Rule) String() string {
	if r.kind == whole {
		return r.Tool
	}
	return r.Tool + "(" + r.Pattern + ")"
}

// Whole reports whether the rule covers every call of its tools.
func (r Rule) Whole() bool { return r.kind == whole }

// Names reports whether the rule's tool part names the tool.
func (r Rule) Names(tool string) bool {
	return wildcard(r.Tool, tool)
}

// A Call is one tool call to be matched.
type Call struct {
	Tool string
	Args json.RawMessage
	// Dir is the working directory: relative paths in the arguments and
	// relative globs in rules start there.
	Dir string
	// Home is the user's home directory, for rules written from ~/.
	Home string
}

// A Verdict says whether rules match a call.
type Verdict int

const (
	// No rule matches.
	No Verdict = iota
	// Maybe a rule matches: the call does something that cannot be seen
	// before it runs (a command chosen at run time, a script that does not
	// parse) where a rule could apply.
	Maybe
	// Yes, a rule matches.
	Yes
)

func (v Verdict) String() string {
	return [...]string{"no", "maybe", "yes"}[v]
}

// A List is the rules of one kind: allow, ask or deny.
type List []Rule

// Covers reports whether a rule without a pattern names the tool: every
// call of it is covered.
func (l List) Covers(tool string) bool {
	for _, r := range l {
		if r.Whole() && r.Names(tool) {
			return true
		}
	}
	return false
}

// Names reports whether a rule names the tool, with a pattern or without.
func (l List) Names(tool string) bool {
	return slices.ContainsFunc(l, func(r Rule) bool { return r.Names(tool) })
}

// Allows reports whether the rules allow the whole call: a rule covers
// the tool, or every part of the call matches a rule: for bash, every
// command of a script that is wholly understood.
func (l List) Allows(c Call) bool {
	if l.Covers(c.Tool) {
		return true
	}
	var mine List
	for _, r := range l {
		if r.Names(c.Tool) {
			mine = append(mine, r)
		}
	}
	if len(mine) == 0 {
		return false
	}
	if c.Tool == "bash" {
		s, ok := script(c.Args)
		return ok && analyze(s).allowedBy(mine)
	}
	for _, r := range mine {
		if r.matchArgs(c, true) == Yes {
			return true
		}
	}
	return false
}

// Unreadable says why no rule with a pattern could allow the call (for
// bash: "it redirects output to a file"), or "" when one could.
func Unreadable(c Call) string {
	if c.Tool != "bash" {
		return ""
	}
	s, ok := script(c.Args)
	if !ok {
		return "it has no command"
	}
	return analyze(s).unsure
}

// Match reports whether some rule matches some part of the call, as deny
// and ask rules do, and which rule; a Yes wins over a Maybe.
func (l List) Match(c Call) (Verdict, Rule) {
	var mine List
	for _, r := range l {
		if r.Names(c.Tool) {
			if r.Whole() {
				return Yes, r
			}
			mine = append(mine, r)
		}
	}
	if len(mine) == 0 {
		return No, Rule{}
	}
	if c.Tool == "bash" {
		s, ok := script(c.Args)
		if !ok {
			return No, Rule{} // the tool refuses it
		}
		return analyze(s).matchedBy(mine)
	}
	for _, r := range mine {
		if r.matchArgs(c, false) == Yes {
			return Yes, r
		}
	}
	return No, Rule{}
}

// matchArgs matches a rule with a pattern against a call of a tool other
// than bash; strict for an allow rule (see matchPath).
func (r Rule) matchArgs(c Call, strict bool) Verdict {
	var args map[string]json.RawMessage
	if json.Unmarshal(c.Args, &args) != nil {
		return No
	}
	str := func(key string) (string, bool) {
		var s string
		raw, ok := args[key]
		return s, ok && json.Unmarshal(raw, &s) == nil
	}
	switch r.kind {
	case path_:
		p, ok := str(pathArg[c.Tool])
		if !ok && c.Tool != "glob" && c.Tool != "grep" {
			return No
		}
		if p == "" {
			p = "." // glob and grep search the working directory
		}
		return r.matchPath(p, c.Dir, c.Home, strict)
	case domain:
		u, ok := str("url")
		if ok && hostMatches(u, r.value) {
			return Yes
		}
	case generic:
		v, ok := str(r.key)
		if ok && wildcard(r.value, v) {
			return Yes
		}
	}
	return No
}

// script returns the command of a bash call.
func script(args json.RawMessage) (string, bool) {
	var a struct {
		Command *string `json:"command"`
	}
	if json.Unmarshal(args, &a) != nil || a.Command == nil {
		return "", false
	}
	return *a.Command, true
}

// parseGeneric reads KEY:GLOB.
func parseGeneric(p string) (key, value string, err error) {
	key, value, ok := strings.Cut(p, ":")
	if !ok || key == "" || strings.ContainsAny(key, " *") {
		return "", "", errors.New("a pattern for this tool is ARGUMENT:VALUE, such as repo:ikigai-tools/* (* matches any characters)")
	}
	return key, value, nil
}

// wildcard matches s against a pattern in which * stands for any
// characters and everything else for itself, in time proportional to
// len(pattern)*len(s) at worst.
func wildcard(pattern, s string) bool {
	p, i := 0, 0
	star, from := -1, 0 // the last * seen, and where its match ends
	for i < len(s) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			star, from = p, i
			p++
		case p < len(pattern) && pattern[p] == s[i]:
			p++
			i++
		case star >= 0:
			from++
			p, i = star+1, from
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// String returns the rules as they are written, in brackets.
func (l List) String() string {
	s := make([]string, len(l))
	for i, r := range l {
		s[i] = r.String()
	}
	return "[" + strings.Join(s, " ") + "]"
}
