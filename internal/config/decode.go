package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ikigai-tools/ikigai/internal/hooks"
	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/rules"
	"github.com/ikigai-tools/ikigai/internal/sandbox"
	// What a tool name may be is the protocol's rule; config takes it from
	// its one home on purpose.
	"github.com/ikigai-tools/ikigai/toolsdk"
)

// decoder collects the errors of one file (or environment variable), each
// naming the file and the key.
type decoder struct {
	file    string
	env     bool // the file is an environment variable, which sets one key
	project bool // the file is a project's
	errs    []error
}

func (d *decoder) errorf(key, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if d.env {
		d.errs = append(d.errs, fmt.Errorf("%s: %s", d.file, msg))
		return
	}
	d.errs = append(d.errs, fmt.Errorf("%s: %q: %s", d.file, key, msg))
}

func (d *decoder) want(key, what string, raw json.RawMessage) {
	d.errorf(key, "want %s, got %s", what, shorten(raw))
}

func (d *decoder) string(key string, raw json.RawMessage, dst *string) bool {
	if json.Unmarshal(raw, dst) != nil || raw[0] != '"' {
		d.want(key, "a string", raw)
		return false
	}
	return true
}

func (d *decoder) enum(key string, raw json.RawMessage, dst *string, values ...string) {
	var s string
	if !d.string(key, raw, &s) {
		return
	}
	if !slices.Contains(values, s) {
		d.want(key, `one of "`+strings.Join(values, `", "`)+`"`, raw)
		return
	}
	*dst = s
}

func (d *decoder) int64(key string, raw json.RawMessage, dst *int64) {
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || n <= 0 {
		d.want(key, "a whole number above 0", raw)
		return
	}
	*dst = n
}

func (d *decoder) int(key string, raw json.RawMessage, dst *int) {
	var n int64
	d.int64(key, raw, &n)
	if n != 0 {
		*dst = int(n)
	}
}

// count reads a whole number that may be 0.
func (d *decoder) count(key string, raw json.RawMessage, dst *int) {
	n, err := strconv.Atoi(string(raw))
	if err != nil || n < 0 {
		d.want(key, "a whole number, 0 or more", raw)
		return
	}
	*dst = n
}

func (d *decoder) seconds(key string, raw json.RawMessage, dst *time.Duration) {
	var s float64
	if json.Unmarshal(raw, &s) != nil || raw[0] == '"' {
		d.want(key, "a number", raw)
		return
	}
	if !(s > 0) || s > math.MaxInt64/float64(time.Second) {
		d.want(key, "a number of seconds above 0", raw)
		return
	}
	*dst = time.Duration(s * float64(time.Second))
}

// bool reads true or false; nil when it is neither.
func (d *decoder) bool(key string, raw json.RawMessage) *bool {
	var b bool
	if json.Unmarshal(raw, &b) != nil || raw[0] == '"' {
		d.want(key, "true or false", raw)
		return nil
	}
	return &b
}

// stringMap reads an object of strings.
func (d *decoder) stringMap(key string, raw json.RawMessage, dst *map[string]string) {
	if json.Unmarshal(raw, dst) != nil || raw[0] != '{' {
		d.want(key, "an object of strings", raw)
	}
}

func (d *decoder) strings(key string, raw json.RawMessage, dst *[]string) bool {
	var list []string
	if json.Unmarshal(raw, &list) != nil || raw[0] != '[' {
		d.want(key, "a list of strings", raw)
		return false
	}
	*dst = list
	return true
}

// directories reads a list of directories, each absolute or from the home
// directory (~/): a relative one would mean a different directory in each
// working directory, and "." or "" every one of them.
func (d *decoder) directories(key string, raw json.RawMessage, dst *[]string) {
	var list []string
	if !d.strings(key, raw, &list) {
		return
	}
	for i, dir := range list {
		if !filepath.IsAbs(dir) && dir != "~" && !strings.HasPrefix(dir, "~/") {
			d.errorf(fmt.Sprintf("%s[%d]", key, i), "%q is not an absolute path: write the directory in full, or from ~/", dir)
			return
		}
	}
	*dst = list
}

