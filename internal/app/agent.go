package app

import (
	"fmt"
	"os/signal"
	"strings"

	"github.com/ikigai-tools/ikigai/internal/agent"
	"github.com/ikigai-tools/ikigai/internal/app/command"
	"github.com/ikigai-tools/ikigai/internal/cmdline"
	"github.com/ikigai-tools/ikigai/internal/display"
	"github.com/ikigai-tools/ikigai/internal/prompt"
	"github.com/ikigai-tools/ikigai/internal/repl"
	"github.com/ikigai-tools/ikigai/internal/tui"
	"github.com/ikigai-tools/ikigai/internal/workspace"
	"github.com/urfave/cli/v2"
)

// agentFlags are the root command's flags for talking to a model.
func agentFlags() []cli.Flag {
	return []cli.Flag{
		&cli.BoolFlag{Name: "print", Aliases: []string{"p"}, Usage: "answer PROMPT (or the prompt on stdin) once and exit: the answer on stdout, tool activity on stderr"},
		&cli.BoolFlag{Name: "json", Usage: "with -p, print one JSON event per line on stdout instead, for scripts"},
		&cli.StringFlag{Name: "provider", Usage: "the model API: anthropic, openai, openai-compatible or google; also IKIGAI_PROVIDER", DefaultText: "configured, else chosen from the API keys set"},
		&cli.StringFlag{Name: "model", Usage: "the model to use; also IKIGAI_MODEL", DefaultText: "configured, else the provider's default"},
		&cli.StringFlag{Name: "reasoning", Usage: "how much the model thinks before it answers: off, low, medium or high; also IKIGAI_REASONING", DefaultText: "configured, else the model's default"},
		&cli.StringFlag{Name: "base-url", Usage: "the API's base `URL`: a proxy, or an OpenAI-compatible server; also IKIGAI_BASE_URL"},
		&cli.StringFlag{Name: "approval", Usage: "when to ask before a tool runs: ask, auto, read-only or sandboxed; also IKIGAI_APPROVAL", DefaultText: "configured, else ask"},
		&cli.StringSliceFlag{Name: "allow-tool", Usage: "let calls the `RULE` covers run without asking, for this run: bash(go test *), file_write(src/**)"},
		&cli.StringSliceFlag{Name: "deny-tool", Usage: "refuse calls the `RULE` covers, for this run"},
		&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "run every tool without asking (--approval auto)"},
		&cli.StringFlag{Name: "sandbox", Usage: "confine every tool call: off, read-only or workspace-write; also IKIGAI_SANDBOX", DefaultText: "configured, else off"},
		&cli.IntFlag{Name: "max-tool-turns", Usage: "stop after the model has called tools `N` times in a row; also IKIGAI_MAX_TOOL_TURNS",
			DefaultText: fmt.Sprintf("configured, else %d", agent.DefaultMaxToolTurns)},
		&cli.BoolFlag{Name: "continue", Aliases: []string{"c"}, Usage: "go on with the latest conversation held in this directory"},
		&cli.StringFlag{Name: "resume", Aliases: []string{"r"}, Usage: "go on with the saved conversation `ID` (ikigai sessions lists them)"},
	}
}

// runAgent is what ikigai does without a command: answer a prompt with -p,
// else talk with the user.
func runAgent(c *cli.Context) error {
	words, marked := cmdline.Prompt(c.Args().Slice())
	if len(words) == 1 && !marked {
		if cmd := cmdline.Suggest(c.App.Commands, words[0]); cmd != "" {
			return command.Usage("%q is not a command; did you mean `%s`? (to send it to the model as a prompt: ikigai -- %s)", words[0], cmd, words[0])
		}
	}
	text := strings.Join(words, " ")
	switch {
	case c.Bool("continue") && c.IsSet("resume"):
		return command.Usage("--continue and --resume cannot go together")
	case c.Bool("print"):
		return oneShot(c, text)
	case c.Bool("json"):
		return command.Usage("--json goes with -p (ikigai -p --json PROMPT)")
	}
	return interactive(c, text)
}

// resume is the conversation the flags say to go on with.
func resume(c *cli.Context) workspace.Resume {
	return workspace.Resume{Latest: c.Bool("continue"), ID: c.String("resume")}
}

// oneShot answers one prompt without asking the user anything: tools that
// would need approval are refused unless --yes or the configuration allows
// them.
func oneShot(c *cli.Context, text string) error {
	in := prompt.Input{Args: text, Stdin: c.App.Reader, StdinIsTerminal: command.IsTerminal(c.App.Reader)}
	p, err := prompt.Read(in)
	if err != nil {
		return command.Usage("%v", err)
	}
	ctx, stop := signal.NotifyContext(c.Context, command.Signals...)
	defer stop()

	var rep agent.Reporter = display.NewProgress(command.TerminalSafe(c.App.Writer), command.TerminalSafe(c.App.ErrWriter))
	if c.Bool("json") {
		rep = agent.NewJSONEvents(c.App.Writer)
	}
	w, err := command.Load(c)
	if err != nil {
		rep.Fail(err)
		return command.Failure(err)
	}
	outcome, err := w.Start(ctx, command.OpenLog(c, w)).Ask(ctx, resume(c), p, rep)
	if err != nil {
		return command.Failure(err)
	}
	if outcome.LimitReached {
		return command.Silent(command.ExitTurnLimit)
	}
	return nil
}

// interactive talks with the user: in the terminal UI when stdin and
// stdout are terminals, else one prompt per line of stdin.
func interactive(c *cli.Context, first string) error {
	w, err := command.Load(c)
	if err != nil {
		return err
	}
	terminal := command.IsTerminal(c.App.Reader) && command.IsTerminal(c.App.Writer)
	if terminal {
		if w, err = askTrust(c, w); err != nil || w == nil {
			return err
		}
	}
	h := w.Start(c.Context, command.OpenLog(c, w))
	defer h.Close()
	s, err := h.Shell(resume(c))
	if err != nil {
		return err
	}
	if !terminal {
		return plain(c, s, first)
	}
	return tui.Run(c.Context, s, tui.Options{History: w.History(), Prompt: first, Home: w.Home, Markdown: w.MarkdownHelper()})
}

// askTrust asks, once per directory, whether to trust a project directory
// that holds its own tools or settings, before anything of it runs. It
// returns the workspace to go on with: reloaded when the answer is yes,
// nil when the user would rather leave.
func askTrust(c *cli.Context, w *workspace.Workspace) (*workspace.Workspace, error) {
	if ask, err := w.ShouldAskTrust(); err != nil || !ask {
		return w, err
	}
	answer, err := tui.Choose(c.App.Writer, w.TrustQuestion(), []tui.Choice{
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
		return w, w.Decline()
	}
	return w.Trust(answer == "y")
}

// plain is the line mode for scripts: each line of stdin is a prompt (or a
// command) in one conversation, the answers on stdout, tool activity on
// stderr, and no questions: what would need approval is refused.
func plain(c *cli.Context, s *repl.Shell, first string) error {
	ctx, stop := signal.NotifyContext(c.Context, command.Signals...)
	defer stop()
	err := s.RunLines(ctx, prompt.Lines(first, c.App.Reader), command.TerminalSafe(c.App.Writer), command.TerminalSafe(c.App.ErrWriter))
	return command.Failure(err)
}
