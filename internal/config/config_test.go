package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/ikigai-tools/ikigai/internal/buildinfo"
	"github.com/ikigai-tools/ikigai/internal/hooks"
	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/rules"
	"github.com/ikigai-tools/ikigai/internal/sandbox"
)

// sameRule compares rules by how they are written.
var sameRule = cmp.Comparer(func(a, b rules.Rule) bool { return a.String() == b.String() })

func rule(s string, scope Scope) Rule { return Rule{rules.MustParse(s), scope} }

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
		{"user.json", `{"model": "user", "allow": ["file_read"], "tools": {"grep": {"timeout_seconds": 7, "result_inline_bytes": 100000}},
			"tool_result_inline_bytes": 16384,
			"mcp_servers": {"web": {"url": "http://127.0.0.1:9/mcp", "timeout_seconds": 2.5, "startup_timeout_seconds": 4, "disabled_tools": ["fetch"]},
				"web--x": {"url": "http://127.0.0.1:9/x", "timeout_seconds": 3}},
			"deny": ["mcp--web--fetch_all"],
			"trusted_directories": ["/home/u/work"]}`, User},
		{"project.json", `{"model": "project", "approval": "read-only", "max_tokens": 1000, "log_max_bytes": 4096, "checkpoint_max_mb": 0, "schema_timeout_seconds": 2,
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
		Allow:              []Rule{rule("file_read", User)},
		ToolTimeout:        10 * time.Second,
		SchemaTimeout:      2 * time.Second,
		Tools:              map[string]Tool{"bash": {Timeout: 60 * time.Second}, "grep": {Timeout: 7 * time.Second, ResultInline: 100000}},
		ResultInline:       16384,
		TrustedDirectories: []string{"/home/u/work"},
		MCPServers: map[string]MCPServer{
			"fs":     {Command: "other", Env: map[string]string{"A": "b"}},
			"web":    {URL: "http://127.0.0.1:9/mcp", Timeout: 2500 * time.Millisecond, StartupTimeout: 4 * time.Second, DisabledTools: []string{"fetch"}},
			"web--x": {URL: "http://127.0.0.1:9/x", Timeout: 3 * time.Second},
		},
		Deny:        []Rule{rule("mcp--web--fetch_all", User)},
		LogMaxBytes: 4096,

		Sandbox: "off", SandboxNetwork: "on", SandboxFallback: "warn",
	}
	if diff := cmp.Diff(want, c, sameRule); diff != "" {
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
	if got := [2]int{c.InlineFor("grep"), c.InlineFor("bash")}; got != [2]int{100000, 16384} {
		t.Errorf("InlineFor(grep, bash) = %v", got)
	}
}

func TestDefault(t *testing.T) {
	c := Default()
	if c.ToolTimeout != 30*time.Second || c.SchemaTimeout != time.Second || c.MaxToolTurns != 50 || c.Approval != "ask" || c.TimeoutFor("bash") != 30*time.Second || c.InlineFor("bash") != 32<<10 {
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
			`~/.ikigai/config.json: "approval": want one of "ask", "auto", "read-only", "sandboxed", got "yolo"`,
			`~/.ikigai/config.json: "max_tokens": want a whole number above 0, got 1.5`,
			`~/.ikigai/config.json: "model": want a string, got 3`}, "\n")},
		{"provider", `{"provider": "acme"}`, User, `~/.ikigai/config.json: "provider": want one of "anthropic", "openai", "openai-compatible", "google", got "acme"`},
		{"reasoning", `{"reasoning": "max"}`, User, `~/.ikigai/config.json: "reasoning": want one of "off", "low", "medium", "high", got "max"`},
		{"negative timeout", `{"tool_timeout_seconds": -1}`, User, `~/.ikigai/config.json: "tool_timeout_seconds": want a number of seconds above 0, got -1`},
		{"zero turns", `{"max_tool_turns": 0}`, User, `~/.ikigai/config.json: "max_tool_turns": want a whole number above 0, got 0`},
		{"negative checkpoint cap", `{"checkpoint_max_mb": -1}`, User, `~/.ikigai/config.json: "checkpoint_max_mb": want a whole number, 0 or more, got -1`},
		{"null", `{"model": null}`, User, `~/.ikigai/config.json: "model": want a string, got null`},
		{"allow not rules", `{"allow": ["file_read", "file-write", "bash(ls"]}`, User, strings.Join([]string{
			`~/.ikigai/config.json: "allow[1]": "file-write": not a tool name: hyphens belong to MCP tools' names (mcp--SERVER--TOOL); a tool's name has underscores (file_read)`,
			`~/.ikigai/config.json: "allow[2]": "bash(ls": a pattern ends with ): TOOL(PATTERN)`}, "\n")},
		{"ask not a rule", `{"ask": ["bash(go * test)"]}`, User, `~/.ikigai/config.json: "ask[0]": "bash(go * test)": word 2 holds something the shell expands ($, *, ?, [, {, ~ or quotes with $); quote it to mean it literally, and write * alone as the last word for any further words`},
		{"sandboxed is a mode", `{"approval": "sandbox"}`, User, `~/.ikigai/config.json: "approval": want one of "ask", "auto", "read-only", "sandboxed", got "sandbox"`},
		{"deny not a list", `{"deny": "bash"}`, User, `~/.ikigai/config.json: "deny": want a list of strings, got "bash"`},
		{"tool settings", `{"tools": {"bash": {"timeout": 5}}}`, User, `~/.ikigai/config.json: unknown key "tools.bash.timeout"`},
		{"tool timeout", `{"tools": {"bash": {"timeout_seconds": "5"}}}`, User, `~/.ikigai/config.json: "tools.bash.timeout_seconds": want a number, got "5"`},
		{"tools not an object", `{"tools": ["bash"]}`, User, `~/.ikigai/config.json: "tools": want an object, got ["bash"]`},
		{"project trusts itself", `{"trusted_directories": ["."]}`, Project, `.ikigai/config.json: "trusted_directories": may be set only in the user or system configuration: a project cannot trust itself`},
		{"mcp without command", `{"mcp_servers": {"gh": {"args": []}}}`, User, `~/.ikigai/config.json: "mcp_servers.gh": want "command" or "url"`},
		{"mcp with both", `{"mcp_servers": {"gh": {"command": "a", "url": "b"}}}`, User, `~/.ikigai/config.json: "mcp_servers.gh": want "command" or "url", not both`},
		{"mcp env", `{"mcp_servers": {"gh": {"command": "a", "env": {"A": 1}}}}`, User, `~/.ikigai/config.json: "mcp_servers.gh.env": want an object of strings, got {"A":1}`},
		{"mcp unknown", `{"mcp_servers": {"gh": {"command": "a", "cwdir": "/"}}}`, User, `~/.ikigai/config.json: unknown key "mcp_servers.gh.cwdir"`},
		{"mcp cwd on a url", `{"mcp_servers": {"gh": {"url": "http://h/", "cwd": "/"}}}`, User, `~/.ikigai/config.json: "mcp_servers.gh.cwd": applies only to a server started by "command"`},
		{"mcp headers on a command", `{"mcpServers": {"gh": {"command": "a", "headers": {"A": "b"}}}}`, User, `~/.ikigai/config.json: "mcpServers.gh.headers": applies only to a server reached by "url"`},
		{"mcp type", `{"mcp_servers": {"gh": {"type": "ws", "url": "http://h/"}}}`, User, `~/.ikigai/config.json: "mcp_servers.gh.type": want one of "stdio", "http", "sse", got "ws"`},
		{"mcp stdio with a url", `{"mcp_servers": {"gh": {"type": "stdio", "url": "http://h/"}}}`, User, `~/.ikigai/config.json: "mcp_servers.gh.type": "stdio" wants a "command"`},
		{"mcp sse with a command", `{"mcp_servers": {"gh": {"type": "sse", "command": "a"}}}`, User, `~/.ikigai/config.json: "mcp_servers.gh.type": "sse" wants a "url"`},
		{"mcp headers", `{"mcp_servers": {"gh": {"url": "http://h/", "headers": ["A: b"]}}}`, User, `~/.ikigai/config.json: "mcp_servers.gh.headers": want an object of strings, got ["A: b"]`},
		{"mcp enabled", `{"mcp_servers": {"gh": {"command": "a", "enabled": "no"}}}`, User, `~/.ikigai/config.json: "mcp_servers.gh.enabled": want true or false, got "no"`},
		{"hyphen outside mcp", `{"tools": {"file-read": {"timeout_seconds": 5}}}`, User, `~/.ikigai/config.json: "tools.file-read": "file-read" is not a tool name (letters, digits and underscores, at most 64; an MCP tool's name, mcp--SERVER--TOOL, may hold hyphens)`},
		{"mcp startup", `{"mcp_servers": {"gh": {"command": "a", "startup_timeout_seconds": 0}}}`, User, `~/.ikigai/config.json: "mcp_servers.gh.startup_timeout_seconds": want a number of seconds above 0, got 0`},
		{"mcp name", `{"mcp_servers": {"g h": {"command": "a"}}}`, User, `~/.ikigai/config.json: "mcp_servers.g h": a server name may hold only letters, digits, hyphens and underscores`},
		{"syntax", "{\n  \"model\": \"x\",\n}", User, `~/.ikigai/config.json: invalid JSON at line 3, column 1: invalid character '}' looking for beginning of object key string`},
		{"not an object", `["model"]`, User, `~/.ikigai/config.json: want a JSON object, got array`},
		{"sandbox mode", `{"sandbox": "strict"}`, User, `~/.ikigai/config.json: "sandbox": want one of "off", "workspace-write", "read-only", got "strict"`},
		{"sandbox network", `{"sandbox_network": false}`, User, `~/.ikigai/config.json: "sandbox_network": want a string, got false`},
		{"project sets a tool's sandbox", `{"tools": {"bash": {"sandbox": "read-only"}}}`, Project, `.ikigai/config.json: "tools.bash.sandbox": may be set only in the user or system configuration: it can loosen the sandbox`},
		{"project sets a server's sandbox", `{"mcp_servers": {"gh": {"command": "a", "sandbox": "off"}}}`, Project, `.ikigai/config.json: "mcp_servers.gh.sandbox": may be set only in the user or system configuration: it can loosen the sandbox`},
		{"tool sandbox mode", `{"tools": {"bash": {"sandbox": "on"}}}`, User, `~/.ikigai/config.json: "tools.bash.sandbox": want one of "off", "read-only", "workspace-write", got "on"`},
		{"tool sandbox path", `{"tools": {"bash": {"sandbox": {"write": ["/x", "build"]}}}}`, User, `~/.ikigai/config.json: "tools.bash.sandbox.write[1]": "build" is neither absolute nor under ~/, $WORKSPACE or $TMPDIR`},
		{"tool sandbox network", `{"tools": {"bash": {"sandbox": {"network": true}}}}`, User, `~/.ikigai/config.json: "tools.bash.sandbox.network": want a string, got true`},
		{"tool sandbox unknown", `{"tools": {"bash": {"sandbox": {"read": ["/"]}}}}`, User, `~/.ikigai/config.json: unknown key "tools.bash.sandbox.read"`},
		{"hook event", `{"hooks": {"PreToolUse": []}}`, User, `~/.ikigai/config.json: "hooks.PreToolUse": unknown hook event "PreToolUse": want one of session_start, user_prompt, pre_tool, post_tool, stop, pre_compact, session_end`},
		{"hooks not a list", `{"hooks": {"stop": {"command": "x"}}}`, User, `~/.ikigai/config.json: "hooks.stop": want a list of hooks, got {"command":"x"}`},
		{"hook without command", `{"hooks": {"stop": [{"timeout": 5}]}}`, User, `~/.ikigai/config.json: "hooks.stop[0]": want a "command"`},
		{"hook timeout", `{"hooks": {"stop": [{"command": "x", "timeout": 0}]}}`, User, `~/.ikigai/config.json: "hooks.stop[0].timeout": want a number of seconds above 0, got 0`},
		{"hook match", `{"hooks": {"pre_tool": [{"command": "x", "match": "bash("}]}}`, User, `~/.ikigai/config.json: "hooks.pre_tool[0].match": a pattern ends with ): TOOL(PATTERN)`},
		{"hook match on a stop", `{"hooks": {"stop": [{"command": "x", "match": "bash"}]}}`, User, `~/.ikigai/config.json: "hooks.stop[0].match": match applies only to pre_tool and post_tool hooks`},
		{"hook in Claude Code's shape", `{"hooks": {"pre_tool": [{"matcher": "Bash", "hooks": []}]}}`, User, strings.Join([]string{
			`~/.ikigai/config.json: "hooks.pre_tool[0].hooks": unknown key: an ikigai hook is {"match", "command", "timeout"}, one per entry (docs/hooks.md)`,
			`~/.ikigai/config.json: "hooks.pre_tool[0].matcher": unknown key: an ikigai hook is {"match", "command", "timeout"}, one per entry (docs/hooks.md)`,
			`~/.ikigai/config.json: "hooks.pre_tool[0]": want a "command"`}, "\n")},
		{"hook unknown", `{"hooks": {"stop": [{"command": "x", "when": "always"}]}}`, User, `~/.ikigai/config.json: unknown key "hooks.stop[0].when"`},
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

func TestSandbox(t *testing.T) {
	c := Default()
	for _, f := range []struct {
		content string
		scope   Scope
	}{
		{`{"sandbox": "read-only", "sandbox_network": "off", "mcp_servers": {"gh": {"command": "gh", "sandbox": {"write": ["~/.npm"]}}}}`, System},
		// The user may loosen what the system set.
		{`{"sandbox": "workspace-write", "sandbox_network": "on", "tools": {"bash": {"sandbox": {"mode": "workspace-write", "write": ["$WORKSPACE", "~/.cache/go-build"], "network": "off"}}, "grep": {"sandbox": "off"}}}`, User},
		// A project may tighten what the user set.
		{`{"sandbox": "read-only", "sandbox_fallback": "require"}`, Project},
	} {
		if err := c.apply([]byte(f.content), "f", f.scope); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"IKIGAI_SANDBOX_NETWORK": "off"}
	if err := c.ReadEnv(func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	off := false
	want := &sandbox.Policy{
		Mode: sandbox.ReadOnly, Fallback: sandbox.Require, Workspace: "/w", Home: "/h",
		Tools: map[string]sandbox.Setting{
			"bash": {Mode: sandbox.WorkspaceWrite, Write: []string{"$WORKSPACE", "~/.cache/go-build"}, Network: &off},
			"grep": {Mode: sandbox.Off},
		},
	}
	if diff := cmp.Diff(want, c.SandboxPolicy("/w", "/h"), cmpopts.IgnoreUnexported(sandbox.Policy{})); diff != "" {
		t.Errorf("policy (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&sandbox.Setting{Write: []string{"~/.npm"}}, c.MCPServers["gh"].Sandbox); diff != "" {
		t.Errorf("server setting (-want +got):\n%s", diff)
	}
	err := c.apply([]byte(`{"sandbox": "workspace-write", "sandbox_network": "on", "sandbox_fallback": "warn"}`), ".ikigai/config.json", Project)
	wantErr := strings.Join([]string{
		`.ikigai/config.json: "sandbox": a project may make the sandbox stricter, not looser: "workspace-write" is looser than "read-only"`,
		`.ikigai/config.json: "sandbox_fallback": a project may make the sandbox stricter, not looser: "warn" is looser than "require"`,
		`.ikigai/config.json: "sandbox_network": a project may make the sandbox stricter, not looser: "on" is looser than "off"`,
	}, "\n")
	if err == nil || err.Error() != wantErr {
		t.Errorf("a project loosening the sandbox:\n got %v\nwant %s", err, wantErr)
	}
}

// TestHooks: every file adds its hooks to those before; each keeps the
// file it came from and its place in it.
func TestHooks(t *testing.T) {
	c := Default()
	for _, f := range []struct {
		name, content string
		scope         Scope
	}{
		{"/etc/ikigai/config.json", `{"hooks": {"pre_tool": [{"match": "bash", "command": "audit", "timeout": 2}]}}`, System},
		{"~/.ikigai/config.json", `{"hooks": {"stop": [{"command": "make test"}], "pre_tool": [{"command": "a"}, {"match": "file_*", "command": "b"}]}}`, User},
		{".ikigai/config.json", `{"hooks": {"post_tool": [{"match": "file_edit", "command": "gofmt -l ."}]}}`, Project},
	} {
		if err := c.apply([]byte(f.content), f.name, f.scope); err != nil {
			t.Fatal(err)
		}
	}
	want := []hooks.Hook{
		{Event: hooks.PreTool, Name: "hooks.pre_tool[0]", Source: "/etc/ikigai/config.json", Scope: hooks.SystemScope, Match: "bash", Command: "audit", Timeout: 2 * time.Second},
		{Event: hooks.PreTool, Name: "hooks.pre_tool[0]", Source: "~/.ikigai/config.json", Scope: hooks.UserScope, Command: "a", Timeout: hooks.DefaultTimeout},
		{Event: hooks.PreTool, Name: "hooks.pre_tool[1]", Source: "~/.ikigai/config.json", Scope: hooks.UserScope, Match: "file_*", Command: "b", Timeout: hooks.DefaultTimeout},
		{Event: hooks.Stop, Name: "hooks.stop[0]", Source: "~/.ikigai/config.json", Scope: hooks.UserScope, Command: "make test", Timeout: hooks.DefaultTimeout},
		{Event: hooks.PostTool, Name: "hooks.post_tool[0]", Source: ".ikigai/config.json", Scope: hooks.ProjectScope, Match: "file_edit", Command: "gofmt -l .", Timeout: hooks.DefaultTimeout},
	}
	if diff := cmp.Diff(want, c.Hooks, cmpopts.IgnoreUnexported(hooks.Hook{})); diff != "" {
		t.Errorf("hooks (-want +got):\n%s", diff)
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
		"IKIGAI_REASONING":            "lots",
	}
	c := Default()
	err := c.ReadEnv(func(k string) string { return env[k] })
	want := strings.Join([]string{
		`IKIGAI_MAX_TOKENS: want a whole number above 0, got "lots"`,
		`IKIGAI_REASONING: want one of "off", "low", "medium", "high", got "lots"`,
		`IKIGAI_APPROVAL: want one of "ask", "auto", "read-only", "sandboxed", got "never"`,
		`IKIGAI_TOOL_TIMEOUT_SECONDS: want a number of seconds above 0, got 0`,
	}, "\n")
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	if c.Model != "42" {
		t.Errorf("IKIGAI_MODEL=42 gave model %q: a string key takes the value as it is", c.Model)
	}
}

// The stream's idle timeout comes from a file or the environment; unset,
// it is zero: the provider's default.
func TestStreamIdleTimeout(t *testing.T) {
	c := Default()
	if c.StreamIdleTimeout != 0 {
		t.Errorf("default %v, want 0", c.StreamIdleTimeout)
	}
	if err := c.apply([]byte(`{"stream_idle_timeout_seconds": 120}`), "f", User); err != nil || c.StreamIdleTimeout != 2*time.Minute {
		t.Errorf("from a file: %v, %v", c.StreamIdleTimeout, err)
	}
	env := map[string]string{"IKIGAI_STREAM_IDLE_TIMEOUT_SECONDS": "0.3"}
	if err := c.ReadEnv(func(k string) string { return env[k] }); err != nil || c.StreamIdleTimeout != 300*time.Millisecond {
		t.Errorf("from the environment: %v, %v", c.StreamIdleTimeout, err)
	}
	want := `f: "stream_idle_timeout_seconds": want a number of seconds above 0, got 0`
	if err := c.apply([]byte(`{"stream_idle_timeout_seconds": 0}`), "f", User); err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

func TestMaxResponseBytes(t *testing.T) {
	c := Default()
	if err := c.apply([]byte(`{"max_response_bytes": 1048576}`), "f", User); err != nil || c.MaxResponseBytes != 1<<20 {
		t.Errorf("from a file: %v, %v", c.MaxResponseBytes, err)
	}
	want := `f: "max_response_bytes": want a whole number above 0, got 0`
	if err := c.apply([]byte(`{"max_response_bytes": 0}`), "f", User); err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

func TestReadFileError(t *testing.T) {
	dir := t.TempDir()
	err := Default().ReadFile(dir, "/etc/ikigai/config.json", System)
	if err == nil || err.Error() != "/etc/ikigai/config.json: is a directory" {
		t.Errorf("got %v", err)
	}
}

func TestSystemFiles(t *testing.T) {
	defer func(prefix, sysconf string) { buildinfo.Prefix, buildinfo.SysconfDir = prefix, sysconf }(buildinfo.Prefix, buildinfo.SysconfDir)
	none := func(string) string { return "" }
	for _, tt := range []struct {
		prefix, sysconf string
		getenv          func(string) string
		want            []string
	}{
		{"/usr/local", "/usr/local/etc", func(string) string { return "/x.json" }, []string{"/x.json"}},
		{"/usr/local", "/usr/local/etc", none, []string{"/usr/local/etc/ikigai/config.json"}},
		// A distribution's build that kept the default sysconfdir also
		// reads /etc, where administrators look.
		{"/usr", "/usr/etc", none, []string{"/usr/etc/ikigai/config.json", "/etc/ikigai/config.json"}},
		{"/usr", "/etc", none, []string{"/etc/ikigai/config.json"}},
		{"/usr", "/etc/", none, []string{"/etc/ikigai/config.json"}},
	} {
		buildinfo.Prefix, buildinfo.SysconfDir = tt.prefix, tt.sysconf
		if diff := cmp.Diff(tt.want, SystemFiles(tt.getenv)); diff != "" {
			t.Errorf("prefix %s, sysconfdir %s (-want +got):\n%s", tt.prefix, tt.sysconf, diff)
		}
	}
}

func TestContextSettings(t *testing.T) {
	c := Default()
	err := c.apply([]byte(`{"context_window": 32000, "compact_at": 0.5, "prices": {"local-7b": {"input": 0.1, "output": 0.2, "cache_read": 0.01}}}`), "f", User)
	if err != nil {
		t.Fatal(err)
	}
	if c.ContextWindow != 32000 || c.CompactAt != 0.5 || c.Prices["local-7b"] != (provider.Price{Input: 0.1, Output: 0.2, CacheRead: 0.01}) {
		t.Errorf("got %d, %v, %+v", c.ContextWindow, c.CompactAt, c.Prices)
	}
	if err := c.apply([]byte(`{"compact_at": -1}`), "f", User); err != nil || c.CompactAt != -1 {
		t.Errorf("compact_at -1: %v, %v", c.CompactAt, err)
	}
	for doc, want := range map[string]string{
		`{"compact_at": 85}`:                          `f: "compact_at": want a share above 0 and at most 1 (0.85 for 85%), or -1 for never, got 85`,
		`{"context_window": 0}`:                       `f: "context_window": want a whole number above 0, got 0`,
		`{"prices": {"m": {"input": "1"}}}`:           `f: "prices.m.input": want dollars per million tokens, 0 or more, got "1"`,
		`{"prices": {"m": {"input": 1, "per": "k"}}}`: `f: unknown key "prices.m.per"`,
	} {
		if err := Default().apply([]byte(doc), "f", User); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %s", doc, err, want)
		}
	}
}

func TestEnvExcludeAndParallel(t *testing.T) {
	c := Default()
	if err := c.apply([]byte(`{"env_exclude": ["AWS_*", "*_TOKEN", "GITHUB_TOKEN"], "max_parallel_tools": 3}`), "user", User); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"AWS_*", "*_TOKEN", "GITHUB_TOKEN"}, c.EnvExclude); diff != "" || c.MaxParallelTools != 3 {
		t.Errorf("env_exclude (-want +got):\n%s\nmax_parallel_tools %d", diff, c.MaxParallelTools)
	}
	for _, tc := range []struct{ doc, want string }{
		{`{"env_exclude": ["AWS_[*"]}`, `user: "env_exclude[0]": "AWS_[*" is not a glob pattern (*, ? and [...] match a variable's name)`},
		{`{"env_exclude": "AWS_*"}`, `user: "env_exclude": want a list of strings, got "AWS_*"`},
		{`{"max_parallel_tools": 0}`, `user: "max_parallel_tools": want a whole number above 0, got 0`},
	} {
		if err := Default().apply([]byte(tc.doc), "user", User); err == nil || err.Error() != tc.want {
			t.Errorf("%s: got %v, want %s", tc.doc, err, tc.want)
		}
	}
}

// Rules add up across files, each keeping its scope: a project adds deny
// and ask rules, and cannot take back the user's.
func TestRuleLayers(t *testing.T) {
	c := Default()
	for _, f := range []struct {
		content string
		scope   Scope
	}{
		{`{"deny": ["bash(rm *)"], "allow": ["glob"]}`, System},
		{`{"allow": ["bash(go test *)", "mcp--github--*"], "ask": ["bash(git push *)"], "approval": "sandboxed"}`, User},
		{`{"allow": ["bash(rm *)", "file_write(src/**)"], "deny": [], "ask": ["file_read(.env)"]}`, Project},
	} {
		if err := c.apply([]byte(f.content), "f", f.scope); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.AddRules("deny", []string{"bash(curl *)"}, "--deny-tool"); err != nil {
		t.Fatal(err)
	}
	if err := c.AddRules("allow", []string{"web_fetch(domain:go.dev)"}, "--allow-tool"); err != nil {
		t.Fatal(err)
	}
	want := struct{ Allow, Ask, Deny []Rule }{
		Allow: []Rule{rule("glob", System), rule("bash(go test *)", User), rule("mcp--github--*", User),
			rule("bash(rm *)", Project), rule("file_write(src/**)", Project), rule("web_fetch(domain:go.dev)", CommandLine)},
		Ask:  []Rule{rule("bash(git push *)", User), rule("file_read(.env)", Project)},
		Deny: []Rule{rule("bash(rm *)", System), rule("bash(curl *)", CommandLine)},
	}
	got := struct{ Allow, Ask, Deny []Rule }{c.Allow, c.Ask, c.Deny}
	if diff := cmp.Diff(want, got, sameRule); diff != "" {
		t.Errorf("rules (-want +got):\n%s", diff)
	}
	if c.Approval != "sandboxed" {
		t.Errorf("approval %q", c.Approval)
	}
	if got := Rules(c.Deny).String(); got != "[bash(rm *) bash(curl *)]" {
		t.Errorf("Rules(Deny) = %s", got)
	}
}

func TestAddRulesErrors(t *testing.T) {
	c := Default()
	err := c.AddRules("allow", []string{"bash(ls", "bash", "file-read"}, "--allow-tool")
	want := `--allow-tool "bash(ls": a pattern ends with ): TOOL(PATTERN)` + "\n" +
		`--allow-tool "file-read": not a tool name: hyphens belong to MCP tools' names (mcp--SERVER--TOOL); a tool's name has underscores (file_read)`
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	if len(c.Allow) != 1 || c.Allow[0].String() != "bash" {
		t.Errorf("the good rule was not added: %v", c.Allow)
	}
}

func TestReadGrants(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	g, err := ReadGrants(path, ".ikigai/config.json")
	if err != nil || g.Approval != "" || g.Allow != nil {
		t.Errorf("no file: %+v, %v", g, err)
	}
	if err := os.WriteFile(path, []byte(`{"approval": "auto", "allow": ["bash(make *)", "file_write"], "deny": ["bash(rm *)"], "model": "x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	g, err = ReadGrants(path, ".ikigai/config.json")
	if diff := cmp.Diff(Grants{Approval: "auto", Allow: []string{"bash(make *)", "file_write"}}, g); diff != "" || err != nil {
		t.Errorf("grants (-want +got):\n%s%v", diff, err)
	}
	if err := os.WriteFile(path, []byte(`{"allow": ["bash("]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadGrants(path, ".ikigai/config.json"); err == nil || err.Error() != `.ikigai/config.json: "allow[0]": "bash(": a pattern ends with ): TOOL(PATTERN)` {
		t.Errorf("a bad rule: %v", err)
	}
}

func TestNames(t *testing.T) {
	long := strings.Repeat("s", 70)
	tests := []struct {
		s            string
		tool, server bool
	}{
		{"file_read", true, true},
		{"file-read", false, true},
		{"mcp--git--status", true, true},
		{"mcp--my-srv--get_x", true, true},
		{"mcp--" + strings.Repeat("a", 59), true, true},
		{"mcp--" + strings.Repeat("a", 60), false, true},
		{long, false, true}, // a long server name is cut in its tools' names
		{"", false, false},
		{"a.b", false, false},
		{"g h", false, false},
		{"é", false, false},
	}
	for _, tt := range tests {
		if got := isToolName(tt.s); got != tt.tool {
			t.Errorf("isToolName(%q) = %v, want %v", tt.s, got, tt.tool)
		}
		if got := isServerName(tt.s); got != tt.server {
			t.Errorf("isServerName(%q) = %v, want %v", tt.s, got, tt.server)
		}
	}
}

// Sub-agents' limits, and deferring a tool or every tool of a server.
func TestHostAPISettings(t *testing.T) {
	c := Default()
	err := c.apply([]byte(`{"agent_max_depth": 1, "agent_max_running": 8,
		"tools": {"grep": {"deferred": true}, "bash": {"deferred": false}},
		"mcp_servers": {"fs": {"command": "fs", "deferred": true}}}`), "f", User)
	if err != nil {
		t.Fatal(err)
	}
	yes, no := true, false
	if c.AgentMaxDepth != 1 || c.AgentMaxRunning != 8 {
		t.Errorf("limits = %d, %d", c.AgentMaxDepth, c.AgentMaxRunning)
	}
	if diff := cmp.Diff(map[string]Tool{"grep": {Deferred: &yes}, "bash": {Deferred: &no}}, c.Tools); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if d := c.MCPServers["fs"].Deferred; d == nil || !*d {
		t.Errorf("server deferred = %v", d)
	}
	for content, want := range map[string]string{
		`{"tools": {"grep": {"deferred": "yes"}}}`: `f: "tools.grep.deferred": want true or false, got "yes"`,
		`{"agent_max_depth": 0}`:                   `f: "agent_max_depth": want a whole number above 0, got 0`,
	} {
		if err := Default().apply([]byte(content), "f", User); err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %s", content, err, want)
		}
	}
}

// Claude Code's server entries read unchanged, under either key.
func TestMCPServerFields(t *testing.T) {
	c := Default()
	err := c.apply([]byte(`{
		"mcpServers": {
			"gh": {"type": "stdio", "command": "gh-mcp", "args": ["stdio"], "env": {"T": "${TOKEN}"}, "cwd": "~/src"},
			"docs": {"type": "http", "url": "https://docs.example/mcp", "headers": {"Authorization": "Bearer ${DOCS_TOKEN}"}}
		},
		"mcp_servers": {
			"old": {"type": "sse", "url": "https://old.example/sse", "bearer_token_env_var": "OLD_TOKEN", "enabled": false}
		}}`), "f", User)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]MCPServer{
		"gh":   {Type: "stdio", Command: "gh-mcp", Args: []string{"stdio"}, Env: map[string]string{"T": "${TOKEN}"}, Cwd: "~/src"},
		"docs": {Type: "http", URL: "https://docs.example/mcp", Headers: map[string]string{"Authorization": "Bearer ${DOCS_TOKEN}"}},
		"old":  {Type: "sse", URL: "https://old.example/sse", BearerTokenEnvVar: "OLD_TOKEN", Disabled: true},
	}
	if diff := cmp.Diff(want, c.MCPServers); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
}

func TestMCPServerExpanded(t *testing.T) {
	env := map[string]string{"TOKEN": "t0k", "EMPTY": "", "DIR": "/srv"}
	getenv := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	for _, tc := range []struct {
		name    string
		in, out MCPServer
		err     string
	}{
		{"vars and home",
			MCPServer{Command: "~/bin/srv", Args: []string{"--root=${DIR}", "~/data", "a$b", "${NOPE:-dflt}", "${EMPTY:-e}", "${EMPTY}"}, Env: map[string]string{"T": "${TOKEN}"}, Cwd: "~"},
			MCPServer{Command: "/home/u/bin/srv", Args: []string{"--root=/srv", "/home/u/data", "a$b", "dflt", "e", ""}, Env: map[string]string{"T": "t0k"}, Cwd: "/home/u"}, ""},
		{"url and headers",
			MCPServer{URL: "https://h/${DIR}", Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}},
			MCPServer{URL: "https://h//srv", Headers: map[string]string{"Authorization": "Bearer t0k"}}, ""},
		{"missing", MCPServer{Command: "srv", Args: []string{"${B_MISSING}"}, Env: map[string]string{"X": "${A_MISSING}", "Y": "${A_MISSING}"}},
			MCPServer{}, "environment variables A_MISSING, B_MISSING are not set"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.in.Expanded(getenv, "/home/u")
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Errorf("err = %v, want %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.out, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