// share reads a share of a whole, above 0 and at most 1, or -1 for none.
func (d *decoder) share(key string, raw json.RawMessage, dst *float64) {
	var f float64
	if json.Unmarshal(raw, &f) != nil || raw[0] == '"' || !(f > 0 && f <= 1 || f == -1) {
		d.want(key, "a share above 0 and at most 1 (0.85 for 85%), or -1 for never", raw)
		return
	}
	*dst = f
}

// prices reads what models cost; each model's entry replaces the one an
// earlier file set.
func (d *decoder) prices(key string, raw json.RawMessage, c *Config) {
	models, m, ok := d.object(key, raw)
	if !ok {
		return
	}
	for _, model := range models {
		at := key + "." + model
		fields, f, ok := d.object(at, m[model])
		if !ok {
			continue
		}
		var p provider.Price
		for _, field := range fields {
			dst := map[string]*float64{"input": &p.Input, "output": &p.Output, "cache_read": &p.CacheRead, "cache_write": &p.CacheWrite}[field]
			if dst == nil {
				d.unknown(at + "." + field)
				continue
			}
			if json.Unmarshal(f[field], dst) != nil || f[field][0] == '"' || *dst < 0 {
				d.want(at+"."+field, "dollars per million tokens, 0 or more", f[field])
			}
		}
		if c.Prices == nil {
			c.Prices = map[string]provider.Price{}
		}
		c.Prices[model] = p
	}
}

// patterns decodes a list of glob patterns (path.Match syntax).
func (d *decoder) patterns(key string, raw json.RawMessage, dst *[]string) {
	var list []string
	if !d.strings(key, raw, &list) {
		return
	}
	for i, p := range list {
		if _, err := path.Match(p, ""); err != nil || p == "" {
			d.errorf(fmt.Sprintf("%s[%d]", key, i), "%q is not a glob pattern (*, ? and [...] match a variable's name)", p)
			return
		}
	}
	*dst = list
}

// rules reads a list of approval rules and adds them to dst; an entry
// that is not a rule is reported, and none of the list is added.
func (d *decoder) rules(key string, raw json.RawMessage, scope Scope, dst *[]Rule) {
	var list []string
	if !d.strings(key, raw, &list) {
		return
	}
	var add []Rule
	bad := false
	for i, s := range list {
		r, err := rules.Parse(s)
		if err != nil {
			d.errorf(fmt.Sprintf("%s[%d]", key, i), "%q: %v", s, err)
			bad = true
			continue
		}
		add = append(add, Rule{r, scope})
	}
	if !bad {
		*dst = append(*dst, add...)
	}
}

