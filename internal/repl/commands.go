package repl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/ikigai-tools/ikigai/internal/agent"
	"github.com/ikigai-tools/ikigai/internal/calllog"
	"github.com/ikigai-tools/ikigai/internal/commands"
	"github.com/ikigai-tools/ikigai/internal/display"
	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/rules"
	"github.com/ikigai-tools/ikigai/internal/skills"
	"github.com/ikigai-tools/ikigai/toolsdk/host"
)

// A command is one of the slash commands.
type command struct {
	name string
	args string // how its arguments are written in /help
	help string
	run  func(s *Shell, ctx context.Context, arg string) (Result, error)
}

// builtins are the slash commands in the order /help lists them.
var builtins []command

func init() {
	builtins = []command{
		{"help", "", "list the commands", (*Shell).help},
		{"tool", "[NAME]", "list the tools, or show one's path and schema", (*Shell).tool},
		{"refresh", "", "look for tools again", (*Shell).refresh},
		{"model", "[NAME]", "show the model and the provider's others, or switch to another", (*Shell).setModel},
		{"approval", "[MODE]", "show when tools are asked about, or set it for this session: ask, auto, read-only or sandboxed", (*Shell).setApproval},
		{"reasoning", "[LEVEL]", "show how much the model thinks, or set it for this session: off, low, medium or high", (*Shell).setReasoning},
		{"clear", "", "start a new conversation", (*Shell).clear},
		{"context", "", "what fills the model's context, and how full it is", (*Shell).context},
		{"compact", "[FOCUS]", "summarise the older part of the conversation to make room, keeping FOCUS above all", (*Shell).compact},
		{"skills", "", "list the skills", (*Shell).listSkills},
		{"load", "NAME", "add a skill to the conversation", (*Shell).load},
		{"stats", "", "how the tool calls in the log went: calls, failures, durations", (*Shell).stats},
		{"jobs", "", "list the background jobs the job tool started", (*Shell).jobs},
		{"rewind", "[N]", "list the turns, or take the files and the conversation back to before turn N (/rewind N files, or N conversation: only those)", (*Shell).rewind},
		{"diff", "", "what the session changed in the files so far", (*Shell).diff},
		{"exit", "", "quit", func(*Shell, context.Context, string) (Result, error) { return Result{Quit: true}, nil }},
	}
}

// Commands returns the names of the slash commands, with the slash, in the
// order /help lists them.
func Commands() []string {
	names := make([]string, len(builtins))
	for i, c := range builtins {
		names[i] = "/" + c.name
	}
	return names
}

// parseCommand splits a command line into the command's name and its
// argument. A line is a command when it starts with a slash followed by a
// word (a letter, then letters, digits, hyphens and underscores: a custom
// command's name); anything else, a path such as /etc/hosts included, is a
// prompt.
func parseCommand(line string) (name, arg string, ok bool) {
	line = strings.TrimSpace(line)
	rest, ok := strings.CutPrefix(line, "/")
	if !ok {
		return "", "", false
	}
	name, arg, _ = strings.Cut(rest, " ")
	if name == "" {
		return "", "", false
	}
	if !commands.ValidName(name) {
		return "", "", false
	}
	return name, strings.TrimSpace(arg), true
}

func (s *Shell) command(ctx context.Context, name, arg string) (Result, error) {
	for _, c := range builtins {
		if c.name == name {
			return c.run(s, ctx, arg)
		}
	}
	if c, ok := s.custom(name); ok {
		t, err := s.commandTurn(c, arg)
		if err != nil {
			return Result{Output: "Error: " + err.Error()}, nil
		}
		t.line = strings.TrimSpace("/" + name + " " + arg)
		out, err := s.prompt(ctx, t, "/clear starts a new one")
		return Result{Outcome: out}, err
	}
	names := Commands()
	for _, c := range commands.List(s.Commands) {
		if !isBuiltin(c.Name) {
			names = append(names, "/"+c.Name)
		}
	}
	return Result{Output: fmt.Sprintf("Unknown command: /%s\nCommands: %s", name, strings.Join(names, " "))}, nil
}

// isBuiltin reports whether name is one of the built-in commands, which a
// custom command of the same name cannot replace.
func isBuiltin(name string) bool {
	for _, c := range builtins {
		if c.name == name {
			return true
		}
	}
	return false
}

// custom returns the custom command called name, unless a built-in
// command has that name.
func (s *Shell) custom(name string) (commands.Command, bool) {
	if isBuiltin(name) {
		return commands.Command{}, false
	}
	return commands.Find(s.Commands, name)
}

