// Package mcp connects ikigai to the Model Context Protocol both ways:
// Servers starts the MCP servers of the configuration and offers their
// tools as registry tools, run with the envelope and failure codes of an
// executable; Server offers the registry's tools to any MCP client.
package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"

	"github.com/ikigai-tools/ikigai/internal/config"
	// What a tool name may be is the protocol's rule; the host takes it
	// from its one home on purpose.
	"github.com/ikigai-tools/ikigai/toolsdk"
)

// ToolName returns the name the model sees for the tool called tool on the
// MCP server called server: mcp--SERVER--TOOL, with each character that
// model APIs reject replaced by an underscore. They accept what
// toolsdk.ValidName does, and hyphens (^[a-zA-Z0-9_-]{1,64}$), which an
// executable's tool name cannot hold but an MCP tool's may. A name that had
// to be changed so, or cut to 64 characters, ends in -HASH, eight hex
// digits of a hash of server and tool: the same name from run to run, and
// not the name of another tool.
func ToolName(server, tool string) string {
	name := []byte(config.MCPPrefix + server + "--" + tool)
	changed := len(name) > toolsdk.MaxNameLen
	for i, c := range name {
		if c != '-' && !toolsdk.ValidName(string(c)) {
			name[i] = '_'
			changed = true
		}
	}
	if !changed {
		return string(name)
	}
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	suffix := "-" + hex.EncodeToString(sum[:4])
	return string(name[:min(len(name), toolsdk.MaxNameLen-len(suffix))]) + suffix
}

// sdkLogger returns a logger for the SDK that passes its events on as
// debug events, whatever level it gives them: they interest whoever
// debugs ikigai, not the log of calls.
func sdkLogger(l *slog.Logger) *slog.Logger {
	return slog.New(debugHandler{l.Handler()})
}

type debugHandler struct{ slog.Handler }

func (h debugHandler) Enabled(ctx context.Context, _ slog.Level) bool {
	return h.Handler.Enabled(ctx, slog.LevelDebug)
}

func (h debugHandler) Handle(ctx context.Context, r slog.Record) error {
	r.Level = slog.LevelDebug
	return h.Handler.Handle(ctx, r)
}

func (h debugHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return debugHandler{h.Handler.WithAttrs(attrs)}
}

func (h debugHandler) WithGroup(name string) slog.Handler {
	return debugHandler{h.Handler.WithGroup(name)}
}
