package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ikigai-tools/ikigai/internal/fserr"
)

// Expanded returns the server with ${VAR}, ${VAR:-default} and a leading
// ~/ expanded in its command, args, env, cwd, url and headers, as Claude
// Code does: getenv gives the variables, home the home directory. A
// variable that is unset, with no default, is an error naming it, so
// that the server fails to start saying why rather than with a part of
// its command missing.
func (s MCPServer) Expanded(getenv func(string) (string, bool), home string) (MCPServer, error) {
	var missing []string
	expand := func(v string) string {
		out, m := expandVars(v, getenv)
		missing = append(missing, m...)
		return out
	}
	path := func(v string) string {
		v = expand(v)
		if home != "" && (v == "~" || strings.HasPrefix(v, "~/")) {
			v = filepath.Join(home, v[1:])
		}
		return v
	}
	out := s
	out.Command = path(s.Command)
	out.Args = nil
	for _, a := range s.Args {
		out.Args = append(out.Args, path(a))
	}
	out.Cwd = path(s.Cwd)
	out.URL = expand(s.URL)
	out.Env = expandMap(s.Env, path)
	out.Headers = expandMap(s.Headers, expand)
	if len(missing) > 0 {
		slices.Sort(missing)
		missing = slices.Compact(missing)
		if len(missing) > 1 {
			return s, fmt.Errorf("environment variables %s are not set", strings.Join(missing, ", "))
		}
		return s, fmt.Errorf("environment variable %s is not set", missing[0])
	}
	return out, nil
}

// LookupEnv is os.LookupEnv, for Expanded.
func LookupEnv(name string) (string, bool) { return os.LookupEnv(name) }

func expandMap(m map[string]string, f func(string) string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range maps.All(m) {
		out[k] = f(v)
	}
	return out
}

// expandVars expands ${NAME} and ${NAME:-default} in s and returns the
// names of the variables that were unset with no default. A $ not
// followed by { is kept as it is: commands' own $ (a regular expression's
// anchor) pass through.
func expandVars(s string, getenv func(string) (string, bool)) (string, []string) {
	var b strings.Builder
	var missing []string
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), missing
		}
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			b.WriteString(s)
			return b.String(), missing
		}
		b.WriteString(s[:i])
		expr := s[i+2 : i+end]
		name, def, hasDef := strings.Cut(expr, ":-")
		v, ok := getenv(name)
		switch {
		case ok && (v != "" || !hasDef):
			b.WriteString(v)
		case hasDef:
			b.WriteString(def)
		default:
			missing = append(missing, name)
		}
		s = s[i+end+1:]
	}
}

// ReadMCPFile applies the servers of a project's .mcp.json, Claude Code's
// project file, at path if it exists: {"mcpServers": {...}}, each server
// as mcp_servers has it, with the limits of a project's configuration.
// name is how errors refer to the file. Other keys are errors: the file
// holds servers only, and settings belong in .ikigai/config.json.
func (c *Config) ReadMCPFile(path, name string) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, fserr.Reason(err))
	}
	return c.applyMCPFile(data, name)
}

func (c *Config) applyMCPFile(data []byte, name string) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("%s: %s", name, syntaxError(data, err))
	}
	d := &decoder{file: name, project: true}
	for _, key := range slices.Sorted(maps.Keys(doc)) {
		if key != "mcpServers" {
			d.errs = append(d.errs, fmt.Errorf("%s: unknown key %q: .mcp.json holds mcpServers only", name, key))
			continue
		}
		d.mcpServers(key, doc[key], c)
	}
	return errors.Join(d.errs...)
}

// Describe says in one line what the server is: its command line, as
// written, or its transport and URL.
func (s MCPServer) Describe() string {
	if s.URL != "" {
		t := s.Type
		if t == "" {
			t = "http"
		}
		return t + " " + s.URL
	}
	return strings.Join(append([]string{s.Command}, s.Args...), " ")
}
