package app

import (
	"bufio"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/ikigai-tools/ikigai/internal/repl"
	"github.com/ikigai-tools/ikigai/internal/session"
	"github.com/ikigai-tools/ikigai/internal/tui"
	"github.com/urfave/cli/v2"
)

// interactive talks with the user: in the terminal UI when stdin and
// stdout are terminals, else one prompt per line of stdin.
func interactive(c *cli.Context) error {
	e, err := load(c)
	if err != nil {
		return err
	}
	terminal := isTerminal(os.Stdin) && isTerminal(os.Stdout)
	if terminal {
		if e, err = e.askTrust(c); err != nil || e == nil {
			return err
		}
	}
	w, err := e.start(c.Context, c)
	if err != nil {
		return err
	}
	defer w.close()
	s, err := w.shell(c)
	if err != nil {
		return err
	}
	first := strings.Join(c.Args().Slice(), " ")
	if !terminal {
		return plain(c, s, first)
	}
	history := ""
	if e.home != "" {
		history = filepath.Join(filepath.Dir(session.Dir(os.Getenv, e.home)), "history")
	}
	return tui.Run(c.Context, s, tui.Options{History: history, Prompt: first})
}

// askTrust asks, once per directory, whether to trust a project directory
// that holds its own tools or settings, before anything of it runs. It
// returns the environment to go on with: reloaded when the answer is yes,
// nil when the user would rather leave.
func (e *env) askTrust(c *cli.Context) (*env, error) {
	if e.project == "" || e.dirs.TrustProject || e.home == "" { // no home, nowhere to remember an answer
		return e, nil
	}
	if _, err := os.Stat(e.project); err != nil {
		return e, nil
	}
	store := trustStore(e.home)
	if declined, err := store.Declined(e.cwd); err != nil || declined {
		return e, err
	}
	question := fmt.Sprintf("%s has its own ikigai tools or settings (.ikigai): programs that would run on your machine.\n"+
		"Trust this directory?", e.cwd)
	answer, err := tui.Choose(c.App.Writer, question, []tui.Choice{
		{Key: "y", Label: "yes, and remember"},
		{Key: "o", Label: "only this time"},
		{Key: "n", Label: "no, and do not ask again (ikigai trust changes that)"},
	})
	switch {
	case err != nil:
		return nil, err
	case answer == "":
		return nil, nil
	case answer == "n":
		return e, store.Decline(e.cwd)
	case answer == "y":
		if err := store.Add(e.cwd); err != nil {
			return nil, err
		}
	}
	// Trusted: read the project's settings too.
	if err := c.Set("trust", "true"); err != nil {
		return nil, err
	}
	return load(c)
}

// plain is the line mode for scripts: each line of stdin is a prompt (or a
// command) in one conversation, the answers on stdout, tool activity on
// stderr, and no questions: what would need approval is refused. It stops
// at the first prompt that fails.
func plain(c *cli.Context, s *repl.Shell, first string) error {
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	stdout, stderr := c.App.Writer, c.App.ErrWriter
	for _, note := range s.DiscoveryNotes(ctx) {
		fmt.Fprintln(stderr, note)
	}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(nil, maxPromptInput)
	next := func() (string, bool) {
		if first != "" {
			line := first
			first = ""
			return line, true
		}
		if !sc.Scan() {
			return "", false
		}
		return strings.ToValidUTF8(sc.Text(), "\uFFFD"), true
	}
	for {
		line, ok := next()
		if !ok {
			break
		}
		out := &textReporter{stderr: stderr}
		s.Observe = out.event
		res, err := s.Handle(ctx, line)
		if res.Output != "" {
			fmt.Fprintln(stdout, res.Output)
		}
		for _, w := range res.Warnings {
			fmt.Fprintln(stderr, w)
		}
		if err != nil {
			return out.fail(err)
		}
		if res.Outcome != nil {
			// At the limit, the tool turns taken are the limit.
			out.finish(stdout, res.Outcome, res.Outcome.ToolTurns)
		}
		if res.Quit {
			return nil
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading stdin: %w", err)
	}
	return nil
}
