// Package repl is the interactive session without its terminal: what a
// line typed at the prompt does (a command, or a prompt for the model), and
// the conversation those lines build, saved as it goes. The terminal UI and
// the plain line mode for scripts both drive a Shell; neither holds any of
// this logic.
package repl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ikigai-tools/ikigai/internal/agent"
	"github.com/ikigai-tools/ikigai/internal/approval"
	"github.com/ikigai-tools/ikigai/internal/checkpoint"
	"github.com/ikigai-tools/ikigai/internal/commands"
	"github.com/ikigai-tools/ikigai/internal/display"
	"github.com/ikigai-tools/ikigai/internal/hooks"
	"github.com/ikigai-tools/ikigai/internal/prompt"
	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/provider/pick"
	"github.com/ikigai-tools/ikigai/internal/registry"
	"github.com/ikigai-tools/ikigai/internal/session"
	"github.com/ikigai-tools/ikigai/internal/skills"
	"github.com/ikigai-tools/ikigai/toolsdk/host"
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
	// Choose returns the provider choice for the model called name, for
	// one turn, leaving the conversation's as it is.
	Choose(ctx context.Context, name string) (*pick.Choice, error)
	// Agent returns an agent for the next prompt, asking the user through
	// asker (nil when nobody can be asked) and reporting to observe.
	Agent(ctx context.Context, asker approval.Asker, observe func(agent.Event)) (*agent.Agent, error)
}

// A Shell runs the lines of one interactive session. Handle must not be
// called concurrently.
type Shell struct {
	Backend Backend
	Dir     string // the working directory, recorded with the session
	Home    string // the user's home directory, which rules may name as ~
	Skills  skills.Dirs
	// Sessions is where conversations are saved; nil saves nothing.
	Sessions *session.Store
	// Commands are where the custom commands are.
	Commands commands.Dirs
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
	// Warn, if set, is told at once of each problem that does not stop the
	// conversation (the session or the log cannot be written); else those
	// are in the Warnings of the line that met them.
	Warn func(string)
	// Hooks run when a conversation starts and ends; the agent runs the
	// others. Nil for none.
	Hooks *hooks.Set
	// Jobs lists the session's background jobs, for /jobs; nil when there
	// can be none.
	Jobs func() []host.Job
	// Checkpoints is the directory the shadow repositories of the
	// sessions' files go in (package checkpoint), one per session, for
	// /rewind and /diff; "" keeps none. None are kept when Dir is Home.
	Checkpoints string
	// CheckpointMax caps the files a checkpoint takes, in bytes; 0 for no
	// cap. Past it, checkpoints are off for the session.
	CheckpointMax int64
	// CheckpointRoot is the directory the checkpoints cover: the root of
	// the repository Dir is in, so that a change anywhere in it is undone
	// and every .gitignore of it applies; Dir when "".
	CheckpointRoot string
	// Reasoning is how much the model thinks in this session: the
	// configured setting, until /reasoning changes it.
	Reasoning provider.Reasoning
	// Approval is the approval mode: the configured one, until /approval
	// changes it for the session; "" for the configuration's. Sandbox is
	// the sandbox mode, for the status line ("" when off).
	Approval approval.Mode
	Sandbox  string
	// Agents counts the sub-agents running, for the status line; nil for
	// none.
	Agents func() int

	conv    *agent.Conversation
	writer  *session.Writer
	resumed bool         // the conversation is a saved one, continued
	model   *pick.Choice // the choice the last prompt went to
	started time.Time
	id      string // the conversation's session id, chosen when it starts
	began   bool   // the conversation had a prompt: its session_start hooks ran
	cleared bool   // the conversation was started by /clear
	saveErr error  // the first failure to save, reported once

	turns          []session.Turn   // the conversation's turns, for /rewind; set under mu
	turn           *session.Turn    // the turn under way
	repo           *checkpoint.Repo // the session's checkpoints, once made
	checkpointsOff bool             // checkpoints failed, or outgrew the cap: none for the session

	mu        sync.Mutex
	cost      *float64          // what the session's requests cost, when the price is known
	tokens    int               // the tokens its requests read and wrote
	ctxUse    agent.Context     // the next request's size, as the last response left it
	modelList []string          // the provider's models, once asked
	modelsOf  provider.Provider // the provider modelList is of
	pending   []string          // warnings for the line under way
	saving    *session.Writer   // the writer, for sub-agents' messages, which come from other goroutines
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
	// Model is the model prompts go to from now on, when the line chose
	// another (/model NAME).
	Model string
	// Prompt, when set, is text to put back at the prompt for the user to
	// edit and send again: the prompt of a turn /rewind took back.
	Prompt string
	// Diff says Output is a unified diff (/diff), for colouring.
	Diff bool
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
		res.Outcome, err = s.prompt(ctx, turn{text: line}, "/clear starts a new one")
	}
	var blocked *agent.PromptBlocked
	if errors.As(err, &blocked) {
		err = nil // the hook's run, shown as it happened, says why
	}
	s.mu.Lock()
	res.Warnings, s.pending = append(res.Warnings, s.pending...), nil
	s.mu.Unlock()
	return res, err
}

