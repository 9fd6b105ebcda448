package app

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/ikigai-tools/ikigai/internal/calllog"
	"github.com/ikigai-tools/ikigai/internal/config"
	"github.com/ikigai-tools/ikigai/internal/discovery"
	"github.com/ikigai-tools/ikigai/internal/mcp"
	"github.com/ikigai-tools/ikigai/internal/registry"
	"github.com/urfave/cli/v2"
)

// openLog opens the call log in the user's state directory. ikigai runs
// on without a log it cannot open, after saying so.
func (e *env) openLog(c *cli.Context) *calllog.Log {
	if os.Getenv("XDG_STATE_HOME") == "" && e.home == "" {
		return nil
	}
	log, err := calllog.Open(calllog.Dir(os.Getenv, e.home), e.cfg.LogMaxBytes, c.Bool("debug"))
	if err != nil {
		fmt.Fprintf(c.App.ErrWriter, "ikigai: no log: %v\n", err)
		return nil
	}
	return log
}

// startMCP starts the configured MCP servers (those named, or all), in
// the background; the caller closes them.
func (e *env) startMCP(log *calllog.Log, names ...string) *mcp.Servers {
	servers := e.cfg.MCPServers
	if len(names) > 0 {
		servers = map[string]config.MCPServer{}
		for _, n := range names {
			servers[n] = e.cfg.MCPServers[n]
		}
	}
	return mcp.Start(servers, log.Logger())
}

// discover builds the registry from the tool directories and the sources
// in more (the MCP servers), and logs what it found as debug events.
func (e *env) discover(ctx context.Context, log *calllog.Log, more ...discovery.ToolSource) *registry.Registry {
	start := time.Now()
	r := discovery.Scan(ctx, e.dirs, more...)
	logger := log.Logger()
	for _, t := range r.Tools() {
		logger.Debug("tool found", "tool", t.Name, "source", string(t.Source), "path", t.Path)
	}
	for _, f := range r.Failed() {
		logger.Debug("tool failed", "tool", f.Name, "source", string(f.Source), "path", f.Path, "reason", f.Reason)
	}
	for _, u := range r.Untrusted() {
		logger.Debug("tool not run: directory not trusted", "tool", u.Name, "path", u.Path)
	}
	logger.Debug("discovery done", "tools", len(r.Tools()), "failed", len(r.Failed()), "elapsed_ms", time.Since(start).Milliseconds())
	return r
}
