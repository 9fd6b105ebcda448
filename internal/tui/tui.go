// Package tui is ikigai's terminal UI: an editable prompt with history,
// the model's answer streaming in, tool calls and their results as they
// happen, questions before a tool may run, and Ctrl-C to cancel. It runs
// inline, not on the alternate screen: the conversation goes into the
// terminal's own scrollback and stays there after ikigai exits. What a line
// does is package repl's business; this package only shows it.
package tui

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"

	tea "charm.land/bubbletea/v2"
	"github.com/ikigai-tools/ikigai/internal/agent"
	"github.com/ikigai-tools/ikigai/internal/approval"
	"github.com/ikigai-tools/ikigai/internal/repl"
)

// Options configure Run.
type Options struct {
	// History is the file the prompt's history is kept in; "" keeps it
	// for this run only.
	History string
	// Prompt, if set, is sent as soon as the UI is up.
	Prompt string
	// Home is the user's home directory, which approval rules may name
	// as ~.
	Home string
	// Markdown is the path of the ikigai-markdown helper that renders the
	// model's answers; "" shows them as the model wrote them.
	Markdown string
}

// Run runs the terminal UI on shell until the user quits. It sets the
// shell's Observe, Asker and Keys.
func Run(ctx context.Context, shell *repl.Shell, opts Options) error {
	m := newModel(ctx, shell, loadHistory(opts.History), nil)
	m.markdown = opts.Markdown
	if conv := shell.Conversation(); opts.Markdown != "" && len(conv) > 0 {
		m.resumed = conv // shown once the renderer is ready
	} else {
		m.out = replay(conv, nil)
	}
	if opts.Prompt != "" {
		m.input.SetValue(opts.Prompt)
		m.pending = true
	}
	// The UI handles the signals itself: whatever runs is cancelled, and
	// its tools stopped, before ikigai leaves.
	p := tea.NewProgram(m, tea.WithContext(ctx), tea.WithoutSignalHandler())

	shell.Keys = Keys
	shell.Observe = func(e agent.Event) { p.Send(eventMsg(e)) }
	// What the user answered "always" to, as the narrowest rules that
	// cover it; the model stores them when the answer comes.
	m.session = &approval.Session{Dir: shell.Dir, Home: opts.Home}
	shell.Asker = approval.AskerFunc(func(ctx context.Context, req approval.Request) (approval.Answer, error) {
		if m.session.Allows(req) {
			return approval.Answer{Yes: true}, nil
		}
		reply := make(chan answer, 1)
		p.Send(askMsg{req: req, text: shell.Question(ctx, req), reply: reply})
		select {
		case a := <-reply:
			return approval.Answer{Yes: a.yes, Why: a.why}, nil
		case <-ctx.Done():
			return approval.Answer{}, ctx.Err()
		}
	})

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sig)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		select {
		case <-sig:
			p.Send(quitMsg{})
		case <-stop:
		}
	}()

	_, err := p.Run()
	m.md.Close()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}