// commandTurn is the turn the custom command c runs with arg: its prompt,
// and the model and the calls allowed without asking it sets.
func (s *Shell) commandTurn(c commands.Command, arg string) (turn, error) {
	if c.Err != nil {
		return turn{}, fmt.Errorf("/%s (%s): %v", c.Name, c.Path, c.Err)
	}
	t := turn{text: c.Expand(arg), model: c.Model}
	var allow rules.List
	for _, r := range c.AllowedTools {
		rule, err := rules.Parse(r)
		if err != nil {
			return turn{}, fmt.Errorf("/%s (%s): allowed_tools: %v", c.Name, c.Path, err)
		}
		allow = append(allow, rule)
	}
	if len(allow) > 0 {
		// As an allow rule: a script runs without asking only when every
		// command of it is covered.
		t.allowed = func(tool string, args json.RawMessage) bool {
			return allow.Allows(rules.Call{Tool: tool, Args: args, Dir: s.Dir, Home: s.Home})
		}
	}
	return t, nil
}

// context shows what takes the space of the next request.
func (s *Shell) context(ctx context.Context, _ string) (Result, error) {
	a, err := s.Backend.Agent(ctx, nil, nil)
	if err != nil {
		return Result{}, err
	}
	b, err := a.Breakdown(ctx, s.conversation())
	if err != nil {
		return Result{}, err
	}
	s.mu.Lock()
	cost := s.cost
	s.mu.Unlock()
	return Result{Output: display.Context(b, cost)}, nil
}

// compact summarises the older part of the conversation now.
func (s *Shell) compact(ctx context.Context, focus string) (Result, error) {
	a, err := s.Backend.Agent(ctx, nil, s.Observe)
	if err != nil {
		return Result{}, err
	}
	conv := s.conversation()
	a.Session = s.hookSession()
	c, err := a.Compact(ctx, conv, focus)
	if errors.Is(err, agent.ErrNothingToCompact) {
		return Result{Output: "Nothing to compact yet: the conversation is short."}, nil
	}
	if err != nil {
		return Result{}, err
	}
	return Result{Output: display.Compacted(c)}, nil
}

// stats summarises the call log, as ikigai stats does.
func (s *Shell) stats(context.Context, string) (Result, error) {
	if s.LogDir == "" {
		return Result{Output: "No call log: the state directory is unknown."}, nil
	}
	st, err := calllog.ReadStats(s.LogDir)
	if err != nil {
		return Result{}, err
	}
	var b strings.Builder
	if err := st.WriteText(&b); err != nil {
		return Result{}, err
	}
	return Result{Output: strings.TrimRight(b.String(), "\n")}, nil
}

func (s *Shell) help(context.Context, string) (Result, error) {
	var b strings.Builder
	b.WriteString("Commands:\n")
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, c := range builtins {
		fmt.Fprintf(w, "  /%s\t%s\n", strings.TrimSpace(c.name+" "+c.args), c.help)
	}
	w.Flush()
	if custom := commands.List(s.Commands); len(custom) > 0 {
		b.WriteString("Custom commands:\n")
		for _, c := range custom {
			help := c.Description
			if isBuiltin(c.Name) {
				help = "(not used: a built-in command has this name)"
			}
			fmt.Fprintf(w, "  /%s\t%s (%s)\n", strings.TrimSpace(c.Name+" "+c.ArgumentHint), help, c.Source)
		}
		w.Flush()
	}
	b.WriteString("Anything else is a prompt for the model.")
	if s.Keys != "" {
		b.WriteString("\n" + s.Keys)
	}
	return Result{Output: b.String()}, nil
}

// tool lists the tools as the reference implementation did, or describes one.
func (s *Shell) tool(ctx context.Context, name string) (Result, error) {
	reg, err := s.Backend.Tools(ctx)
	if err != nil {
		return Result{}, err
	}
	if name != "" {
		t, ok := reg.Lookup(name)
		if !ok {
			return Result{Output: display.Missing(reg, name)}, nil
		}
		return Result{Output: display.Tool(t)}, nil
	}
	var b strings.Builder
	b.WriteString("Available tools:")
	for _, t := range reg.Tools() {
		fmt.Fprintf(&b, "\n  %s (%s)", t.Name, t.Path)
		switch {
		case t.Deferred && s.conv != nil && s.conv.Enabled(t.Name):
			b.WriteString(" deferred, enabled")
		case t.Deferred:
			b.WriteString(" deferred")
		}
	}
	if len(reg.Tools()) == 0 {
		b.WriteString("\n  (none)")
	}
	for i, f := range reg.Failed() {
		if i == 0 {
			b.WriteString("\nFailed (not offered to the model):")
		}
		fmt.Fprintf(&b, "\n  %s (%s): %s", f.Name, f.Path, f.Reason)
	}
	for i, u := range reg.Untrusted() {
		if i == 0 {
			b.WriteString("\nNot run, the directory is not trusted (ikigai trust):")
		}
		fmt.Fprintf(&b, "\n  %s (%s)", u.Name, u.Path)
	}
	return Result{Output: b.String()}, nil
}

