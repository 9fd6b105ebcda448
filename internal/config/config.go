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

	"github.com/ikigai-tools/ikigai/internal/agent"
	"github.com/ikigai-tools/ikigai/internal/approval"
	"github.com/ikigai-tools/ikigai/internal/buildinfo"
	"github.com/ikigai-tools/ikigai/internal/calllog"
	"github.com/ikigai-tools/ikigai/internal/checkpoint"
	"github.com/ikigai-tools/ikigai/internal/discovery"
	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/fserr"
	"github.com/ikigai-tools/ikigai/internal/hooks"
	"github.com/ikigai-tools/ikigai/internal/lazyregexp"
	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/rules"
	"github.com/ikigai-tools/ikigai/internal/sandbox"
)

// Config is the merged settings. Zero values of Provider, Model, BaseURL and
// MaxTokens mean the provider's own default.
type Config struct {
	Provider  string // "anthropic", "openai", "openai-compatible" or "google"
	Model     string
	BaseURL   string
	MaxTokens int
	// Reasoning is how much the model thinks: "off", "low", "medium" or
	// "high"; empty for the model's own default.
	Reasoning    string
	MaxToolTurns int
	Approval     string // "ask", "auto", "read-only" or "sandboxed"
	// Allow, Ask and Deny are approval rules, gathered from every file
	// rather than replaced by the last: a later file cannot take back an
	// earlier one's deny rules.
	Allow, Ask, Deny []Rule
	// ToolTimeout applies to every tool without its own in Tools.
	ToolTimeout time.Duration
	// SchemaTimeout is how long each tool has to answer --schema.
	SchemaTimeout time.Duration
	Tools         map[string]Tool
	// TrustedDirectories may be set by the system and user files only.
	TrustedDirectories []string
	MCPServers         map[string]MCPServer
	LogMaxBytes        int64
	// CheckpointMaxMB caps the files a checkpoint of the workspace takes,
	// in MB; 0 for no cap.
	CheckpointMaxMB int
	// ContextWindow is the model's context in tokens, when the built-in
	// table or the server cannot say; 0 leaves it to them.
	ContextWindow int
	// CompactAt is the share of the context window the next request may
	// fill before the conversation is compacted: 0 for the agent's
	// default, negative never.
	CompactAt float64
	// Prices are what models cost, by model name, over the built-in ones.
	Prices map[string]provider.Price
	// Sandbox is the sandbox mode ("off", "read-only", "workspace-write");
	// SandboxNetwork "on" or "off"; SandboxFallback "warn" or "require".
	Sandbox, SandboxNetwork, SandboxFallback string
	// EnvExclude holds glob patterns of environment variables no tool,
	// hook or MCP server gets (besides the providers' keys, never given).
	EnvExclude []string
	// MaxParallelTools bounds the read-only calls run at once; zero
	// means the agent's default, the number of CPUs.
	MaxParallelTools int
	// StreamIdleTimeout is how long a model's answer may go without a
	// byte before the request counts as stalled; zero means the
	// provider's default.
	StreamIdleTimeout time.Duration
	// ResultInline is how big a tool's result may be, as the model gets
	// it, and still go whole into the conversation; a bigger one is kept
	// in a file and the model gets its head and tail (execute.Spill).
	ResultInline int
	// MaxResponseBytes caps one answer of the model: its text and its tool
	// calls; zero means the provider's default.
	MaxResponseBytes int
	// Hooks are the configured hooks of every file, system first: a
	// later file adds its hooks to those before, it does not replace them.
	Hooks []hooks.Hook
	// AgentMaxDepth is how deep sub-agents may nest, AgentMaxRunning how
	// many may run at once; 0 for the host API's defaults.
	AgentMaxDepth, AgentMaxRunning int
}

// A Rule is an approval rule and the scope it was written in.
type Rule struct {
	rules.Rule
	Scope Scope
}

