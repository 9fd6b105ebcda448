// Package workspace is where ikigai runs: the files and directories it
// reads and keeps (Layout), the settings in force and whether the
// project's own tools and settings may be used (Workspace), and what a
// conversation uses once started (Host): the tools and the model, found in
// the background, the call log and the MCP servers.
//
// Everything is built from explicit Inputs (the home and working
// directories, the environment), never from the process's own state, so
// that each rule is tested here rather than only through the command line.
package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/ikigai-tools/ikigai/internal/instructions"
	"github.com/ikigai-tools/ikigai/internal/trust"
)

// Inputs are what a workspace is built from.
type Inputs struct {
	// Home is the user's home directory; "" when it is not known, which
	// leaves ikigai without the user's settings, tools and trust.
	Home string
	// Dir is the working directory.
	Dir string
	// Getenv reads the environment; nil reads nothing.
	Getenv func(string) string
}

func (in Inputs) getenv(key string) string {
	if in.Getenv == nil {
		return ""
	}
	return in.Getenv(key)
}

// Layout names every file and directory ikigai reads or keeps. A path is ""
// when what it lives under is unknown (no home directory).
type Layout struct {
	// Home is the user's home directory.
	Home string
	// Dir is the working directory in its canonical form (absolute, with
	// symbolic links resolved), as trust.Canonical gives it: the one name
	// sessions, trust and the system prompt use.
	Dir string
	// Root is the root of the repository the working directory is in (the
	// nearest directory holding .git, the working directory included), or
	// the working directory when it is in none.
	Root string
	// User is the user's own .ikigai directory, ~/.ikigai.
	User string
	// Project is the project's .ikigai directory: the nearest one from the
	// working directory up to Root, else the working directory's (which
	// need not exist); "" when that is the user's own (ikigai run in the
	// home directory).
	Project string
	// State holds what ikigai keeps between runs: sessions, the call log,
	// the prompt history. $XDG_STATE_HOME/ikigai, else
	// ~/.local/state/ikigai.
	State string
	// Cache holds what can be worked out again: the tools' schemas.
	// $XDG_CACHE_HOME/ikigai, else ~/.cache/ikigai.
	Cache string
}

// NewLayout works out the layout for in.
func NewLayout(in Inputs) (Layout, error) {
	dir, err := trust.Canonical(in.Dir, in.Home)
	if err != nil {
		return Layout{}, err
	}
	l := Layout{Home: in.Home, Dir: dir, Root: repositoryRoot(dir)}
	if in.Home != "" {
		l.User = filepath.Join(in.Home, ".ikigai")
	}
	l.Project = filepath.Join(dir, ".ikigai")
	for _, d := range l.Path() {
		if isDir(filepath.Join(d, ".ikigai")) {
			l.Project = filepath.Join(d, ".ikigai")
			break
		}
	}
	// In the home directory, .ikigai is the user's own, not a project's.
	if sameDir(l.Project, l.User) {
		l.Project = ""
	}
	switch state := in.getenv("XDG_STATE_HOME"); {
	case filepath.IsAbs(state):
		l.State = filepath.Join(state, "ikigai")
	case in.Home != "":
		l.State = filepath.Join(in.Home, ".local", "state", "ikigai")
	}
	switch cache := in.getenv("XDG_CACHE_HOME"); {
	case filepath.IsAbs(cache):
		l.Cache = filepath.Join(cache, "ikigai")
	case in.Home != "":
		l.Cache = filepath.Join(in.Home, ".cache", "ikigai")
	}
	return l, nil
}

// repositoryRoot returns the nearest directory from dir up that holds
// .git (a directory, or the file of a worktree), else dir.
func repositoryRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// Path returns the directories from the working directory up to Root, the
// working directory first.
func (l Layout) Path() []string {
	dirs := []string{l.Dir}
	for d := l.Dir; d != l.Root; {
		d = filepath.Dir(d)
		dirs = append(dirs, d)
		if d == filepath.Dir(d) {
			break
		}
	}
	return dirs
}

