package repl

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/ikigai-tools/ikigai/internal/agent"
	"github.com/ikigai-tools/ikigai/internal/checkpoint"
	"github.com/ikigai-tools/ikigai/internal/session"
)

// beginTurn starts the record of a turn: the prompt as the user sent it,
// and where its messages start.
func (s *Shell) beginTurn(a *agent.Agent, conv *agent.Conversation, prompt string) *session.Turn {
	t := &session.Turn{Prompt: prompt, Messages: len(conv.Messages)}
	s.turn = t
	// The files are snapshotted before the first call that may change
	// them: approved, about to run, and not read-only.
	around := a.Around
	a.Around = func(ctx context.Context, c agent.Call) (context.Context, func()) {
		if t.Before == "" && !s.readOnly(ctx, c.Name) {
			t.Before = s.snapshot(ctx, fmt.Sprintf("before turn %d: %s", len(s.turns)+1, firstLine(prompt)))
		}
		if around != nil {
			return around(ctx, c)
		}
		return ctx, func() {}
	}
	return t
}

// endTurn snapshots the files at the end of a turn that changed any, bash's
// changes included, and records the turn.
func (s *Shell) endTurn(ctx context.Context, conv *agent.Conversation, t *session.Turn) {
	s.turn = nil
	if t.Before != "" {
		t.After = s.snapshot(ctx, fmt.Sprintf("after turn %d: %s", len(s.turns)+1, firstLine(t.Prompt)))
		if t.After != "" && s.unchanged(ctx, t.Before, t.After) {
			t.Before, t.After = "", "" // its calls could have changed files, and did not
		}
	}
	if t.Before == "" && len(conv.Messages) <= t.Messages {
		return // a failed run, taken out, that changed nothing
	}
	s.setTurns(append(s.turns, *t))
	if s.writer != nil && s.saveErr == nil {
		s.failed(s.writer.Turn(*t))
	}
}

// Turns returns the conversation's turns, oldest first: what /rewind N
// takes back, N counting from 1. It may be called while a line runs.
func (s *Shell) Turns() []session.Turn {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.turns)
}

// setTurns sets the turns; Complete and Turns read them while a line runs.
func (s *Shell) setTurns(turns []session.Turn) {
	s.mu.Lock()
	s.turns = turns
	s.mu.Unlock()
}

// readOnly reports whether the tool called name says it changes nothing.
func (s *Shell) readOnly(ctx context.Context, name string) bool {
	reg, err := s.Backend.Tools(ctx)
	if err != nil {
		return false
	}
	t, ok := reg.Lookup(name)
	return ok && t.Schema.Annotations.ReadOnly()
}

// checkpoints returns the shadow repository of the session's files,
// making it the first time; nil, once said why, when there can be none.
func (s *Shell) checkpoints(ctx context.Context) *checkpoint.Repo {
	switch {
	case s.repo != nil:
		return s.repo
	case s.Checkpoints == "" || s.checkpointsOff:
		return nil
	case s.Home != "" && sameDir(s.checkpointRoot(), s.Home):
		s.offCheckpoints("the working directory is your whole home directory")
		return nil
	}
	r, err := checkpoint.Open(ctx, s.checkpointDir(), s.checkpointRoot(), s.id, s.CheckpointMax)
	if err != nil {
		s.offCheckpoints(err.Error())
		return nil
	}
	s.repo = r
	return r
}

// checkpointRoot is the directory the checkpoints cover.
func (s *Shell) checkpointRoot() string {
	if s.CheckpointRoot != "" {
		return s.CheckpointRoot
	}
	return s.Dir
}

// checkpointDir is the shadow repository of the directory the checkpoints
// cover, which the sessions held in it share: its name, and a hash of its
// path.
func (s *Shell) checkpointDir() string {
	root := filepath.Clean(s.checkpointRoot())
	sum := sha256.Sum256([]byte(root))
	return filepath.Join(s.Checkpoints, filepath.Base(root)+"-"+hex.EncodeToString(sum[:8])+".git")
}

// snapshot records the files as they are, returning the checkpoint's id;
// "" when checkpoints are off, or now go off.
func (s *Shell) snapshot(ctx context.Context, message string) string {
	ctx = context.WithoutCancel(ctx) // a turn cancelled still ends with its files recorded
	r := s.checkpoints(ctx)
	if r == nil {
		return ""
	}
	id, err := r.Snapshot(ctx, message)
	if err != nil {
		if !s.hasCheckpoint() {
			r.Forget(ctx) // nothing of this session's worth keeping
		}
		s.repo = nil
		s.offCheckpoints(err.Error())
		return ""
	}
	return id
}

// unchanged reports whether the files are the same in two checkpoints.
func (s *Shell) unchanged(ctx context.Context, from, to string) bool {
	r := s.checkpoints(context.WithoutCancel(ctx))
	if r == nil {
		return false
	}
	changed, err := r.Changed(context.WithoutCancel(ctx), from, to)
	return err == nil && len(changed) == 0
}

// hasCheckpoint reports whether a turn of the session has a checkpoint.
func (s *Shell) hasCheckpoint() bool {
	if s.turn != nil && s.turn.Before != "" {
		return true
	}
	for _, t := range s.turns {
		if t.Before != "" {
			return true
		}
	}
	return false
}

// offCheckpoints turns checkpoints off for the rest of the session, and
// says why.
func (s *Shell) offCheckpoints(why string) {
	s.checkpointsOff = true
	s.Warning("Warning: checkpoints are off for this session (" + why + "): /rewind cannot restore files changed from now on.")
}