// Rules returns the rules of a list (Allow, Ask or Deny) as approval
// takes them. Deny rules win over allow rules whatever their scope, so a
// project's allow rules cannot allow what the user's configuration denies.
func Rules(list []Rule) rules.List {
	l := make(rules.List, len(list))
	for i, r := range list {
		l[i] = r.Rule
	}
	return l
}

// AddRules adds rules given for one run, such as --allow-tool's, to a
// list: key is "allow", "ask" or "deny", and name how errors refer to
// where the rules come from ("--allow-tool").
func (c *Config) AddRules(key string, list []string, name string) error {
	dst := map[string]*[]Rule{"allow": &c.Allow, "ask": &c.Ask, "deny": &c.Deny}[key]
	if dst == nil {
		return fmt.Errorf("no list of rules called %q", key)
	}
	var errs []error
	for _, s := range list {
		r, err := rules.Parse(s)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s %q: %v", name, s, err))
			continue
		}
		*dst = append(*dst, Rule{r, CommandLine})
	}
	return errors.Join(errs...)
}

// Tool holds the settings of one tool.
type Tool struct {
	Timeout time.Duration
	Sandbox *sandbox.Setting // nil: as the sandbox settings give
	// Deferred keeps the tool out of requests until the model asks for
	// it; nil: as the tool's deferredHint and the skills say.
	Deferred *bool
	// ResultInline is the tool's own Config.ResultInline; 0 for that.
	ResultInline int
}

// MCPServer is an MCP server whose tools are offered to the model: a
// command to start, or the URL of a remote server. Strings hold ${VAR},
// ${VAR:-default} and a leading ~ as written: the MCP client expands
// them when it starts the server.
type MCPServer struct {
	// Type is "stdio", "http" or "sse"; empty: stdio for a command, http
	// for a URL. http is streamable HTTP, falling back to SSE.
	Type    string
	Command string
	Args    []string
	Env     map[string]string
	// Cwd is the command's working directory; empty: the agent's.
	Cwd string
	URL string
	// Headers are sent with every request to a URL.
	Headers map[string]string
	// BearerTokenEnvVar names the environment variable whose value is
	// sent as "Authorization: Bearer VALUE" to a URL.
	BearerTokenEnvVar string
	// Disabled servers are not started (enabled: false).
	Disabled bool
	Timeout  time.Duration // zero: ToolTimeout
	// StartupTimeout bounds starting the server and listing its tools;
	// zero means the MCP client's default.
	StartupTimeout time.Duration
	DisabledTools  []string
	Sandbox        *sandbox.Setting // nil: as the sandbox settings give
	// Deferred defers every tool of the server; nil: as each says.
	Deferred *bool
	// Confinement is how the server's process is confined, worked out
	// from the sandbox settings by whoever starts it; nil: not at all.
	Confinement *sandbox.Confinement
	// AuthFile is where a remote server's OAuth tokens are kept, set by
	// whoever starts it; "": nowhere.
	AuthFile string
}

// MCPPrefix starts the name of every MCP server's tool: mcp--SERVER--TOOL.
const MCPPrefix = "mcp--"

