// Package repl is the interactive session without its terminal: what a
// line typed at the prompt does (a command, or a prompt for the model), and
// the conversation those lines build, saved as it goes. The terminal UI and
// the plain line mode for scripts both drive a Shell; neither holds any of
// this logic.
package repl

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ikigai-tools/ikigai/internal/agent"
	"github.com/ikigai-tools/ikigai/internal/approval"
	"github.com/ikigai-tools/ikigai/internal/display"
	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/provider/pick"
	"github.com/ikigai-tools/ikigai/internal/registry"
	"github.com/ikigai-tools/ikigai/internal/session"
	"github.com/ikigai-tools/ikigai/internal/skills"
)

// Backend is what a Shell needs from the rest of ikigai. Its methods wait
// for what is still being set up in the background (discovery, the choice
// of provider) and give up when ctx ends.
type Backend interface {
	// Tools returns the tool registry.
	Tools(ctx context.Context) (*registry.Registry, error)
	// Refresh scans the tool directories again and returns the new registry.
	Refresh(ctx context.Context) (*registry.Registry, error)
	// Model returns the provider and model prompts go to.
	Model(ctx context.Context) (*pick.Choice, error)
	// SetModel chooses the provider again for the model called name; the
	// choice stays as it was when that fails.
	SetModel(ctx context.Context, name string) (*pick.Choice, error)
	// Agent returns an agent for the next prompt, asking the user through
	// asker (nil when nobody can be asked) and reporting to observe.
	Agent(ctx context.Context, asker approval.Asker, observe func(agent.Event)) (*agent.Agent, error)
}

// A Shell runs the lines of one interactive session. Handle must not be
// called concurrently.
type Shell struct {
	Backend Backend
	Dir     string // the working directory, recorded with the session
	Skills  skills.Dirs
	// Sessions is where conversations are saved; nil saves nothing.
	Sessions *session.Store
	// Observe is told what a prompt's run does as it happens.
	Observe func(agent.Event)
	// Asker asks the user to approve a tool call; nil refuses what needs
	// asking, as a run nobody watches must.
	Asker approval.Asker
	// Keys is said after the commands by /help: the keys of the interface
	// that drives the shell.
	Keys string
	// LogDir holds the call log /stats reads; empty when there is none.
	LogDir string

	conv    *agent.Conversation
	writer  *session.Writer
	model   *pick.Choice // the choice the last prompt went to
	started time.Time
	saveErr error // the first failure to save, reported once
	warned  bool
}

// Result is what a line did.
type Result struct {
	// Output is what a command prints.
	Output string
	// Outcome is how a prompt's run ended; nil for a command.
	Outcome *agent.Outcome
	// Warnings are problems worth telling the user about that did not
	// stop the line: the session could not be saved.
	Warnings []string
	// Quit is set by /exit.
	Quit bool
}

// Handle runs one line: a command when it starts with a slash and a word,
// else a prompt for the model. A blank line does nothing. The error is a
// prompt's failure (the provider's, or the context's when the user
// cancelled); a command's problems are its output.
func (s *Shell) Handle(ctx context.Context, line string) (Result, error) {
	if strings.TrimSpace(line) == "" {
		return Result{}, nil
	}
	var res Result
	var err error
	if name, arg, ok := parseCommand(line); ok {
		res, err = s.command(ctx, name, arg)
	} else {
		res.Outcome, err = s.Prompt(ctx, line)
	}
	if s.saveErr != nil && !s.warned {
		s.warned = true
		res.Warnings = append(res.Warnings, fmt.Sprintf("Warning: the conversation cannot be saved: %v", s.saveErr))
	}
	return res, err
}

// Conversation returns the messages of the conversation so far.
func (s *Shell) Conversation() []provider.Message {
	if s.conv == nil {
		return nil
	}
	return s.conv.Messages
}

// SessionID returns the id of the session the conversation is saved as,
// or "" while nothing is saved.
func (s *Shell) SessionID() string {
	if s.writer == nil {
		return ""
	}
	return s.writer.ID()
}

// Resume continues a saved session: its messages become the conversation
// and new ones are added to its file. Tool calls the session ended in the
// middle of are answered as cancelled.
func (s *Shell) Resume(sess *session.Session) error {
	w, err := s.Sessions.Continue(sess)
	if err != nil {
		return err
	}
	s.writer = w
	s.conv = &agent.Conversation{Messages: sess.Messages, OnAppend: s.save}
	s.conv.AnswerInterrupted()
	return s.saveErr
}

// DiscoveryNotes waits for discovery and returns what the user should know
// about it: each tool that failed, the project tools left alone.
func (s *Shell) DiscoveryNotes(ctx context.Context) []string {
	reg, err := s.Backend.Tools(ctx)
	if err != nil {
		return nil
	}
	return discoveryNotes(reg)
}

// discoveryNotes are the lines that tell the user what discovery could not
// use.
func discoveryNotes(reg *registry.Registry) []string {
	var notes []string
	for _, f := range reg.Failed() {
		notes = append(notes, display.SchemaFailure(f))
	}
	if u := reg.Untrusted(); len(u) > 0 {
		names := make([]string, len(u))
		for i, e := range u {
			names[i] = e.Name
		}
		notes = append(notes, fmt.Sprintf("Not running the project's tools (%s): this directory is not trusted (ikigai trust)", strings.Join(names, ", ")))
	}
	return notes
}

// Prompt runs the model on text, taken as a prompt whatever it starts with.
func (s *Shell) Prompt(ctx context.Context, text string) (*agent.Outcome, error) {
	choice, err := s.Backend.Model(ctx)
	if err != nil {
		return nil, err
	}
	s.model = choice
	a, err := s.Backend.Agent(ctx, s.Asker, s.Observe)
	if err != nil {
		return nil, err
	}
	return a.Run(ctx, s.conversation(), text)
}

// conversation returns the current conversation, starting one if needed.
func (s *Shell) conversation() *agent.Conversation {
	if s.conv == nil {
		s.conv = &agent.Conversation{OnAppend: s.save}
		s.started = time.Now()
	}
	return s.conv
}

// save appends a message to the session's file, which is created with the
// first one.
func (s *Shell) save(m provider.Message) {
	if s.Sessions == nil || s.saveErr != nil {
		return
	}
	if s.writer == nil {
		meta := session.Meta{ID: session.NewID(s.started), Dir: s.Dir, Started: s.started.UTC()}
		if s.model != nil {
			meta.Provider, meta.Model = s.model.Name, s.model.Model
		}
		s.writer = s.Sessions.Create(meta)
	}
	s.saveErr = s.writer.Append(m)
}
