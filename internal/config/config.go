// Package config reads ikigai's settings: JSON files from the system, the
// user and (in a trusted directory) the project, each overriding the one
// before key by key, then IKIGAI_* environment variables. Unknown keys and
// wrong types are errors that name the file and the key.
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ikigai-tools/ikigai/internal/buildinfo"
)

// Config is the merged settings. Zero values of Provider, Model, BaseURL and
// MaxTokens mean the provider's own default.
type Config struct {
	Provider     string // "anthropic", "openai" or "openai-compatible"
	Model        string
	BaseURL      string
	MaxTokens    int
	MaxToolTurns int
	Approval     string // "ask", "auto" or "read-only"
	Allow, Deny  []string
	// ToolTimeout applies to every tool without its own in Tools.
	ToolTimeout time.Duration
	// SchemaTimeout is how long each tool has to answer --schema.
	SchemaTimeout time.Duration
	Tools         map[string]Tool
	// TrustedDirectories may be set by the system and user files only.
	TrustedDirectories []string
	MCPServers         map[string]MCPServer
	LogMaxBytes        int64
}

// Tool holds the settings of one tool.
type Tool struct {
	Timeout time.Duration
}

// MCPServer is an MCP server whose tools are offered to the model: a
// command to start, or the URL of a streamable HTTP server.
type MCPServer struct {
	Command string
	Args    []string
	Env     map[string]string
	URL     string
	Timeout time.Duration // zero: ToolTimeout
	// StartupTimeout bounds starting the server and listing its tools;
	// zero means the MCP client's default.
	StartupTimeout time.Duration
	DisabledTools  []string
}

// MCPPrefix starts the name of every MCP server's tool: mcp--SERVER--TOOL.
const MCPPrefix = "mcp--"

// Default returns the settings before any file is read.
func Default() *Config {
	return &Config{
		MaxToolTurns:  50,
		Approval:      "ask",
		ToolTimeout:   30 * time.Second,
		SchemaTimeout: time.Second,
		LogMaxBytes:   10 << 20,
	}
}

// TimeoutFor returns how long a call of the named tool may run: its own
// timeout, else its MCP server's, else ToolTimeout.
func (c *Config) TimeoutFor(name string) time.Duration {
	if t, ok := c.Tools[name]; ok && t.Timeout > 0 {
		return t.Timeout
	}
	if s, ok := c.MCPServers[c.MCPServerOf(name)]; ok && s.Timeout > 0 {
		return s.Timeout
	}
	return c.ToolTimeout
}

// MCPServerOf returns the name of the configured MCP server the tool
// called name comes from (mcp--SERVER--TOOL), or "". Where two servers'
// names could both fit (a and a--b for mcp--a--b--c), the longer wins.
func (c *Config) MCPServerOf(name string) string {
	rest, ok := strings.CutPrefix(name, MCPPrefix)
	if !ok {
		return ""
	}
	found := ""
	for s := range c.MCPServers {
		if strings.HasPrefix(rest, s+"--") && len(s) > len(found) {
			found = s
		}
	}
	return found
}

// SystemFile returns the system configuration file: IKIGAI_SYSTEM_CONFIG if
// set, else config.json in the system configuration directory the build was
// made for.
func SystemFile(getenv func(string) string) string {
	if p := getenv("IKIGAI_SYSTEM_CONFIG"); p != "" {
		return p
	}
	return filepath.Join(buildinfo.SysconfDir, "ikigai", "config.json")
}

// Scope says which file a setting comes from; the project may not trust
// itself.
type Scope int

const (
	System Scope = iota
	User
	Project
)

// ReadFile applies the settings in the JSON file at path, if it exists.
// name is how errors refer to the file, such as "~/.ikigai/config.json".
func (c *Config) ReadFile(path, name string, scope Scope) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, unwrap(err))
	}
	return c.apply(data, name, scope)
}

func (c *Config) apply(data []byte, file string, scope Scope) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil // an empty file sets nothing
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("%s: %s", file, syntaxError(data, err))
	}
	if doc == nil {
		return fmt.Errorf("%s: want a JSON object, got null", file)
	}
	d := &decoder{file: file}
	c.set(d, doc, scope)
	return errors.Join(d.errs...)
}

// set applies doc's settings, in key order so that errors come out in a
// stable order.
func (c *Config) set(d *decoder, doc map[string]json.RawMessage, scope Scope) {
	keys := make([]string, 0, len(doc))
	for k := range doc {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, key := range keys {
		raw := doc[key]
		switch key {
		case "provider":
			d.enum(key, raw, &c.Provider, "anthropic", "openai", "openai-compatible")
		case "model":
			d.string(key, raw, &c.Model)
		case "base_url":
			d.string(key, raw, &c.BaseURL)
		case "max_tokens":
			d.int(key, raw, &c.MaxTokens)
		case "max_tool_turns":
			d.int(key, raw, &c.MaxToolTurns)
		case "approval":
			d.enum(key, raw, &c.Approval, "ask", "auto", "read-only")
		case "allow":
			d.names(key, raw, &c.Allow)
		case "deny":
			d.names(key, raw, &c.Deny)
		case "tool_timeout_seconds":
			d.seconds(key, raw, &c.ToolTimeout)
		case "schema_timeout_seconds":
			d.seconds(key, raw, &c.SchemaTimeout)
		case "tools":
			d.tools(key, raw, c)
		case "trusted_directories":
			if scope == Project {
				d.errorf(key, "may be set only in the user or system configuration: a project cannot trust itself")
				continue
			}
			d.strings(key, raw, &c.TrustedDirectories)
		case "mcp_servers":
			d.mcpServers(key, raw, c)
		case "log_max_bytes":
			d.int64(key, raw, &c.LogMaxBytes)
		default:
			d.errs = append(d.errs, fmt.Errorf("%s: unknown key %q", d.file, key))
		}
	}
}

// envVars lists the environment variables that override settings, with the key
// each one sets.
var envVars = []struct {
	Var, Key string
	Number   bool
}{
	{"IKIGAI_PROVIDER", "provider", false},
	{"IKIGAI_MODEL", "model", false},
	{"IKIGAI_BASE_URL", "base_url", false},
	{"IKIGAI_MAX_TOKENS", "max_tokens", true},
	{"IKIGAI_MAX_TOOL_TURNS", "max_tool_turns", true},
	{"IKIGAI_APPROVAL", "approval", false},
	{"IKIGAI_TOOL_TIMEOUT_SECONDS", "tool_timeout_seconds", true},
	{"IKIGAI_SCHEMA_TIMEOUT_SECONDS", "schema_timeout_seconds", true},
}

// ReadEnv applies the IKIGAI_* environment variables that are set and not
// empty. A value means what the same key would in a file: a number where
// the key takes one, else a string.
func (c *Config) ReadEnv(getenv func(string) string) error {
	var errs []error
	for _, e := range envVars {
		v := getenv(e.Var)
		if v == "" {
			continue
		}
		raw, _ := json.Marshal(v)
		if e.Number && json.Valid([]byte(v)) {
			raw = []byte(v)
		}
		d := &decoder{file: e.Var, env: true}
		c.set(d, map[string]json.RawMessage{e.Key: raw}, System)
		errs = append(errs, d.errs...)
	}
	return errors.Join(errs...)
}