// object reads a JSON object and returns its members in key order.
func (d *decoder) object(key string, raw json.RawMessage) ([]string, map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || raw[0] != '{' {
		d.want(key, "an object", raw)
		return nil, nil, false
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys, m, true
}

func (d *decoder) unknown(key string) {
	d.errs = append(d.errs, fmt.Errorf("%s: unknown key %q", d.file, key))
}

// tools reads the per-tool settings; each tool's entry replaces the one an
// earlier file set.
func (d *decoder) tools(key string, raw json.RawMessage, c *Config) {
	names, m, ok := d.object(key, raw)
	if !ok {
		return
	}
	for _, name := range names {
		at := key + "." + name
		if !isToolName(name) {
			d.errorf(at, "%q is not a tool name (%s)", name, toolNameRule)
			continue
		}
		fields, f, ok := d.object(at, m[name])
		if !ok {
			continue
		}
		var t Tool
		for _, field := range fields {
			switch field {
			case "timeout_seconds":
				d.seconds(at+"."+field, f[field], &t.Timeout)
			case "sandbox":
				t.Sandbox = d.sandboxSetting(at+"."+field, f[field])
			case "deferred":
				t.Deferred = d.bool(at+"."+field, f[field])
			case "result_inline_bytes":
				d.int(at+"."+field, f[field], &t.ResultInline)
			default:
				d.unknown(at + "." + field)
			}
		}
		if c.Tools == nil {
			c.Tools = map[string]Tool{}
		}
		c.Tools[name] = t
	}
}

// mcpServers reads the MCP servers; each server's entry replaces the one an
// earlier file set.
func (d *decoder) mcpServers(key string, raw json.RawMessage, c *Config) {
	names, m, ok := d.object(key, raw)
	if !ok {
		return
	}
	for _, name := range names {
		at := key + "." + name
		if !isServerName(name) {
			d.errorf(at, "a server name may hold only letters, digits, hyphens and underscores")
			continue
		}
		fields, f, ok := d.object(at, m[name])
		if !ok {
			continue
		}
		var s MCPServer
		// Keys that belong to one kind of server only: a mistake on the
		// other kind, not something to ignore.
		var commandKeys, urlKeys []string
		for _, field := range fields {
			k, v := at+"."+field, f[field]
			switch field {
			case "command", "args", "env", "cwd":
				commandKeys = append(commandKeys, field)
			case "url", "headers", "bearer_token_env_var":
				urlKeys = append(urlKeys, field)
			}
			switch field {
			case "type":
				d.enum(k, v, &s.Type, "stdio", "http", "sse")
			case "command":
				d.string(k, v, &s.Command)
			case "args":
				d.strings(k, v, &s.Args)
			case "env":
				d.stringMap(k, v, &s.Env)
			case "cwd":
				d.string(k, v, &s.Cwd)
			case "url":
				d.string(k, v, &s.URL)
			case "headers":
				d.stringMap(k, v, &s.Headers)
			case "bearer_token_env_var":
				d.string(k, v, &s.BearerTokenEnvVar)
			case "enabled":
				if e := d.bool(k, v); e != nil {
					s.Disabled = !*e
				}
			case "timeout_seconds":
				d.seconds(k, v, &s.Timeout)
			case "startup_timeout_seconds":
				d.seconds(k, v, &s.StartupTimeout)
			case "disabled_tools":
				d.strings(k, v, &s.DisabledTools)
			case "sandbox":
				s.Sandbox = d.sandboxSetting(k, v)
			case "deferred":
				s.Deferred = d.bool(k, v)
			default:
				d.unknown(k)
			}
		}
		switch {
		case s.Command == "" && s.URL == "":
			d.errorf(at, `want "command" or "url"`)
		case s.Command != "" && s.URL != "":
			d.errorf(at, `want "command" or "url", not both`)
		case s.Command != "" && len(urlKeys) > 0:
			d.errorf(at+"."+urlKeys[0], "applies only to a server reached by \"url\"")
		case s.URL != "" && len(commandKeys) > 0:
			d.errorf(at+"."+commandKeys[0], "applies only to a server started by \"command\"")
		case s.Type == "stdio" && s.URL != "":
			d.errorf(at+".type", `"stdio" wants a "command"`)
		case (s.Type == "http" || s.Type == "sse") && s.Command != "":
			d.errorf(at+".type", "%q wants a \"url\"", s.Type)
		}
		if c.MCPServers == nil {
			c.MCPServers = map[string]MCPServer{}
		}
		c.MCPServers[name] = s
	}
}

// hooks reads the hooks of each event: a list of {match, command,
// timeout}. They are added to those of the files before.
func (d *decoder) hooks(key string, raw json.RawMessage, c *Config, scope Scope) {
	events, m, ok := d.object(key, raw)
	if !ok {
		return
	}
	hookScope := map[Scope]hooks.Scope{System: hooks.SystemScope, User: hooks.UserScope, Project: hooks.ProjectScope}[scope]
	for _, event := range events {
		at := key + "." + event
		ev, err := hooks.ParseEvent(event)
		if err != nil {
			d.errorf(at, "%v", err)
			continue
		}
		var list []json.RawMessage
		if json.Unmarshal(m[event], &list) != nil || m[event][0] != '[' {
			d.want(at, "a list of hooks", m[event])
			continue
		}
		for i, item := range list {
			name := fmt.Sprintf("%s[%d]", at, i)
			fields, f, ok := d.object(name, item)
			if !ok {
				continue
			}
			var match, command string
			var timeout time.Duration
			for _, field := range fields {
				k, v := name+"."+field, f[field]
				switch field {
				case "match":
					d.string(k, v, &match)
				case "command":
					d.string(k, v, &command)
				case "timeout":
					d.seconds(k, v, &timeout)
				case "matcher", "hooks", "type":
					d.errorf(k, `unknown key: an ikigai hook is {"match", "command", "timeout"}, one per entry (docs/hooks.md)`)
				default:
					d.unknown(k)
				}
			}
			if strings.TrimSpace(command) == "" {
				d.errorf(name, `want a "command"`)
				continue
			}
			h, err := hooks.NewHook(ev, name, hooks.Source(d.file), hookScope, match, command, timeout)
			if err != nil {
				d.errorf(name+".match", "%v", err)
				continue
			}
			c.Hooks = append(c.Hooks, h)
		}
	}
}

// stricter reads one of values, which go from the loosest sandbox setting
// to the strictest: a project may make the sandbox stricter than the user
// has it, never looser.
func (d *decoder) stricter(key string, raw json.RawMessage, dst *string, scope Scope, values ...string) {
	old := *dst
	var s string
	d.enum(key, raw, &s, values...)
	if s == "" {
		return
	}
	if scope == Project && slices.Index(values, s) < slices.Index(values, old) {
		d.errorf(key, "a project may make the sandbox stricter, not looser: %q is looser than %q", s, old)
		return
	}
	*dst = s
}

// sandboxSetting reads a tool's or a server's sandbox setting: a mode, or
// an object of "mode", "write" (paths) and "network" ("on" or "off").
// Only the user and the system may set one: it can loosen the sandbox.
func (d *decoder) sandboxSetting(key string, raw json.RawMessage) *sandbox.Setting {
	if d.project {
		d.errorf(key, "may be set only in the user or system configuration: it can loosen the sandbox")
		return nil
	}
	var set sandbox.Setting
	modes := []string{string(sandbox.Off), string(sandbox.ReadOnly), string(sandbox.WorkspaceWrite)}
	if len(raw) > 0 && raw[0] == '"' {
		var mode string
		d.enum(key, raw, &mode, modes...)
		if mode == "" {
			return nil
		}
		set.Mode = sandbox.Mode(mode)
		return &set
	}
	fields, f, ok := d.object(key, raw)
	if !ok {
		return nil
	}
	for _, field := range fields {
		k, v := key+"."+field, f[field]
		switch field {
		case "mode":
			var mode string
			d.enum(k, v, &mode, modes...)
			set.Mode = sandbox.Mode(mode)
		case "write":
			var paths []string
			if !d.strings(k, v, &paths) {
				continue
			}
			for i, p := range paths {
				if err := sandbox.CheckPath(p); err != nil {
					d.errorf(fmt.Sprintf("%s[%d]", k, i), "%v", err)
					paths = nil
					break
				}
			}
			if paths != nil {
				set.Write = paths
			}
		case "network":
			var network string
			d.enum(k, v, &network, "on", "off")
			if network != "" {
				on := network == "on"
				set.Network = &on
			}
		default:
			d.unknown(k)
		}
	}
	return &set
}

// toolNameRule says what isToolName accepts, for messages.
const toolNameRule = "letters, digits and underscores, at most 64; an MCP tool's name, mcp--SERVER--TOOL, may hold hyphens"

// isToolName reports whether s can name a tool: an executable's name
// (toolsdk.ValidName: no hyphens), or an MCP tool's, which may have them. A
// hyphen elsewhere is most likely a file name (file-read) given for a
// tool name (file_read).
func isToolName(s string) bool {
	return toolsdk.ValidName(s) || strings.HasPrefix(s, MCPPrefix) && toolsdk.ValidName(strings.ReplaceAll(s, "-", "_"))
}

// isServerName reports whether s can name an MCP server: any number of the
// characters a tool name may hold, and hyphens, since the server's name is
// part of its tools' names (mcp.ToolName cuts those to length).
func isServerName(s string) bool {
	return s != "" && !strings.ContainsFunc(s, func(r rune) bool { return r != '-' && !toolsdk.ValidName(string(r)) })
}

// shorten returns a JSON value for a message, compact and cut short.
func shorten(raw json.RawMessage) string {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		buf.Reset()
		buf.Write(raw)
	}
	s := buf.String()
	if len(s) > 40 {
		s = strings.ToValidUTF8(s[:37], "") + "..."
	}
	return s
}

// syntaxError describes a JSON error with the line and column it is at.
func syntaxError(data []byte, err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		before := data[:max(se.Offset-1, 0)] // Offset is just past the offending byte
		line := 1 + bytes.Count(before, []byte("\n"))
		col := len(before) - bytes.LastIndexByte(before, '\n')
		return fmt.Sprintf("invalid JSON at line %d, column %d: %v", line, col, se)
	case errors.As(err, &te):
		return fmt.Sprintf("want a JSON object, got %s", te.Value)
	default:
		return "invalid JSON: " + err.Error()
	}
}
