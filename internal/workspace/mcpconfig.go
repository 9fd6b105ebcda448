package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ikigai-tools/ikigai/internal/config"
	"github.com/ikigai-tools/ikigai/internal/mcp"
	"github.com/ikigai-tools/ikigai/internal/trust"
)

// serverFile is the file ikigai mcp add and remove edit: the user's
// configuration, or with project the project's .mcp.json.
func (w *Workspace) serverFile(project bool) (path, name string, err error) {
	if project {
		if w.Project == "" {
			return "", "", errors.New("no project here: the working directory is the home directory")
		}
		return w.ProjectMCP(), ".mcp.json", nil
	}
	if w.User == "" {
		return "", "", errors.New("no home directory: no user configuration to edit")
	}
	return w.UserConfig(), "~/.ikigai/config.json", nil
}

// AddMCPServer adds the server to the user's configuration, or with
// project to the project's .mcp.json, and returns the file's path. The
// rest of the file is kept byte for byte.
func (w *Workspace) AddMCPServer(project bool, name string, e config.ServerEntry) (string, error) {
	key := "mcp_servers"
	if project {
		key = "mcpServers"
	}
	return w.editServers(project, func(data []byte) ([]byte, error) { return config.AddServer(data, key, name, e) })
}

// RemoveMCPServer removes the server from the user's configuration, or
// with project from the project's .mcp.json, and returns the file's path.
// Once no server of that name is configured anywhere, the OAuth logins
// kept for it are forgotten too, and forgot says whether there were any.
func (w *Workspace) RemoveMCPServer(project bool, name string) (path string, forgot bool, err error) {
	path, err = w.editServers(project, func(data []byte) ([]byte, error) { return config.RemoveServer(data, name) })
	if errors.Is(err, config.ErrNoServer) {
		where := "~/.ikigai/config.json"
		if project {
			where = ".mcp.json"
		}
		err = fmt.Errorf("%s has no MCP server %q", where, name)
		if !project && w.hasServer(true, name) {
			err = fmt.Errorf("%w; .mcp.json has one: ikigai mcp remove --project %s", err, name)
		}
	}
	if err != nil {
		return path, false, err
	}
	after, err := Load(w.in, w.opts)
	if err != nil {
		return path, false, nil // who else may use the login cannot be told: it stays
	}
	if _, ok := after.Config.MCPServers[name]; ok || w.hasServer(!project, name) {
		return path, false, nil // another server of that name may use the login
	}
	forgot, err = mcp.ForgetLogins(w.MCPAuthFile(), name)
	return path, forgot, err
}

// UnreadMCPFile says why the project's .mcp.json is not read, and what to
// do, when it has one and is not trusted; "" otherwise.
func (w *Workspace) UnreadMCPFile() string {
	if w.Trusted || !w.HasProject() {
		return ""
	}
	if _, err := os.Stat(w.ProjectMCP()); err != nil {
		return ""
	}
	if len(w.TrustChanges) > 0 {
		return "The project's .mcp.json is not read: the project changed since you trusted it (ikigai trust --diff shows how; ikigai trust trusts it again)."
	}
	return "The project's .mcp.json is not read: the directory is not trusted (ikigai trust, or --trust for one run)."
}

// hasServer reports whether the user's configuration, or with project the
// project's .mcp.json, holds a server called name.
func (w *Workspace) hasServer(project bool, name string) bool {
	path, _, err := w.serverFile(project)
	if err != nil || path == "" {
		return false
	}
	data, err := os.ReadFile(path)
	return err == nil && config.HasServer(data, name)
}

// editServers edits the file of servers with edit; the result must be a
// valid file before it replaces the old one. A project that was trusted
// as it was stays trusted with the new .mcp.json.
func (w *Workspace) editServers(project bool, edit func([]byte) ([]byte, error)) (string, error) {
	path, name, err := w.serverFile(project)
	if err != nil {
		return "", err
	}
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return path, err
	}
	mode := fs.FileMode(0o644)
	if info, err := os.Stat(path); err == nil {
		mode = info.Mode().Perm()
	}
	out, err := edit(data)
	if err != nil {
		return path, fmt.Errorf("%s: %w", name, err)
	}
	scope := config.User
	if err := config.Check(out, name, scope, project); err != nil {
		return path, fmt.Errorf("the edited file would not be valid, so it is left as it was: %w", err)
	}
	var repin bool
	if project && w.User != "" {
		trusted, changes, err := w.TrustStore().Verify(w.ProjectDir())
		repin = err == nil && trusted && len(changes) == 0
	}
	if err := writeFile(path, out, mode); err != nil {
		return path, err
	}
	if repin {
		pins, _, err := trust.Scan(w.ProjectDir(), nil, false)
		if err == nil {
			err = w.TrustStore().Add(w.ProjectDir(), pins, false)
		}
		if err != nil {
			return path, fmt.Errorf("written, but the project's trust could not be renewed: %w", err)
		}
	}
	return path, nil
}

// writeFile replaces the file at path with data, at once: a reader sees
// the old file or the new one, never a part.
func writeFile(path string, data []byte, mode fs.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Chmod(mode)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

// LoginMCP logs in to the remote MCP server called name with OAuth; show
// is given the URL to open in a browser.
func (w *Workspace) LoginMCP(ctx context.Context, name string, show func(url string)) error {
	s, ok := w.Config.MCPServers[name]
	if !ok {
		return fmt.Errorf("no MCP server %q in the configuration", name)
	}
	s, err := s.Expanded(config.LookupEnv, w.Home)
	if err != nil {
		return err
	}
	s.AuthFile = w.MCPAuthFile()
	return mcp.Login(ctx, name, s, show)
}
