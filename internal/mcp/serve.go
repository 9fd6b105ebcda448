package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/ikigai-tools/ikigai/internal/buildinfo"
	"github.com/ikigai-tools/ikigai/internal/calllog"
	"github.com/ikigai-tools/ikigai/internal/plainjson"
	"github.com/ikigai-tools/ikigai/internal/registry"
	"github.com/ikigai-tools/ikigai/internal/rules"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Server offers a registry's tools to MCP clients. Each tool keeps its
// name, description, annotations and parameters schema, byte for byte, and
// a call runs the way the agent runs it: through the registry, with the
// tool's timeout, stopped when the client cancels, logged to the call log.
type Server struct {
	srv     *sdk.Server
	timeout func(name string) time.Duration
	denied  rules.List
	log     *calllog.Log

	// calls are the calls under way; stop ends them once the client is
	// gone, so that no tool outlives the server.
	calls sync.WaitGroup
	stop  context.Context

	mu    sync.Mutex // guards reg, names, and calls.Add against stop
	reg   *registry.Registry
	names []string
}

// NewServer returns a server of reg's tools but those denied (the
// configuration's deny list): a denied tool is neither listed nor run.
// timeout gives each tool's time limit; log records every call.
func NewServer(reg *registry.Registry, timeout func(name string) time.Duration, log *calllog.Log, denied rules.List) *Server {
	s := &Server{
		srv: sdk.NewServer(&sdk.Implementation{Name: "ikigai", Version: buildinfo.Version}, &sdk.ServerOptions{
			Logger: sdkLogger(log.Logger()),
			// Tools even before there are any: a server with no tool yet can
			// gain some on refresh. No logging: nothing is sent through it.
			Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{ListChanged: true}},
		}),
		timeout: timeout,
		denied:  denied,
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
	err := s.srv.Run(ctx, lenient(r, w))
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
		if s.denied.Covers(t.Name) {
			continue
		}
		names = append(names, t.Name)
		s.srv.AddTool(definition(t), s.handler(t.Name))
	}
	var gone []string
	for _, n := range s.names {
		if !slices.Contains(names, n) {
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

// lenient returns the transport of a server reading r and writing w that
// does not end the session at the first malformed line, as the SDK's
// does: a line that is not JSON gets JSON-RPC's parse error (-32700), and
// JSON that is not a JSON-RPC message its invalid request (-32600), from
// here; the SDK gets the well-formed lines only.
func lenient(r io.ReadCloser, w io.WriteCloser) sdk.Transport {
	out := &lockedWriteCloser{w: w}
	pr, pw := io.Pipe()
	go func() {
		err := filterLines(r, pw, out)
		pw.CloseWithError(err)
	}()
	return &sdk.IOTransport{Reader: pr, Writer: out}
}

// filterLines copies the well-formed messages of r to dst, a line each,
// and answers the others on out, until r ends or dst is closed.
func filterLines(r io.Reader, dst io.Writer, out io.Writer) error {
	in := bufio.NewReader(r)
	for {
		line, tooLong, err := readLine(in, sdk.DefaultMaxLineLength)
		if len(bytes.TrimSpace(line)) > 0 || tooLong {
			if msg := malformed(line, tooLong); msg != nil {
				if _, werr := out.Write(msg); werr != nil {
					return werr
				}
			} else if _, werr := dst.Write(append(line, '\n')); werr != nil {
				return werr
			}
		}
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

// readLine reads one line of in, without its newline, keeping at most max
// bytes of it; tooLong says that it was longer.
func readLine(in *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := in.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if err != bufio.ErrBufferFull {
			return bytes.TrimSuffix(line, []byte("\n")), tooLong, err
		}
	}
}

// malformed returns the error response to a line that is not one
// JSON-RPC message (or a batch of them), or nil for one that is.
func malformed(line []byte, tooLong bool) []byte {
	var id any // null unless the message's own can be told
	answer := func(code int64, message string) []byte {
		resp, _ := plainjson.Marshal(struct {
			Version string `json:"jsonrpc"`
			ID      any    `json:"id"`
			Error   any    `json:"error"`
		}{"2.0", id, struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		}{code, message}})
		return append(resp, '\n')
	}
	switch {
	case tooLong:
		return answer(jsonrpc.CodeInvalidRequest, fmt.Sprintf("Invalid Request: a message of more than %d MiB", sdk.DefaultMaxLineLength>>20))
	case !json.Valid(line):
		return answer(jsonrpc.CodeParseError, "Parse error: the message is not JSON")
	}
	line = bytes.TrimSpace(line)
	msgs := []json.RawMessage{line}
	if line[0] == '[' {
		if json.Unmarshal(line, &msgs) != nil || len(msgs) == 0 {
			return answer(jsonrpc.CodeInvalidRequest, "Invalid Request: an empty batch")
		}
	}
	for _, raw := range msgs {
		msg, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			return answer(jsonrpc.CodeInvalidRequest, "Invalid Request: "+err.Error())
		}
		if resp, ok := msg.(*jsonrpc.Response); ok && resp.Result == nil && resp.Error == nil {
			if len(msgs) == 1 {
				id = resp.ID.Raw()
			}
			return answer(jsonrpc.CodeInvalidRequest, "Invalid Request: neither a request nor a response")
		}
	}
	return nil
}

// lockedWriteCloser lets the SDK and filterLines write whole messages to
// one stream without mixing them.
type lockedWriteCloser struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriteCloser) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriteCloser) Close() error { return l.w.Close() }