// Warning reports msg, a problem that does not stop the conversation: to
// Warn at once, or else in the Warnings of the line under way. It may be
// called from any goroutine: the log reports its failures through it.
func (s *Shell) Warning(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Warn != nil {
		s.Warn(msg)
		return
	}
	s.pending = append(s.pending, msg)
}

// failed records the first failure to save the session and reports it,
// saying where the session was to be.
func (s *Shell) failed(err error) {
	if err == nil || s.saveErr != nil {
		return
	}
	s.saveErr = err
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // the path is said anyway
	}
	s.Warning(fmt.Sprintf("Warning: the conversation cannot be saved to %s: %v", s.writer.Path(), err))
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

// Close lets go of the session the conversation is saved as, so that
// another process can continue it.
func (s *Shell) Close() error {
	if s.writer == nil {
		return nil
	}
	return s.writer.Close()
}

// Resume continues a saved session: its messages become the conversation
// and new ones are added to its file, which this shell holds until Close
// or /clear: a session another writer holds is a *session.InUseError. Tool
// calls the session ended in the middle of are answered as cancelled.
func (s *Shell) Resume(sess *session.Session) error {
	w, err := s.Sessions.Continue(sess)
	if err != nil {
		return err
	}
	s.writer, s.resumed, s.id = w, true, w.ID()
	s.setTurns(sess.Turns)
	s.setSaving(w)
	s.conv = &agent.Conversation{Messages: sess.Messages, OnAppend: s.save, OnCut: s.cut, OnCompact: s.compacted, OnSubagent: s.saveAgent, Results: s.results(s.id)}
	s.conv.AnswerInterrupted()
	return s.saveErr
}

