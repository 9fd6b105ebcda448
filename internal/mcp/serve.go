//lint:file-ignore SA1019 MCP's logging and roots are deprecated from protocol 2026-07-28 but still what clients and servers of the versions ikigai speaks use.

package mcp

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path"
	"slices"
	"strings"
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

	// only are the names and patterns of the tools to serve; nil: all.
	only []string
	// warned are the sessions told already of the tools that could not
	// be served.
	warned sync.Map
}

// ServeOptions are how NewServer serves.
type ServeOptions struct {
	// Tools are the names of the tools to serve, or patterns (path.Match:
	// file_*); nil serves every tool.
	Tools []string
}

// NewServer returns a server of reg's tools but those denied (the
// configuration's deny list): a denied tool is neither listed nor run.
// timeout gives each tool's time limit; log records every call.
func NewServer(reg *registry.Registry, timeout func(name string) time.Duration, log *calllog.Log, denied rules.List, opts ...ServeOptions) *Server {
	s := &Server{timeout: timeout, denied: denied, log: log}
	for _, o := range opts {
		s.only = append(s.only, o.Tools...)
	}
	s.srv = sdk.NewServer(&sdk.Implementation{Name: "ikigai", Version: buildinfo.Version}, &sdk.ServerOptions{
		Logger: sdkLogger(log.Logger()),
		// Tools even before there are any: a server with no tool yet can
		// gain some on refresh.
		Capabilities: &sdk.ServerCapabilities{Tools: &sdk.ToolCapabilities{ListChanged: true}, Logging: &sdk.LoggingCapabilities{}},
		Instructions: s.instructions(reg),
	})
	s.srv.AddReceivingMiddleware(s.warnOnLevel)
	s.Replace(reg)
	return s
}

// serves reports whether the tool called name is served: not denied,
// and named by the --tools list if there is one.
func (s *Server) serves(name string) bool {
	if s.denied.Covers(name) {
		return false
	}
	if s.only == nil {
		return true
	}
	for _, p := range s.only {
		if ok, _ := path.Match(p, name); ok || p == name {
			return true
		}
	}
	return false
}

// instructions tell the client what the server offers: each tool on a
// line, with the first sentence of its description.
func (s *Server) instructions(reg *registry.Registry) string {
	var b strings.Builder
	b.WriteString("ikigai's tools, run on this machine as its agent runs them:\n")
	for _, t := range reg.Tools() {
		if s.serves(t.Name) {
			fmt.Fprintf(&b, "- %s: %s\n", t.Name, firstSentence(t.Schema.Description))
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// firstSentence is a description's first sentence, or its first line.
func firstSentence(desc string) string {
	desc = strings.TrimSpace(desc)
	if i := strings.IndexByte(desc, '\n'); i >= 0 {
		desc = desc[:i]
	}
	if i := strings.Index(desc, ". "); i >= 0 {
		desc = desc[:i+1]
	}
	return desc
}

// warnOnLevel sends a client that sets a log level, once, a warning for
// each tool that could not be served: before then, MCP sends no logs.
func (s *Server) warnOnLevel(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		res, err := next(ctx, method, req)
		ss, ok := req.GetSession().(*sdk.ServerSession)
		if method != "logging/setLevel" || err != nil || !ok {
			return res, err
		}
		if _, done := s.warned.LoadOrStore(ss, true); done {
			return res, err
		}
		s.mu.Lock()
		failed := s.reg.Failed()
		s.mu.Unlock()
		for _, f := range failed {
			if s.serves(f.Name) {
				ss.Log(ctx, &sdk.LoggingMessageParams{Level: "warning", Logger: "ikigai", Data: fmt.Sprintf("tool %s (%s) could not be served: %s", f.Name, f.Path, f.Reason)})
			}
		}
		return res, err
	}
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
		if !s.serves(t.Name) {
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
	d := &sdk.Tool{Name: t.Name, Description: t.Schema.Description, InputSchema: t.Schema.Parameters, OutputSchema: outputSchema(t)}
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

// outputSchema is the tool's "returns" when it describes an object, as
// MCP's outputSchema must; nil otherwise.
func outputSchema(t registry.Tool) any {
	var doc struct {
		Returns json.RawMessage `json:"returns"`
	}
	if json.Unmarshal(t.Schema.Document, &doc) != nil || len(doc.Returns) == 0 {
		return nil
	}
	var r struct {
		Type any `json:"type"`
	}
	if json.Unmarshal(doc.Returns, &r) != nil || r.Type != "object" {
		return nil
	}
	return doc.Returns
}

// RunHTTP serves clients over streamable HTTP on ln until ctx ends; each
// request must carry "Authorization: Bearer TOKEN". Calls still running
// then are cancelled, and RunHTTP returns once they have ended.
func (s *Server) RunHTTP(ctx context.Context, ln net.Listener, token string) error {
	stop, cancel := context.WithCancel(context.Background())
	s.stop = stop
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.srv }, nil)
	want := []byte("Bearer " + token)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="ikigai"`)
			http.Error(w, "unauthorized: send Authorization: Bearer TOKEN (IKIGAI_MCP_TOKEN, or the one ikigai mcp serve printed)", http.StatusUnauthorized)
			return
		}
		mcpHandler.ServeHTTP(w, r)
	})}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	s.mu.Lock()
	cancel()
	s.mu.Unlock()
	// The calls are cancelled; the clients' open streams are cut.
	srv.Close()
	s.calls.Wait()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
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
		if env.Stderr != "" {
			req.Session.Log(ctx, &sdk.LoggingMessageParams{Level: "debug", Logger: name, Data: env.Stderr})
		}
		r := callResult(env)
		// A client checks structured content against the outputSchema,
		// which describes success: an error goes as text alone.
		if r.IsError && req.Params != nil {
			if t, ok := reg.Lookup(name); ok && outputSchema(t) != nil {
				r.StructuredContent = nil
			}
		}
		return r, nil
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

// ListenLoopback listens on addr, which must be a loopback address, for
// RunHTTP, and returns the token clients must send: token if set, else a
// new random one.
func ListenLoopback(addr, token string) (net.Listener, string, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, "", fmt.Errorf("--http %s: %v", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, "", fmt.Errorf("--http %s: serving is on loopback only (127.0.0.1, ::1 or localhost): the tools run as you", addr)
	}
	if token == "" {
		token = rand.Text()
	}
	ln, err := net.Listen("tcp", addr)
	return ln, token, err
}
