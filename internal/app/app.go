// Package app is ikigai's command line: a thin shell over the packages
// that find, describe and run tools. New builds the whole command tree, so
// commands can be added in one place.
package app

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/ikigai-tools/ikigai/internal/buildinfo"
	"github.com/ikigai-tools/ikigai/internal/config"
	"github.com/ikigai-tools/ikigai/internal/discovery"
	"github.com/ikigai-tools/ikigai/internal/trust"
	"github.com/urfave/cli/v2"
)

// New returns the ikigai command line application.
func New() *cli.App {
	app := &cli.App{
		Name:                 "ikigai",
		Usage:                "a terminal LLM agent whose every tool is an external executable",
		Version:              buildinfo.Version,
		EnableBashCompletion: true,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "trust", Usage: "use the working directory's .ikigai tools and configuration for this run, without trusting it for good"},
			&cli.PathFlag{Name: "libexec-dir", Usage: "look for the system tools in `DIR`", EnvVars: []string{"IKIGAI_LIBEXEC_DIR"}},
			// Its variable is read with the configuration, which reports a
			// bad value the way it reports any other.
			&cli.Float64Flag{Name: "tool-timeout", Usage: "stop a tool call after `SECONDS`; also IKIGAI_TOOL_TIMEOUT_SECONDS", DefaultText: "configured, else 30"},
			&cli.BoolFlag{Name: "debug", Usage: "add discovery's and the MCP servers' events to the log"},
		},
		ArgsUsage: "[PROMPT]",
		Action:    runAgent,
		Commands: []*cli.Command{
			toolsCommand(),
			sessionsCommand(),
			mcpCommand(),
			statsCommand(),
			trustCommand(),
			completionCommand(),
			versionCommand(),
		},
		ExitErrHandler: exitError,
		OnUsageError:   usageError,
	}
	app.Flags = append(app.Flags, agentFlags()...)
	setUsageError(app.Commands)
	return app
}

// usageError reports a command line ikigai cannot parse in one line, with
// exit status 2, instead of the whole help.
func usageError(c *cli.Context, err error, _ bool) error {
	name := c.App.HelpName
	if c.Command != nil && c.Command.HelpName != "" {
		name = c.Command.HelpName
	}
	return cli.Exit(fmt.Sprintf("%v (see %s --help)", err, name), 2)
}

func setUsageError(cmds []*cli.Command) {
	for _, cmd := range cmds {
		cmd.OnUsageError = usageError
		setUsageError(cmd.Subcommands)
	}
}

func init() {
	// --version prints what the version command does.
	cli.VersionPrinter = func(c *cli.Context) { fmt.Fprintln(c.App.Writer, "ikigai", c.App.Version) }
}

// exitError prints an error the way every command does: one "ikigai: "
// line per problem, exit status 1 unless the error carries its own.
func exitError(c *cli.Context, err error) {
	if err == nil {
		return
	}
	var coder cli.ExitCoder
	code := 1
	if errors.As(err, &coder) {
		code = coder.ExitCode()
	}
	if msg := err.Error(); msg != "" {
		fmt.Fprintln(c.App.ErrWriter, "ikigai: "+msg)
	}
	cli.OsExiter(code)
}

// silent is an exit status whose reason was already printed.
func silent(code int) error { return cli.Exit("", code) }

// env is where a command runs: its settings and the tool directories.
type env struct {
	cfg     *config.Config
	dirs    discovery.Dirs
	home    string
	cwd     string // the working directory, as trust.Canonical has it
	project string // the working directory's .ikigai, "" in the home directory
	stdout  io.Writer
}

// load reads the configuration and decides the directories and trust, as
// every command that deals with tools needs.
func load(c *cli.Context) (*env, error) {
	e := &env{cfg: config.Default(), stdout: c.App.Writer}
	e.home, _ = os.UserHomeDir()
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	if cwd, err = trust.Canonical(cwd, e.home); err != nil {
		return nil, err
	}
	e.cwd = cwd
	user := ""
	if e.home != "" {
		user = filepath.Join(e.home, ".ikigai")
	}
	// In the home directory, .ikigai is the user's own, not a project's.
	if project := filepath.Join(cwd, ".ikigai"); !sameDir(project, user) {
		e.project = project
	}

	var errs []error
	system := config.SystemFile(os.Getenv)
	errs = append(errs, e.cfg.ReadFile(system, system, config.System))
	if user != "" {
		errs = append(errs, e.cfg.ReadFile(filepath.Join(user, "config.json"), "~/.ikigai/config.json", config.User))
	}
	trusted, err := e.trusted(c, cwd)
	errs = append(errs, err)
	if trusted && e.project != "" {
		errs = append(errs, e.cfg.ReadFile(filepath.Join(e.project, "config.json"), ".ikigai/config.json", config.Project))
	}
	errs = append(errs, e.cfg.ReadEnv(os.Getenv))
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if c.IsSet("tool-timeout") {
		s := c.Float64("tool-timeout")
		if !(s > 0) {
			return nil, fmt.Errorf("--tool-timeout: want a number of seconds above 0, got %v", s)
		}
		e.cfg.ToolTimeout = time.Duration(s * float64(time.Second))
	}

	e.dirs = discovery.Dirs{System: discovery.SystemDir(c.Path("libexec-dir")), TrustProject: trusted, SchemaTimeout: e.cfg.SchemaTimeout}
	if user != "" {
		e.dirs.User = filepath.Join(user, "tools")
	}
	if e.project != "" {
		e.dirs.Project = filepath.Join(e.project, "tools")
	}
	return e, nil
}

// trusted reports whether the project in dir may run: --trust, a trusted
// directory in the configuration, or one the user trusted before.
func (e *env) trusted(c *cli.Context, dir string) (bool, error) {
	if c.Bool("trust") {
		return true, nil
	}
	if e.project == "" {
		return false, nil
	}
	if _, err := os.Stat(e.project); err != nil {
		return false, nil // no project to trust: spare reading the store
	}
	for _, d := range e.cfg.TrustedDirectories {
		if d, err := trust.Canonical(d, e.home); err == nil && d == dir {
			return true, nil
		}
	}
	if e.home == "" {
		return false, nil
	}
	return trustStore(e.home).Contains(dir)
}

// trustStore is where the directories a user trusts are remembered.
func trustStore(home string) *trust.Store {
	return trust.At(filepath.Join(home, ".ikigai", "trusted.json"))
}

func sameDir(a, b string) bool {
	if a == b {
		return true
	}
	ai, err1 := os.Stat(a)
	bi, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ai, bi)
}

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print ikigai's version",
		Action: func(c *cli.Context) error {
			fmt.Fprintln(c.App.Writer, "ikigai", buildinfo.Version)
			return nil
		},
	}
}