// DiscoveryNotes waits for discovery and returns what the user should know
// at start: each tool that failed, the project tools left alone, the jobs
// an earlier session kept running.
func (s *Shell) DiscoveryNotes(ctx context.Context) []string {
	reg, err := s.Backend.Tools(ctx)
	if err != nil {
		return nil
	}
	notes := discoveryNotes(reg)
	if s.Jobs != nil {
		var kept []string
		for _, j := range s.Jobs() {
			kept = append(kept, fmt.Sprintf("%s (%s) %s", j.ID, j.Status, j.Command))
		}
		if len(kept) > 0 {
			notes = append(notes, "Jobs kept by an earlier session (/jobs lists them; the job tool reads and kills them): "+strings.Join(kept, "; "))
		}
	}
	return notes
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
// A run that fails is taken out of the conversation; when the API rejected
// it, the error says how to start a new conversation, in case this one has
// grown too long.
// A custom command (/NAME ARGS) is the exception: its prompt is run, as in
// the REPL.
func (s *Shell) Prompt(ctx context.Context, text string) (*agent.Outcome, error) {
	restart := ""
	if s.resumed {
		restart = "leave out --continue and --resume to start a new one"
	}
	if name, arg, ok := parseCommand(text); ok {
		if c, ok := s.custom(name); ok {
			t, err := s.commandTurn(c, arg)
			if err != nil {
				return nil, err
			}
			return s.prompt(ctx, t, restart)
		}
	}
	return s.prompt(ctx, turn{text: text}, restart)
}

// A turn is a prompt and how it is run.
type turn struct {
	text string
	// line is what the user sent, when it is not text: a custom command.
	line string
	// model is the model it goes to; "" for the conversation's.
	model string
	// allowed accepts the calls it runs without asking; nil for none.
	allowed hooks.Matcher
}

// prompt is Prompt, with restart saying how a new conversation is started
// where that is possible.
func (s *Shell) prompt(ctx context.Context, t turn, restart string) (*agent.Outcome, error) {
	out, err := s.run(ctx, t)
	if pe, ok := err.(*provider.Error); ok && restart != "" && pe.Kind == provider.BadRequest {
		hinted := *pe
		hinted.Steps = append(slices.Clip(pe.Steps), "If the conversation has grown too long for the model, "+restart+" (the prompt that failed was not kept)")
		err = &hinted
	}
	return out, err
}

func (s *Shell) run(ctx context.Context, t turn) (*agent.Outcome, error) {
	exp, err := prompt.Expand(t.text, s.Dir)
	if err != nil {
		return nil, err
	}
	text := exp.Text
	var images []provider.Image
	for _, img := range exp.Images {
		images = append(images, provider.Image{Name: img.Path, MediaType: img.MediaType, Data: img.Data})
	}
	choice, err := s.Backend.Model(ctx)
	if err != nil {
		return nil, err
	}
	s.model = choice
	a, err := s.Backend.Agent(ctx, s.Asker, s.Observe)
	if err != nil {
		return nil, err
	}
	if t.model != "" {
		c, err := s.Backend.Choose(ctx, t.model)
		if err != nil {
			return nil, err
		}
		a.Provider, a.Model = c.Provider, c.Model
	}
	a.Allowed = t.allowed
	a.Reasoning = s.Reasoning
	conv := s.conversation()
	s.begin(ctx, conv)
	a.Session = s.hookSession()
	line := t.line
	if line == "" {
		line = t.text
	}
	if s.Approval != "" && a.Policy != nil {
		a.Policy.Mode = s.Approval
	}
	observe := a.Observe
	a.Observe = func(ev agent.Event) {
		s.account(ev)
		if observe != nil {
			observe(ev)
		}
	}
	rec := s.beginTurn(a, conv, line)
	out, err := a.Run(ctx, conv, text, images...)
	s.endTurn(ctx, conv, rec)
	return out, err
}

// account keeps the session's numbers from what a run reports: each
// response's cost and tokens, and the context as it leaves it.
func (s *Shell) account(ev agent.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch ev.Kind {
	case agent.ResponseDone:
		if ev.Cost != nil {
			s.cost = addCost(s.cost, *ev.Cost)
		}
		s.tokens += ev.Usage.InputTokens + ev.Usage.OutputTokens
		s.ctxUse = ev.Context
	case agent.Compacted:
		s.ctxUse.Tokens = ev.Compaction.After
	}
}

// addCost adds c to the running total, which is nil until there is a
// price.
func addCost(total *float64, c float64) *float64 {
	if total != nil {
		c += *total
	}
	return &c
}

// conversation returns the current conversation, starting one if needed.
func (s *Shell) conversation() *agent.Conversation {
	if s.conv == nil {
		s.started = time.Now()
		s.id = session.NewID(s.started)
		s.conv = &agent.Conversation{OnAppend: s.save, OnCut: s.cut, OnCompact: s.compacted, OnSubagent: s.saveAgent, Results: s.results(s.id)}
	}
	return s.conv
}

// results is where the session called id keeps tool results too big for
// the model to take whole: "" when sessions are not kept.
func (s *Shell) results(id string) string {
	if s.Sessions == nil {
		return ""
	}
	return s.Sessions.Results(id)
}

// hookSession is the conversation as the hooks are told of it.
func (s *Shell) hookSession() hooks.Session {
	hs := hooks.Session{ID: s.id}
	switch {
	case s.writer != nil:
		hs.Transcript = s.writer.Path()
	case s.Sessions != nil && s.id != "":
		hs.Transcript = s.Sessions.Path(s.id)
	}
	return hs
}

// begin runs the session_start hooks before the first prompt of the
// conversation conv: what they add joins it as a message of its own.
func (s *Shell) begin(ctx context.Context, conv *agent.Conversation) {
	if s.began {
		return
	}
	s.began = true
	if !s.Hooks.Has(hooks.SessionStart) {
		return
	}
	source := "startup"
	switch {
	case s.resumed:
		source = "resume"
	case s.cleared:
		source = "clear"
	}
	hs := s.hookSession()
	res := s.Hooks.Run(ctx, hooks.Input{Event: hooks.SessionStart, Source: source, SessionID: hs.ID, TranscriptPath: hs.Transcript})
	s.reportHooks(res)
	for _, c := range res.Context {
		conv.Add(provider.UserText(agent.ContextNote(hooks.SessionStart) + c))
	}
}

// End ends the conversation for reason ("exit" or "clear"): its
// session_end hooks run, if it had a prompt.
func (s *Shell) End(ctx context.Context, reason string) {
	if !s.began {
		return
	}
	s.began = false
	if !s.Hooks.Has(hooks.SessionEnd) {
		return
	}
	hs := s.hookSession()
	s.reportHooks(s.Hooks.Run(ctx, hooks.Input{Event: hooks.SessionEnd, Reason: reason, SessionID: hs.ID, TranscriptPath: hs.Transcript}))
}

// reportHooks tells Observe of the hooks' runs.
func (s *Shell) reportHooks(res hooks.Result) {
	if s.Observe == nil {
		return
	}
	for i := range res.Runs {
		s.Observe(agent.Event{Kind: agent.HookRan, Hook: &res.Runs[i]})
	}
}

// save appends a message to the session's file, which is created with the
// first one.
func (s *Shell) save(m provider.Message) {
	if s.Sessions == nil || s.saveErr != nil {
		return
	}
	if s.writer == nil {
		meta := session.Meta{ID: s.id, Dir: s.Dir, Started: s.started.UTC()}
		if s.model != nil {
			meta.Provider, meta.Model = s.model.Name, s.model.Model
		}
		s.writer = s.Sessions.Create(meta)
		s.setSaving(s.writer)
	}
	s.failed(s.writer.Append(m))
}

func (s *Shell) setSaving(w *session.Writer) {
	s.mu.Lock()
	s.saving = w
	s.mu.Unlock()
}

// saveAgent adds a sub-agent's message to the session's file. It is called
// from the sub-agent's goroutine; a failure shows at the conversation's
// next message, which the writer then refuses too.
func (s *Shell) saveAgent(id string, m provider.Message) {
	s.mu.Lock()
	w := s.saving
	s.mu.Unlock()
	if w != nil {
		w.AppendAgent(id, m)
	}
}

// compacted records a compaction in the session's file.
func (s *Shell) compacted(msgs []provider.Message) {
	for i := range s.turns {
		s.turns[i].Compacted = true
	}
	if s.turn != nil {
		s.turn.Compacted = true
	}
	if s.writer == nil || s.saveErr != nil {
		return
	}
	s.failed(s.writer.Compact(msgs))
}

// cut takes a failed run out of the session's file too.
func (s *Shell) cut(n int) {
	if s.writer == nil || s.saveErr != nil {
		return
	}
	s.failed(s.writer.Cut(n))
}

// RunLines runs lines one after the other in the shell, for scripts: what
// commands print and the answers on stdout, tool activity and warnings on
// stderr, as display.Progress shows them, after the notes of discovery. It
// stops at the end of the lines, at /exit, or at the first line that
// fails, with that failure.
func (s *Shell) RunLines(ctx context.Context, lines iter.Seq2[string, error], stdout, stderr io.Writer) error {
	for _, note := range s.DiscoveryNotes(ctx) {
		fmt.Fprintln(stderr, note)
	}
	for line, err := range lines {
		if err != nil {
			return fmt.Errorf("reading stdin: %w", err)
		}
		progress := display.NewProgress(stdout, stderr)
		s.Observe = progress.Event
		res, err := s.Handle(ctx, line)
		if res.Output != "" {
			fmt.Fprintln(stdout, res.Output)
		}
		for _, w := range res.Warnings {
			fmt.Fprintln(stderr, w)
		}
		if err != nil {
			return err
		}
		if res.Outcome != nil {
			// At the limit, the tool turns taken are the limit.
			progress.Finish(res.Outcome, res.Outcome.ToolTurns)
		}
		if res.Quit {
			return nil
		}
	}
	return nil
}