// Default returns the settings before any file is read: the defaults of
// the packages that use them.
func Default() *Config {
	return &Config{
		MaxToolTurns:    agent.DefaultMaxToolTurns,
		Approval:        string(approval.Ask),
		ToolTimeout:     execute.DefaultTimeout,
		SchemaTimeout:   discovery.DefaultSchemaTimeout,
		LogMaxBytes:     calllog.DefaultMaxBytes,
		ResultInline:    execute.DefaultInline,
		CheckpointMaxMB: checkpoint.DefaultMaxMB,

		Sandbox:         string(sandbox.Off),
		SandboxNetwork:  "on",
		SandboxFallback: string(sandbox.Warn),
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

// InlineFor returns how big a result of the named tool may be and still go
// to the model whole: its own limit, else ResultInline.
func (c *Config) InlineFor(name string) int {
	if t, ok := c.Tools[name]; ok && t.ResultInline > 0 {
		return t.ResultInline
	}
	return c.ResultInline
}

// MCPServerOf returns the name of the configured MCP server the tool
// called name comes from, as mcp.ToolName makes names: mcp--SERVER--TOOL,
// or, cut to 64 characters, the first 55 of them and -HASH, a cut that may
// fall inside SERVER; "" for none. Where two servers' names could both fit
// (a and a--b for mcp--a--b--c), the longer wins; where a cut leaves too
// little of two names to tell them apart, the first in sorted order.
func (c *Config) MCPServerOf(name string) string {
	rest, ok := strings.CutPrefix(name, MCPPrefix)
	if !ok {
		return ""
	}
	// What is left of mcp--SERVER--TOOL in a name that was cut short.
	stem := ""
	if len(name) == mcpMaxName && hashed().MatchString(name) {
		stem = name[:len(name)-len("-01234567")]
	}
	found := ""
	for s := range c.MCPServers {
		fits := strings.HasPrefix(rest, s+"--") || stem != "" && strings.HasPrefix(MCPPrefix+s+"--", stem)
		if fits && (len(s) > len(found) || len(s) == len(found) && s < found) {
			found = s
		}
	}
	return found
}

// mcpMaxName is the longest tool name model APIs accept, to which
// mcp.ToolName cuts the names it makes.
const mcpMaxName = 64

// hashed matches a name that ends in the hash mcp.ToolName adds.
var hashed = lazyregexp.New(`-[0-9a-f]{8}$`)

// SystemFiles returns the system configuration files, read in order:
// IKIGAI_SYSTEM_CONFIG if set; else config.json in the system
// configuration directory the build was made for, followed, for a build
// whose prefix is /usr (a distribution's package) but whose configuration
// directory is not /etc, by /etc/ikigai/config.json, where an
// administrator looks for it.
func SystemFiles(getenv func(string) string) []string {
	if p := getenv("IKIGAI_SYSTEM_CONFIG"); p != "" {
		return []string{p}
	}
	files := []string{filepath.Join(buildinfo.SysconfDir, "ikigai", "config.json")}
	if buildinfo.Prefix == "/usr" && filepath.Clean(buildinfo.SysconfDir) != "/etc" {
		files = append(files, "/etc/ikigai/config.json")
	}
	return files
}

// Scope says which file a setting comes from; the project may not trust
// itself.
type Scope int

const (
	System Scope = iota
	User
	Project
	CommandLine // flags for one run
)

// ReadFile applies the settings in the JSON file at path, if it exists.
// name is how errors refer to the file, such as "~/.ikigai/config.json".
func (c *Config) ReadFile(path, name string, scope Scope) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, fserr.Reason(err))
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
	d := &decoder{file: file, project: scope == Project}
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
			d.enum(key, raw, &c.Provider, "anthropic", "openai", "openai-compatible", "google")
		case "model":
			d.string(key, raw, &c.Model)
		case "base_url":
			d.string(key, raw, &c.BaseURL)
		case "max_tokens":
			d.int(key, raw, &c.MaxTokens)
		case "reasoning":
			d.enum(key, raw, &c.Reasoning, "off", "low", "medium", "high")
		case "max_tool_turns":
			d.int(key, raw, &c.MaxToolTurns)
		case "approval":
			d.enum(key, raw, &c.Approval, "ask", "auto", "read-only", "sandboxed")
		case "allow":
			d.rules(key, raw, scope, &c.Allow)
		case "ask":
			d.rules(key, raw, scope, &c.Ask)
		case "deny":
			d.rules(key, raw, scope, &c.Deny)
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
			d.directories(key, raw, &c.TrustedDirectories)
		case "mcp_servers", "mcpServers":
			// mcpServers is Claude Code's and gemini-cli's spelling, so a
			// server list copied from them works unchanged.
			d.mcpServers(key, raw, c)
		case "log_max_bytes":
			d.int64(key, raw, &c.LogMaxBytes)
		case "checkpoint_max_mb":
			d.count(key, raw, &c.CheckpointMaxMB)
		case "context_window":
			d.int(key, raw, &c.ContextWindow)
		case "compact_at":
			d.share(key, raw, &c.CompactAt)
		case "prices":
			d.prices(key, raw, c)
		case "sandbox":
			d.stricter(key, raw, &c.Sandbox, scope, string(sandbox.Off), string(sandbox.WorkspaceWrite), string(sandbox.ReadOnly))
		case "sandbox_network":
			d.stricter(key, raw, &c.SandboxNetwork, scope, "on", "off")
		case "sandbox_fallback":
			d.stricter(key, raw, &c.SandboxFallback, scope, string(sandbox.Warn), string(sandbox.Require))
		case "env_exclude":
			d.patterns(key, raw, &c.EnvExclude)
		case "max_parallel_tools":
			d.int(key, raw, &c.MaxParallelTools)
		case "stream_idle_timeout_seconds":
			d.seconds(key, raw, &c.StreamIdleTimeout)
		case "tool_result_inline_bytes":
			d.int(key, raw, &c.ResultInline)
		case "max_response_bytes":
			d.int(key, raw, &c.MaxResponseBytes)
		case "hooks":
			d.hooks(key, raw, c, scope)
		case "agent_max_depth":
			d.int(key, raw, &c.AgentMaxDepth)
		case "agent_max_running":
			d.int(key, raw, &c.AgentMaxRunning)
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
	{"IKIGAI_REASONING", "reasoning", false},
	{"IKIGAI_MAX_TOOL_TURNS", "max_tool_turns", true},
	{"IKIGAI_APPROVAL", "approval", false},
	{"IKIGAI_TOOL_TIMEOUT_SECONDS", "tool_timeout_seconds", true},
	{"IKIGAI_SCHEMA_TIMEOUT_SECONDS", "schema_timeout_seconds", true},
	{"IKIGAI_SANDBOX", "sandbox", false},
	{"IKIGAI_SANDBOX_NETWORK", "sandbox_network", false},
	{"IKIGAI_SANDBOX_FALLBACK", "sandbox_fallback", false},
	{"IKIGAI_STREAM_IDLE_TIMEOUT_SECONDS", "stream_idle_timeout_seconds", true},
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

// SandboxPolicy returns the sandbox settings as a policy for tools run in
// workspace, the project directory, with ~ meaning home.
func (c *Config) SandboxPolicy(workspace, home string) *sandbox.Policy {
	p := &sandbox.Policy{
		Mode:      sandbox.Mode(c.Sandbox),
		Network:   c.SandboxNetwork != "off",
		Fallback:  sandbox.Fallback(c.SandboxFallback),
		Workspace: workspace,
		Home:      home,
	}
	for name, t := range c.Tools {
		if t.Sandbox != nil {
			if p.Tools == nil {
				p.Tools = map[string]sandbox.Setting{}
			}
			p.Tools[name] = *t.Sandbox
		}
	}
	return p
}

// Grants is what a project's configuration would let the agent do without
// asking, for the question whether to trust it.
type Grants struct {
	// Approval is the approval mode it sets; "" when it sets none.
	Approval string
	// Allow are its allow rules.
	Allow []string
}

// ReadGrants reads the grants of the project configuration file at path,
// if it exists, without applying it. name is how errors refer to the file.
func ReadGrants(path, name string) (Grants, error) {
	c := &Config{}
	if err := c.ReadFile(path, name, Project); err != nil {
		return Grants{}, err
	}
	g := Grants{Approval: c.Approval}
	for _, r := range c.Allow {
		g.Allow = append(g.Allow, r.String())
	}
	return g, nil
}