// ProjectDir is the directory whose .ikigai is the project's: the one a
// user trusts.
func (l Layout) ProjectDir() string {
	if l.Project == "" {
		return l.Dir
	}
	return filepath.Dir(l.Project)
}

// Instructions are the instruction files that may guide the model, in the
// order the system prompt takes them: the user's own, which applies to
// every project, then the project's from its root down to the working
// directory, so that nearer files come later.
func (l Layout) Instructions() []instructions.File {
	var files []instructions.File
	if l.User != "" {
		files = append(files, instructions.File{Root: l.Home, Name: filepath.Join(".ikigai", instructions.FileName),
			Title: "Your instructions, from ~/.ikigai/" + instructions.FileName})
	}
	path := l.Path()
	for i := len(path) - 1; i >= 0; i-- {
		name, _ := filepath.Rel(l.Root, filepath.Join(path[i], instructions.FileName))
		files = append(files, instructions.File{Root: l.Root, Name: name, Title: "The project's instructions, from " + name})
	}
	return files
}

// under joins name to dir, unless dir is unknown.
func under(dir string, name ...string) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(append([]string{dir}, name...)...)
}

// UserConfig is the user's configuration file.
func (l Layout) UserConfig() string { return under(l.User, "config.json") }

// UserTools is the directory of the user's own tools.
func (l Layout) UserTools() string { return under(l.User, "tools") }

// UserSkills is the directory of the user's own skills.
func (l Layout) UserSkills() string { return under(l.User, "skills") }

// UserHooks is the directory of the user's own hooks.
func (l Layout) UserHooks() string { return under(l.User, "hooks") }

// UserCommands is the directory of the user's own custom commands.
func (l Layout) UserCommands() string { return under(l.User, "commands") }

// TrustFile is where the directories the user trusts, or declined to, are
// remembered.
func (l Layout) TrustFile() string { return under(l.User, "trusted.json") }

// ProjectConfig is the project's configuration file.
func (l Layout) ProjectConfig() string { return under(l.Project, "config.json") }

// ProjectTools is the directory of the project's tools.
func (l Layout) ProjectTools() string { return under(l.Project, "tools") }

// ProjectSkills is the directory of the project's skills.
func (l Layout) ProjectSkills() string { return under(l.Project, "skills") }

// ProjectHooks is the directory of the project's hooks.
func (l Layout) ProjectHooks() string { return under(l.Project, "hooks") }

// ProjectCommands is the directory of the project's custom commands.
func (l Layout) ProjectCommands() string { return under(l.Project, "commands") }

// ProjectHookAndCommandFiles lists what the project's hooks and custom
// commands are made of, sorted: every entry of its hooks and commands
// directories but subdirectories (a symbolic link as itself; its target is
// what runs). Trusting the project vouches for them as for its tools and
// configuration, so a change to any of them is a change to what was
// trusted.
func (l Layout) ProjectHookAndCommandFiles() []string {
	var files []string
	for _, dir := range []string{l.ProjectHooks(), l.ProjectCommands()} {
		if dir == "" {
			continue
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if !e.IsDir() {
				files = append(files, filepath.Join(dir, e.Name()))
			}
		}
	}
	return files
}

// Sessions is the directory saved conversations are kept in.
func (l Layout) Sessions() string { return under(l.State, "sessions") }

// LogDir is the directory of the call log.
func (l Layout) LogDir() string { return l.State }

// Checkpoints is where the shadow repositories of the sessions' files go.
func (l Layout) Checkpoints() string { return under(l.State, "checkpoints") }

// SchemaCache is the file the tools' schemas are remembered in.
func (l Layout) SchemaCache() string { return under(l.Cache, "schemas.json") }

// MCPAuthFile keeps remote MCP servers' OAuth tokens, from ikigai mcp
// login.
func (l Layout) MCPAuthFile() string { return under(l.State, "mcp-auth.json") }

