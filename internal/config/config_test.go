package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestLayers(t *testing.T) {
	dir := t.TempDir()
	files := []struct {
		name, content string
		scope         Scope
	}{
		{"system.json", `{"provider": "openai", "model": "sys", "tool_timeout_seconds": 10,
			"tools": {"bash": {"timeout_seconds": 60}, "grep": {"timeout_seconds": 5}},
			"mcp_servers": {"fs": {"command": "fs-server", "args": ["--root", "/"]}},
			"trusted_directories": ["/srv"]}`, System},
		{"user.json", `{"model": "user", "allow": ["file_read"], "tools": {"grep": {"timeout_seconds": 7}},
			"mcp_servers": {"web": {"url": "http://127.0.0.1:9/mcp", "timeout_seconds": 2.5, "startup_timeout_seconds": 4, "disabled_tools": ["fetch"]},
				"web--x": {"url": "http://127.0.0.1:9/x", "timeout_seconds": 3}},
			"deny": ["mcp--web--fetch_all"],
			"trusted_directories": ["/home/u/work"]}`, User},
		{"project.json", `{"model": "project", "approval": "read-only", "max_tokens": 1000, "log_max_bytes": 4096, "schema_timeout_seconds": 2,
			"mcp_servers": {"fs": {"command": "other", "env": {"A": "b"}}}}`, Project},
		{"missing.json", "", System},
	}
	c := Default()
	for _, f := range files {
		path := filepath.Join(dir, f.name)
		if f.content != "" {
			if err := os.WriteFile(path, []byte(f.content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.ReadFile(path, f.name, f.scope); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"IKIGAI_MODEL": "env", "IKIGAI_MAX_TOOL_TURNS": "9", "IKIGAI_BASE_URL": ""}
	if err := c.ReadEnv(func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	want := &Config{
		Provider:           "openai",
		Model:              "env",
		MaxTokens:          1000,
		MaxToolTurns:       9,
		Approval:           "read-only",
		Allow:              []string{"file_read"},
		ToolTimeout:        10 * time.Second,
		SchemaTimeout:      2 * time.Second,
		Tools:              map[string]Tool{"bash": {60 * time.Second}, "grep": {7 * time.Second}},
		TrustedDirectories: []string{"/home/u/work"},
		MCPServers: map[string]MCPServer{
			"fs":     {Command: "other", Env: map[string]string{"A": "b"}},
			"web":    {URL: "http://127.0.0.1:9/mcp", Timeout: 2500 * time.Millisecond, StartupTimeout: 4 * time.Second, DisabledTools: []string{"fetch"}},
			"web--x": {URL: "http://127.0.0.1:9/x", Timeout: 3 * time.Second},
		},
		Deny:        []string{"mcp--web--fetch_all"},
		LogMaxBytes: 4096,
	}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	for name, want := range map[string]time.Duration{
		"bash": 60 * time.Second, "grep": 7 * time.Second, "glob": 10 * time.Second,
		"mcp--web--fetch": 2500 * time.Millisecond, "mcp--web--x--y": 3 * time.Second, "mcp--fs--read": 10 * time.Second,
		"mcp--nosuch--tool": 10 * time.Second, "web--fetch": 10 * time.Second,
	} {
		if got := c.TimeoutFor(name); got != want {
			t.Errorf("TimeoutFor(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestDefault(t *testing.T) {
	c := Default()
	if c.ToolTimeout != 30*time.Second || c.SchemaTimeout != time.Second || c.MaxToolTurns != 50 || c.Approval != "ask" || c.TimeoutFor("bash") != 30*time.Second {
		t.Errorf("defaults: %+v", c)
	}
}

func TestFileErrors(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		scope         Scope
		want          string
	}{
		{"wrong type", `{"tool_timeout_seconds": "30"}`, User, `~/.ikigai/config.json: "tool_timeout_seconds": want a number, got "30"`},
		{"unknown key", `{"colour": "blue"}`, User, `~/.ikigai/config.json: unknown key "colour"`},
		{"all errors, in key order", `{"model": 3, "approval": "yolo", "max_tokens": 1.5}`, User, strings.Join([]string{
			`~/.ikigai/config.json: "approval": want one of "ask", "auto", "read-only", got "yolo"`,
			`~/.ikigai/config.json: "max_tokens": want a whole number above 0, got 1.5`,
			`~/.ikigai/config.json: "model": want a string, got 3`}, "\n")},
		{"provider", `{"provider": "acme"}`, User, `~/.ikigai/config.json: "provider": want one of "anthropic", "openai", "openai-compatible", got "acme"`},
		{"negative timeout", `{"tool_timeout_seconds": -1}`, User, `~/.ikigai/config.json: "tool_timeout_seconds": want a number of seconds above 0, got -1`},
		{"zero turns", `{"max_tool_turns": 0}`, User, `~/.ikigai/config.json: "max_tool_turns": want a whole number above 0, got 0`},
		{"null", `{"model": null}`, User, `~/.ikigai/config.json: "model": want a string, got null`},
		{"allow not names", `{"allow": ["file_read", "file-write"]}`, User, `~/.ikigai/config.json: "allow[1]": "file-write" is not a tool name (letters, digits and underscores, at most 64; an MCP tool's name, mcp--SERVER--TOOL, may hold hyphens)`},
		{"deny not a list", `{"deny": "bash"}`, User, `~/.ikigai/config.json: "deny": want a list of strings, got "bash"`},
		{"tool settings", `{"tools": {"bash": {"timeout": 5}}}`, User, `~/.ikigai/config.json: unknown key "tools.bash.timeout"`},
		{"tool timeout", `{"tools": {"bash": {"timeout_seconds": "5"}}}`, User, `~/.ikigai/config.json: "tools.bash.timeout_seconds": want a number, got "5"`},
		{"tools not an object", `{"tools": ["bash"]}`, User, `~/.ikigai/config.json: "tools": want an object, got ["bash"]`},
		{"project trusts itself", `{"trusted_directories": ["."]}`, Project, `.ikigai/config.json: "trusted_directories": may be set only in the user or system configuration: a project cannot trust itself`},
		{"mcp without command", `{"mcp_servers": {"gh": {"args": []}}}`, User, `~/.ikigai/config.json: "mcp_servers.gh": want "command" or "url"`},
		{"mcp with both", `{"mcp_servers": {"gh": {"command": "a", "url": "b"}}}`, User, `~/.ikigai/config.json: "mcp_servers.gh": want "command" or "url", not both`},
		{"mcp env", `{"mcp_servers": {"gh": {"command": "a", "env": {"A": 1}}}}`, User, `~/.ikigai/config.json: "mcp_servers.gh.env": want an object of strings, got {"A":1}`},
		{"mcp unknown", `{"mcp_servers": {"gh": {"command": "a", "cwd": "/"}}}`, User, `~/.ikigai/config.json: unknown key "mcp_servers.gh.cwd"`},
		{"hyphen outside mcp", `{"tools": {"file-read": {"timeout_seconds": 5}}}`, User, `~/.ikigai/config.json: "tools.file-read": "file-read" is not a tool name (letters, digits and underscores, at most 64; an MCP tool's name, mcp--SERVER--TOOL, may hold hyphens)`},
		{"mcp startup", `{"mcp_servers": {"gh": {"command": "a", "startup_timeout_seconds": 0}}}`, User, `~/.ikigai/config.json: "mcp_servers.gh.startup_timeout_seconds": want a number of seconds above 0, got 0`},
		{"mcp name", `{"mcp_servers": {"g h": {"command": "a"}}}`, User, `~/.ikigai/config.json: "mcp_servers.g h": a server name may hold only letters, digits, hyphens and underscores`},
		{"syntax", "{\n  \"model\": \"x\",\n}", User, `~/.ikigai/config.json: invalid JSON at line 3, column 1: invalid character '}' looking for beginning of object key string`},
		{"not an object", `["model"]`, User, `~/.ikigai/config.json: want a JSON object, got array`},
		{"long value", `{"model": ["` + strings.Repeat("a", 100) + `"]}`, User, `~/.ikigai/config.json: "model": want a string, got ["` + strings.Repeat("a", 35) + `...`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := "~/.ikigai/config.json"
			if tc.scope == Project {
				name = ".ikigai/config.json"
			}
			err := Default().apply([]byte(tc.content), name, tc.scope)
			if err == nil || err.Error() != tc.want {
				t.Errorf("got  %v\nwant %s", err, tc.want)
			}
		})
	}
}

func TestEmptyFile(t *testing.T) {
	c := Default()
	if err := c.apply([]byte(" \n"), "f", User); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Default(), c); diff != "" {
		t.Errorf("an empty file changed the config (-want +got):\n%s", diff)
	}
}

func TestEnvErrors(t *testing.T) {
	env := map[string]string{
		"IKIGAI_MAX_TOKENS":           "lots",
		"IKIGAI_TOOL_TIMEOUT_SECONDS": "0",
		"IKIGAI_APPROVAL":             "never",
		"IKIGAI_MODEL":                "42",
	}
	c := Default()
	err := c.ReadEnv(func(k string) string { return env[k] })
	want := strings.Join([]string{
		`IKIGAI_MAX_TOKENS: want a whole number above 0, got "lots"`,
		`IKIGAI_APPROVAL: want one of "ask", "auto", "read-only", got "never"`,
		`IKIGAI_TOOL_TIMEOUT_SECONDS: want a number of seconds above 0, got 0`,
	}, "\n")
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	if c.Model != "42" {
		t.Errorf("IKIGAI_MODEL=42 gave model %q: a string key takes the value as it is", c.Model)
	}
}

func TestReadFileError(t *testing.T) {
	dir := t.TempDir()
	err := Default().ReadFile(dir, "/etc/ikigai/config.json", System)
	if err == nil || err.Error() != "/etc/ikigai/config.json: is a directory" {
		t.Errorf("got %v", err)
	}
}

func TestSystemFile(t *testing.T) {
	if got := SystemFile(func(string) string { return "/x.json" }); got != "/x.json" {
		t.Errorf("override: %q", got)
	}
	if got := SystemFile(func(string) string { return "" }); got != "/usr/local/etc/ikigai/config.json" {
		t.Errorf("default: %q", got)
	}
}
