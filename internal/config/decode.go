package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// decoder collects the errors of one file (or environment variable), each
// naming the file and the key.
type decoder struct {
	file string
	env  bool // the file is an environment variable, which sets one key
	errs []error
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

func (d *decoder) strings(key string, raw json.RawMessage, dst *[]string) bool {
	var list []string
	if json.Unmarshal(raw, &list) != nil || raw[0] != '[' {
		d.want(key, "a list of strings", raw)
		return false
	}
	*dst = list
	return true
}

// names reads a list of tool names.
func (d *decoder) names(key string, raw json.RawMessage, dst *[]string) {
	var list []string
	if !d.strings(key, raw, &list) {
		return
	}
	for i, name := range list {
		if !isToolName(name) {
			d.errorf(fmt.Sprintf("%s[%d]", key, i), "%q is not a tool name (%s)", name, toolNameRule)
			return
		}
	}
	*dst = list
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
		if name == "" || strings.ContainsFunc(name, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
		}) {
			d.errorf(at, "a server name may hold only letters, digits, hyphens and underscores")
			continue
		}
		fields, f, ok := d.object(at, m[name])
		if !ok {
			continue
		}
		var s MCPServer
		for _, field := range fields {
			k, v := at+"."+field, f[field]
			switch field {
			case "command":
				d.string(k, v, &s.Command)
			case "args":
				d.strings(k, v, &s.Args)
			case "env":
				if json.Unmarshal(v, &s.Env) != nil || v[0] != '{' {
					d.want(k, "an object of strings", v)
				}
			case "url":
				d.string(k, v, &s.URL)
			case "timeout_seconds":
				d.seconds(k, v, &s.Timeout)
			case "startup_timeout_seconds":
				d.seconds(k, v, &s.StartupTimeout)
			case "disabled_tools":
				d.strings(k, v, &s.DisabledTools)
			default:
				d.unknown(k)
			}
		}
		switch {
		case s.Command == "" && s.URL == "":
			d.errorf(at, `want "command" or "url"`)
		case s.Command != "" && s.URL != "":
			d.errorf(at, `want "command" or "url", not both`)
		}
		if c.MCPServers == nil {
			c.MCPServers = map[string]MCPServer{}
		}
		c.MCPServers[name] = s
	}
}

// toolNameRule says what isToolName accepts, for messages.
const toolNameRule = "letters, digits and underscores, at most 64; an MCP tool's name, mcp--SERVER--TOOL, may hold hyphens"

// isToolName reports whether s can name a tool: an executable's name
// (model names without hyphens), or an MCP tool's, which may have them. A
// hyphen elsewhere is most likely a file name (file-read) given for a
// tool name (file_read).
func isToolName(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	mcp := strings.HasPrefix(s, MCPPrefix)
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' && mcp) {
			return false
		}
	}
	return true
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

// unwrap returns the system's reason without the path an fs error carries.
func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