// History is the file of prompts typed at the terminal.
func (l Layout) History() string { return under(l.State, "history") }

// HasProject reports whether the working directory has a .ikigai of its
// own, or a .mcp.json (Claude Code's project file) where it would be.
func (l Layout) HasProject() bool {
	if l.Project == "" {
		return false
	}
	if _, err := os.Stat(l.Project); err == nil {
		return true
	}
	_, err := os.Stat(l.ProjectMCP())
	return err == nil
}

// ProjectMCP is the project's .mcp.json, Claude Code's list of the
// project's MCP servers, read when the project is trusted.
func (l Layout) ProjectMCP() string {
	if l.Project == "" {
		return ""
	}
	return filepath.Join(l.ProjectDir(), ".mcp.json")
}

func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}

func sameDir(a, b string) bool {
	if a == b {
		return true
	}
	ai, err1 := os.Stat(a)
	bi, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ai, bi)
}

// TrustDirectory trusts dir (relative to the working directory, or from
// ~/) for good, as it is now, and returns what to tell the user. A
// directory that is another user's, or holds ikigai files of another
// user's, is trusted only with force, as git's safe.directory has it.
func (l Layout) TrustDirectory(dir string, force bool) (string, error) {
	store, dir, err := l.trustTarget(dir)
	if err != nil {
		return "", err
	}
	info, err := os.Stat(dir)
	if err != nil || !info.IsDir() {
		return "", fmt.Errorf("%s is not a directory", dir)
	}
	pins, problems, err := trust.Scan(dir, nil, force)
	if err != nil {
		return "", err
	}
	if st, ok := info.Sys().(*syscall.Stat_t); ok && st.Uid != uint32(os.Geteuid()) && !force {
		problems = append([]trust.Change{{Path: ".", Kind: trust.Foreign}}, problems...)
	}
	if len(problems) > 0 {
		var lines []string
		for _, c := range problems {
			lines = append(lines, "  "+c.String())
		}
		return "", fmt.Errorf("not trusting %s: another user could have put code there:\n%s\n(ikigai trust --force trusts it anyway)", dir, strings.Join(lines, "\n"))
	}
	if err := store.Add(dir, pins, force); err != nil {
		return "", err
	}
	return fmt.Sprintf("Trusted: %s\nikigai now uses its .ikigai (tools, settings, hooks, commands, skills) and starts the MCP servers of its .mcp.json; if they change, it asks again.", dir), nil
}

// TrustDiff returns how the trusted directory dir changed since the user
// trusted it; nil when it is as trusted.
func (l Layout) TrustDiff(dir string) ([]trust.Change, bool, error) {
	store, dir, err := l.trustTarget(dir)
	if err != nil {
		return nil, false, err
	}
	listed, err := store.Contains(dir)
	if err != nil || !listed {
		return nil, false, err
	}
	_, changes, err := store.Verify(dir)
	return changes, true, err
}

// UntrustDirectory stops trusting dir, and returns what to tell the user.
func (l Layout) UntrustDirectory(dir string) (string, error) {
	store, dir, err := l.trustTarget(dir)
	if err != nil {
		return "", err
	}
	removed, err := store.Remove(dir)
	switch {
	case err != nil:
		return "", err
	case !removed:
		return dir + " was not trusted", nil
	}
	return "No longer trusted: " + dir, nil
}

// trustTarget returns the trust store and dir in the form it is trusted
// under.
func (l Layout) trustTarget(dir string) (*trust.Store, string, error) {
	if l.User == "" {
		return nil, "", errors.New("no home directory to keep the trusted directories in")
	}
	if dir == "" {
		dir = l.ProjectDir()
	} else if !filepath.IsAbs(dir) && dir != "~" && !strings.HasPrefix(dir, "~/") {
		dir = filepath.Join(l.Dir, dir)
	}
	dir, err := trust.Canonical(dir, l.Home)
	return trust.At(l.TrustFile()), dir, err
}