func (s *Shell) refresh(ctx context.Context, _ string) (Result, error) {
	reg, err := s.Backend.Refresh(ctx)
	if err != nil {
		return Result{}, err
	}
	lines := append(discoveryNotes(reg), fmt.Sprintf("Tool registry refreshed: %d tools loaded", len(reg.Tools())))
	return Result{Output: strings.Join(lines, "\n")}, nil
}

func (s *Shell) setModel(ctx context.Context, name string) (Result, error) {
	c, err := s.Backend.Model(ctx)
	if name != "" {
		c, err = s.Backend.SetModel(ctx, name)
	}
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, err
		}
		return Result{Output: "Error: " + err.Error()}, nil
	}
	res := Result{Output: fmt.Sprintf("Model: %s (%s, %s)", c.Model, c.Name, c.Reason)}
	if name != "" {
		res.Model = c.Model
		return res, nil
	}
	list, err := s.listModels(ctx)
	switch {
	case err != nil && ctx.Err() != nil:
		return Result{}, err
	case err != nil:
		res.Output += "\nThe provider's models cannot be listed: " + err.Error()
	case len(list) > 0:
		res.Output += "\nModels (/model NAME switches; Tab completes the name):\n  " + strings.Join(list, "\n  ")
	}
	return res, nil
}

func (s *Shell) setReasoning(_ context.Context, level string) (Result, error) {
	if level != "" {
		r, err := provider.ParseReasoning(level)
		if err != nil {
			return Result{Output: "Error: " + err.Error()}, nil
		}
		s.mu.Lock() // the status line reads it
		s.Reasoning = r
		s.mu.Unlock()
	}
	if s.Reasoning == provider.ReasoningDefault {
		return Result{Output: "Reasoning: the model's default (/reasoning off, low, medium or high to set it)"}, nil
	}
	return Result{Output: "Reasoning: " + string(s.Reasoning)}, nil
}

func (s *Shell) clear(ctx context.Context, _ string) (Result, error) {
	saved := s.SessionID()
	s.End(ctx, "clear")
	s.Close()
	s.conv, s.writer, s.resumed, s.saveErr = nil, nil, false, nil
	s.setTurns(nil)
	s.repo, s.checkpointsOff = nil, false
	s.cleared = true
	s.setSaving(nil)
	if saved == "" {
		return Result{Output: "Started a new conversation."}, nil
	}
	return Result{Output: fmt.Sprintf("Started a new conversation (the last one is saved as %s).", saved)}, nil
}

func (s *Shell) listSkills(context.Context, string) (Result, error) {
	list := skills.List(s.Skills)
	if len(list) == 0 {
		var dirs []string
		for _, d := range []string{s.Skills.System, s.Skills.User, s.Skills.Project} {
			if d != "" {
				dirs = append(dirs, d)
			}
		}
		return Result{Output: "No skills in " + strings.Join(dirs, ", ") + " (a skill is a Markdown file, NAME.md)."}, nil
	}
	var b strings.Builder
	b.WriteString("Skills (/load NAME adds one to the conversation):\n")
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, sk := range list {
		fmt.Fprintf(w, "  %s\t%s\t%s\n", sk.Name, sk.Source, sk.Description)
	}
	w.Flush()
	return Result{Output: strings.TrimSuffix(b.String(), "\n")}, nil
}

func (s *Shell) load(ctx context.Context, name string) (Result, error) {
	if name == "" {
		return Result{Output: "Usage: /load NAME (/skills lists them)"}, nil
	}
	sk, ok := skills.Find(s.Skills, name)
	if !ok {
		return Result{Output: fmt.Sprintf("No skill named '%s' (/skills lists them)", name)}, nil
	}
	text, err := sk.Read()
	if err != nil {
		return Result{Output: "Error: " + err.Error()}, nil
	}
	if s.model == nil {
		s.model, _ = s.Backend.Model(ctx) // for the session's record, if it is known
	}
	s.conversation().Add(provider.UserText(fmt.Sprintf("The user loaded the skill %q for this conversation:\n\n%s", name, text)))
	return Result{Output: "Skill loaded: " + name}, nil
}

// jobs lists the background jobs of the session.
func (s *Shell) jobs(context.Context, string) (Result, error) {
	var list []host.Job
	if s.Jobs != nil {
		list = s.Jobs()
	}
	if len(list) == 0 {
		return Result{Output: "No background jobs (the job tool starts them)."}, nil
	}
	var b strings.Builder
	b.WriteString("Jobs:\n")
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for _, j := range list {
		status := j.Status
		if j.ExitCode != nil {
			status += fmt.Sprintf(" (%d)", *j.ExitCode)
		}
		if j.Kept {
			status += ", kept"
		}
		fmt.Fprintf(w, "  %s\t%s\tpid %d\t%s\n", j.ID, status, j.PID, j.Command)
	}
	w.Flush()
	return Result{Output: strings.TrimSuffix(b.String(), "\n")}, nil
}
