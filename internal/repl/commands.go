package repl

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/ikigai-tools/ikigai/internal/calllog"
	"github.com/ikigai-tools/ikigai/internal/display"
	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/skills"
)

// A command is one of the slash commands.
type command struct {
	name string
	args string // how its arguments are written in /help
	help string
	run  func(s *Shell, ctx context.Context, arg string) (Result, error)
}

// commands are the slash commands in the order /help lists them.
var commands []command

func init() {
	commands = []command{
		{"help", "", "list the commands", (*Shell).help},
		{"tool", "[NAME]", "list the tools, or show one's path and schema", (*Shell).tool},
		{"refresh", "", "look for tools again", (*Shell).refresh},
		{"model", "[NAME]", "show the model, or switch to another", (*Shell).setModel},
		{"clear", "", "start a new conversation", (*Shell).clear},
		{"skills", "", "list the skills", (*Shell).listSkills},
		{"load", "NAME", "add a skill to the conversation", (*Shell).load},
		{"stats", "", "how the tool calls in the log went: calls, failures, durations", (*Shell).stats},
		{"exit", "", "quit", func(*Shell, context.Context, string) (Result, error) { return Result{Quit: true}, nil }},
	}
}

// Commands returns the names of the slash commands, with the slash, in the
// order /help lists them.
func Commands() []string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = "/" + c.name
	}
	return names
}

// parseCommand splits a command line into the command's name and its
// argument. A line is a command when it starts with a slash followed by a
// word of letters; anything else, a path such as /etc/hosts included, is a
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
	for _, r := range name {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
			return "", "", false
		}
	}
	return name, strings.TrimSpace(arg), true
}

func (s *Shell) command(ctx context.Context, name, arg string) (Result, error) {
	for _, c := range commands {
		if c.name == name {
			return c.run(s, ctx, arg)
		}
	}
	return Result{Output: fmt.Sprintf("Unknown command: /%s\nCommands: %s", name, strings.Join(Commands(), " "))}, nil
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
	for _, c := range commands {
		fmt.Fprintf(w, "  /%s\t%s\n", strings.TrimSpace(c.name+" "+c.args), c.help)
	}
	w.Flush()
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
	return Result{Output: fmt.Sprintf("Model: %s (%s, %s)", c.Model, c.Name, c.Reason)}, nil
}

func (s *Shell) clear(context.Context, string) (Result, error) {
	saved := s.SessionID()
	s.conv, s.writer = nil, nil
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