// sameDir reports whether a and b name the same directory.
func sameDir(a, b string) bool {
	return filepath.Clean(a) == filepath.Clean(b)
}

// firstLine is the first line of s, cut to a width that fits a listing.
func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(line); len(r) > 60 {
		line = string(r[:59]) + "…"
	}
	return line
}

// rewind lists the turns, or rewinds the files, the conversation or both
// to just before turn N.
func (s *Shell) rewind(ctx context.Context, arg string) (Result, error) {
	fields := strings.Fields(arg)
	if len(fields) == 0 {
		return Result{Output: s.listTurns()}, nil
	}
	n, err := strconv.Atoi(fields[0])
	what := "both"
	if len(fields) > 1 {
		what = fields[1]
	}
	switch {
	case err != nil || len(fields) > 2 || what != "both" && what != "files" && what != "conversation":
		return Result{Output: "Usage: /rewind [N [files|conversation]] (/rewind lists the turns)"}, nil
	case len(s.turns) == 0:
		return Result{Output: "Nothing to rewind yet."}, nil
	case n < 1 || n > len(s.turns):
		return Result{Output: fmt.Sprintf("No turn %d: the turns are 1 to %d (/rewind lists them).", n, len(s.turns))}, nil
	}
	t := s.turns[n-1]
	var out []string
	if t.Compacted && what != "files" {
		if what == "conversation" {
			return Result{Output: fmt.Sprintf("The conversation was compacted since turn %d: only its files can be rewound (/rewind %d files).", n, n)}, nil
		}
		out = append(out, fmt.Sprintf("The conversation was compacted since turn %d: only the files are rewound.", n))
		what = "files"
	}
	if what != "conversation" {
		msg, err := s.rewindFiles(ctx, n)
		if err != nil {
			return Result{Output: "Error: the files cannot be restored: " + err.Error()}, nil
		}
		out = append(out, msg)
	}
	res := Result{}
	if what != "files" {
		s.conv.Cut(t.Messages) // and the session's file with it
		s.setTurns(s.turns[:n-1])
		out = append(out, fmt.Sprintf("The conversation is back to before turn %d; its prompt is back at the prompt.", n))
		res.Prompt = t.Prompt
	}
	res.Output = strings.Join(out, "\n")
	return res, nil
}

// rewindFiles puts the files back as they were before turn n: as the
// first checkpoint taken from that turn on has them.
func (s *Shell) rewindFiles(ctx context.Context, n int) (string, error) {
	target := ""
	for _, t := range s.turns[n-1:] {
		if t.Before != "" {
			target = t.Before
			break
		}
	}
	if target == "" {
		return fmt.Sprintf("No files to restore: no turn from %d on changed any that checkpoints saw.", n), nil
	}
	r := s.openCheckpoints(ctx)
	if r == nil {
		return "", errors.New("the checkpoints of this session are gone")
	}
	undo, err := r.Restore(context.WithoutCancel(ctx), target)
	if err != nil {
		return "", err
	}
	msg := fmt.Sprintf("Files restored to before turn %d", n)
	if undo != "" {
		if changed, err := r.Changed(ctx, target, undo); err == nil {
			if len(changed) == 0 {
				return msg + ": nothing had changed.", nil
			}
			msg += fmt.Sprintf(" (%d changed: %s)", len(changed), strings.Join(changed, ", "))
		}
	}
	return msg + ".", nil
}

// openCheckpoints returns the session's shadow repository, even with
// checkpoints gone off since: what it holds can still be restored.
func (s *Shell) openCheckpoints(ctx context.Context) *checkpoint.Repo {
	if s.repo != nil || s.Checkpoints == "" {
		return s.repo
	}
	r, err := checkpoint.Open(ctx, s.checkpointDir(), s.checkpointRoot(), s.id, s.CheckpointMax)
	if err != nil {
		return nil
	}
	return r
}

// listTurns describes the turns /rewind can go back to.
func (s *Shell) listTurns() string {
	if len(s.turns) == 0 {
		return "Nothing to rewind yet."
	}
	var b strings.Builder
	b.WriteString("Turns (/rewind N goes back to before turn N; /rewind N files or /rewind N conversation, to one of them):\n")
	w := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	for i, t := range s.turns {
		var notes []string
		if t.Before != "" {
			notes = append(notes, "changed files")
		}
		if t.Compacted {
			notes = append(notes, "compacted since: files only")
		}
		note := ""
		if len(notes) > 0 {
			note = "(" + strings.Join(notes, "; ") + ")"
		}
		fmt.Fprintf(w, "  %d\t%s\t%s\n", i+1, firstLine(t.Prompt), note)
	}
	w.Flush()
	return strings.TrimRight(b.String(), "\n ")
}

// diff shows what the session changed in the files, from its first
// checkpoint to now.
func (s *Shell) diff(ctx context.Context, _ string) (Result, error) {
	first := ""
	for _, t := range s.turns {
		if t.Before != "" {
			first = t.Before
			break
		}
	}
	if first == "" {
		if s.checkpointsOff {
			return Result{Output: "No changes to show: checkpoints are off for this session."}, nil
		}
		return Result{Output: "No files changed in this session yet."}, nil
	}
	r := s.openCheckpoints(ctx)
	if r == nil {
		return Result{Output: "No changes to show: the checkpoints of this session are gone."}, nil
	}
	d, err := r.Diff(context.WithoutCancel(ctx), first, "")
	if err != nil {
		return Result{Output: "Error: " + err.Error()}, nil
	}
	if d == "" {
		return Result{Output: "The files are as they were before the session changed them."}, nil
	}
	return Result{Output: d, Diff: true}, nil
}
