package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/ikigai-tools/ikigai/internal/buildinfo"
	"github.com/ikigai-tools/ikigai/internal/calllog"
	"github.com/ikigai-tools/ikigai/internal/registry"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Server offers a registry's tools to MCP clients. Each tool keeps its
// name, description, annotations and parameters schema, byte for byte, and
// a call runs the way the agent runs it: through the registry, with the
// tool's timeout, stopped when the client cancels, logged to the call log.
type Server struct {
	srv     *sdk.Server
	timeout func(name string) time.Duration
	log     *calllog.Log

	// calls are the calls under way; stop ends them once the client is
	// gone, so that no tool outlives the server.
	calls sync.WaitGroup
	stop  context.Context

	mu    sync.Mutex // guards reg, names, and calls.Add against stop
	reg   *registry.Registry
	names []string
}

// NewServer returns a server of reg's tools. timeout gives each tool's
// time limit; log records every call.
func NewServer(reg *registry.Registry, timeout func(name string) time.Duration, log *calllog.Log) *Server {
	s := &Server{
		srv: sdk.NewServer(&sdk.Implementation{Name: "ikigai", Version: buildinfo.Version}, &sdk.ServerOptions{
			Logger:   sdkLogger(log.Logger()),
			HasTools: true, // a server with no tool yet can gain some on refresh
		}),
		timeout: timeout,
		log:     log,
	}
	s.Replace(reg)
	return s
}

// Run serves one client, reading its messages from r and writing to w
// (stdin and stdout for a client that started ikigai), until the client
// disconnects or ctx ends. Calls still running then are cancelled, and
// Run returns once they have ended.
func (s *Server) Run(ctx context.Context, r io.ReadCloser, w io.WriteCloser) error {
	stop, cancel := context.WithCancel(context.Background())
	s.stop = stop
	err := s.srv.Run(ctx, &sdk.IOTransport{Reader: r, Writer: w})
	s.mu.Lock()
	cancel()
	s.mu.Unlock()
	s.calls.Wait()
	return err
}

// Replace offers reg's tools instead of the ones offered so far; connected
// clients are told the list changed.
func (s *Server) Replace(reg *registry.Registry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reg = reg
	var names []string
	for _, t := range reg.Tools() {
		names = append(names, t.Name)
		s.srv.AddTool(definition(t), s.handler(t.Name))
	}
	var gone []string
	for _, n := range s.names {
		if _, ok := reg.Lookup(n); !ok {
			gone = append(gone, n)
		}
	}
	if len(gone) > 0 {
		s.srv.RemoveTools(gone...)
	}
	s.names = names
}

// definition describes a tool to MCP clients.
func definition(t registry.Tool) *sdk.Tool {
	d := &sdk.Tool{Name: t.Name, Description: t.Schema.Description, InputSchema: t.Schema.Parameters}
	a := t.Schema.Annotations
	if a != (registry.Annotations{}) {
		d.Annotations = &sdk.ToolAnnotations{
			Title:           a.Title,
			ReadOnlyHint:    a.ReadOnly(),
			IdempotentHint:  a.IdempotentHint != nil && *a.IdempotentHint,
			DestructiveHint: a.DestructiveHint,
			OpenWorldHint:   a.OpenWorldHint,
		}
	}
	return d
}

func (s *Server) handler(name string) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		s.mu.Lock()
		reg, stopping := s.reg, s.stop.Err() != nil
		if !stopping {
			s.calls.Add(1)
		}
		s.mu.Unlock()
		if stopping {
			return nil, errors.New("the server is stopping")
		}
		defer s.calls.Done()
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(s.stop, cancel)()
		args := req.Params.Arguments
		if len(args) == 0 || string(args) == "null" {
			args = json.RawMessage("{}") // MCP lets a client leave arguments out
		}
		start := time.Now()
		env := reg.Call(ctx, name, args, s.timeout(name))
		elapsed := time.Since(start)
		source := registry.Source("")
		if t, ok := reg.Lookup(name); ok {
			source = t.Source
		}
		s.log.Record(calllog.Call{Tool: name, Source: source, Args: args, Envelope: env, Elapsed: elapsed})
		return callResult(env), nil
	}
}
