//lint:file-ignore SA1019 MCP's roots are deprecated from protocol 2026-07-28 but still what servers of the versions ikigai speaks ask for.

package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ikigai-tools/ikigai/internal/buildinfo"
	"github.com/ikigai-tools/ikigai/internal/config"
	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/lazyregexp"
	"github.com/ikigai-tools/ikigai/internal/plainjson"
	"github.com/ikigai-tools/ikigai/internal/registry"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	// DefaultStartupTimeout is how long a server has to start and list its
	// tools unless configured otherwise.
	DefaultStartupTimeout = 10 * time.Second
	// protocolVersion is the version of MCP ikigai asks for: the latest
	// released one, which every current server answers in one round trip.
	protocolVersion = "2025-11-25"
)

// pingTimeout is how long a server whose call timed out has to answer a
// ping before it is taken for hung and stopped. A variable, for tests.
var pingTimeout = 2 * time.Second

// Servers are the MCP servers of a configuration, each started once and
// kept running until Close. A server that exits is started again by the
// next call of one of its tools.
type Servers struct {
	list []*server
	// changed is set when a server's tools changed since Changed was
	// last asked.
	changed atomic.Bool
}

// Changed reports whether a server's tools changed since the last time
// it was asked: the registry should be built again before the next
// request to the model.
func (s *Servers) Changed() bool { return s.changed.Swap(false) }

// Start starts every server that is not disabled in the background, all
// at once, a command with env's environment and its own env entries, in
// its cwd or else dir. dir, the agent's working directory, is offered to
// the servers as their only root; "" offers no roots. logger gets their
// comings and goings as debug events.
func Start(servers map[string]config.MCPServer, env execute.Env, dir string, logger *slog.Logger) *Servers {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Servers{}
	for _, name := range slices.Sorted(maps.Keys(servers)) {
		if servers[name].Disabled {
			continue
		}
		srv := &server{name: name, cfg: servers[name], env: env, log: logger.With("mcp_server", name), changed: &s.changed}
		// Roots are advertised only when there is a directory to offer,
		// and never change during a run: no listChanged.
		caps := &sdk.ClientCapabilities{}
		if dir != "" {
			caps.RootsV2 = &sdk.RootCapabilities{}
		}
		srv.client = sdk.NewClient(&sdk.Implementation{Name: "ikigai", Version: buildinfo.Version}, &sdk.ClientOptions{
			Logger:                      sdkLogger(srv.log),
			ToolListChangedHandler:      srv.toolsChanged,
			ProgressNotificationHandler: srv.progress,
			Capabilities:                caps,
		})
		if dir != "" {
			srv.client.AddRoots(&sdk.Root{URI: (&url.URL{Scheme: "file", Path: dir}).String(), Name: filepath.Base(dir)})
		}
		srv.connect()
		s.list = append(s.list, srv)
	}
	return s
}

// Tools waits until every server is ready or has failed to start, and
// returns the tools of those that are ready, and one failure for each of
// the others, saying why. A server that failed to start before is started
// again. Waiting is bounded by each server's startup timeout, or ctx.
func (s *Servers) Tools(ctx context.Context) ([]registry.Tool, []registry.Failure) {
	tools := make([][]registry.Tool, len(s.list))
	failed := make([][]registry.Failure, len(s.list))
	var wg sync.WaitGroup
	for i, srv := range s.list {
		wg.Go(func() { tools[i], failed[i] = srv.tools(ctx) })
	}
	wg.Wait()
	all, problems := slices.Concat(tools...), slices.Concat(failed...)
	for _, srv := range s.list {
		if srv.offersResources() {
			all = append(all, s.resourceTool())
			break
		}
	}
	// Names are unique unless two servers' names run into each other's
	// (a with b--c, a--b with c): the first server's tool keeps the name.
	seen := map[string]registry.Source{}
	usable := all[:0]
	for _, t := range all {
		if src, dup := seen[t.Name]; dup {
			problems = append(problems, registry.Failure{Entry: t.Entry, Reason: fmt.Sprintf("same name as a tool of %s", src)})
			continue
		}
		seen[t.Name] = t.Source
		usable = append(usable, t)
	}
	return usable, problems
}

// Close stops every server, all at once.
func (s *Servers) Close() {
	var wg sync.WaitGroup
	for _, srv := range s.list {
		wg.Go(srv.close)
	}
	wg.Wait()
}

// server is one configured MCP server and its current connection.
type server struct {
	name   string
	cfg    config.MCPServer
	env    execute.Env
	log    *slog.Logger
	client *sdk.Client
	// changed is the Servers' flag of changed tools.
	changed *atomic.Bool
	// reports are the progress reports of the calls under way, by their
	// progress tokens.
	reports sync.Map
	tokens  atomic.Int64

	mu     sync.Mutex
	cur    *conn // nil before the first start and after close
	closed bool
	// checking is closed when the check of a server whose call timed
	// out is over; nil when there is none under way.
	checking chan struct{}
}

// source is what listings show as the tools' origin.
func (s *server) source() registry.Source { return registry.Source("mcp:" + s.name) }

// path is where the server runs, for listings: its command or URL.
func (s *server) path() string {
	if s.cfg.URL != "" {
		return s.cfg.URL
	}
	return s.cfg.Command
}

// connect returns the server's connection, starting the server unless it
// is running or starting already.
func (s *server) connect() *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur != nil && !s.cur.over() {
		return s.cur
	}
	c := &conn{srv: s, ready: make(chan struct{}), done: make(chan struct{})}
	if s.closed {
		c.err = errors.New("is closed")
		close(c.ready)
		return c
	}
	s.cur = c
	ctx, cancel := context.WithTimeout(context.Background(), s.startupTimeout())
	c.cancelStart = cancel
	go c.open(ctx)
	return c
}

func (s *server) close() {
	s.mu.Lock()
	s.closed = true
	c := s.cur
	s.mu.Unlock()
	if c != nil {
		c.cancelStart()
		<-c.ready
		c.end(true)
	}
}

// tools returns the server's tools, waiting for it to start if need be.
func (s *server) tools(ctx context.Context) ([]registry.Tool, []registry.Failure) {
	c := s.connect()
	if err := c.wait(ctx); err != nil {
		reason := err.Error()
		if ctx.Err() == nil {
			reason = "server " + reason
			if line := errorLine(c.stderr()); line != "" {
				reason += ": " + line
			}
		}
		return nil, []registry.Failure{{Entry: registry.Entry{Name: config.MCPPrefix + s.name, Source: s.source(), Path: s.path()}, Reason: reason}}
	}
	var tools []registry.Tool
	var failed []registry.Failure
	for _, t := range c.listed() {
		if slices.Contains(s.cfg.DisabledTools, t.Name) {
			continue
		}
		name := ToolName(s.name, t.Name)
		entry := registry.Entry{Name: name, Source: s.source(), Path: s.path()}
		schema, err := schemaOf(t)
		if err != nil {
			failed = append(failed, registry.Failure{Entry: entry, Reason: err.Error()})
			continue
		}
		tools = append(tools, registry.Tool{Entry: entry, Schema: schema, Runner: &tool{srv: s, name: name, remote: t.Name}})
	}
	return tools, failed
}

// progress passes a progress notification on to the report of the call
// whose token it carries, as "3/10 message".
func (s *server) progress(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
	p := req.Params
	report, ok := s.reports.Load(fmt.Sprint(p.ProgressToken))
	if !ok {
		return
	}
	msg := strconv.FormatFloat(p.Progress, 'f', -1, 64)
	if p.Total > 0 {
		msg += "/" + strconv.FormatFloat(p.Total, 'f', -1, 64)
	}
	if p.Message != "" {
		msg += " " + p.Message
	}
	report.(func(string))(msg)
}

// offersResources reports whether the server is running and offers
// resources.
func (s *server) offersResources() bool {
	s.mu.Lock()
	c := s.cur
	s.mu.Unlock()
	if c == nil {
		return false
	}
	select {
	case <-c.ready:
	default:
		return false // still starting
	}
	if c.over() {
		return false
	}
	init := c.session.InitializeResult()
	return init != nil && init.Capabilities != nil && init.Capabilities.Resources != nil
}

// toolsChanged lists the tools again when the server says they changed,
// and flags the change: the host builds its registry again before its
// next request to the model.
func (s *server) toolsChanged(_ context.Context, req *sdk.ToolListChangedRequest) {
	s.mu.Lock()
	c := s.cur
	s.mu.Unlock()
	if c == nil {
		return
	}
	// The handler runs on the session's reading goroutine, which the
	// listing needs.
	go func() {
		if c.wait(context.Background()) != nil || c.session != req.Session {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), s.startupTimeout())
		defer cancel()
		tools, err := listTools(ctx, req.Session)
		if err != nil {
			s.log.Debug("mcp server tools changed, listing failed", "error", err.Error())
			return
		}
		c.mu.Lock()
		c.tools = tools
		c.mu.Unlock()
		s.changed.Store(true)
		s.log.Debug("mcp server tools changed", "tools", len(tools))
	}()
}

func (s *server) startupTimeout() time.Duration {
	if s.cfg.StartupTimeout > 0 {
		return s.cfg.StartupTimeout
	}
	return DefaultStartupTimeout
}

// conn is one run of a server: its start, then its session until it ends.
type conn struct {
	srv         *server
	cancelStart context.CancelFunc
	ready       chan struct{} // closed when the start has succeeded or failed
	err         error         // why the start failed, once ready

	session *sdk.ClientSession
	proc    *process     // nil for a server reached by URL
	frames  *frameReader // the server's stdout; nil for a server reached by URL
	done    chan struct{}
	endErr  error // why the session ended, once done

	mu    sync.Mutex
	tools []*sdk.Tool
}

// open starts the server, connects and lists its tools, all within ctx:
// the startup timeout.
func (c *conn) open(ctx context.Context) {
	defer close(c.ready)
	defer c.cancelStart()
	s := c.srv
	started := time.Now()
	home, _ := os.UserHomeDir()
	cfg, err := s.cfg.Expanded(config.LookupEnv, home)
	if err != nil {
		c.err = fmt.Errorf("cannot be started: %w", err)
		return
	}
	var session *sdk.ClientSession
	opts := &sdk.ClientSessionOptions{ProtocolVersion: protocolVersion}
	if cfg.URL != "" {
		var rt *remote
		rt, err = newRemoteNamed(s.name, cfg, config.LookupEnv)
		if err != nil {
			c.err = fmt.Errorf("cannot be started: %w", err)
			return
		}
		session, err = c.openRemote(ctx, cfg, rt, opts)
	} else {
		var p *process
		p, err = startProcess(cfg, s.env)
		if err != nil {
			c.err = fmt.Errorf("cannot be started: %w", err)
			s.log.Debug("mcp server cannot be started", "error", err.Error())
			return
		}
		c.proc = p
		c.frames = &frameReader{f: p.stdout, max: maxMessage, banner: func(line string) {
			s.log.Warn("mcp server printed a line that is not JSON-RPC before its first message; skipped", "line", line)
		}}
		transport := &sdk.IOTransport{Reader: c.frames, Writer: p.stdin, MaxLineLength: -1}
		session, err = s.client.Connect(ctx, transport, opts)
	}
	if err == nil {
		c.session = session
		var tools []*sdk.Tool
		tools, err = listTools(ctx, session)
		c.mu.Lock()
		c.tools = tools
		c.mu.Unlock()
	}
	if err != nil {
		c.err = c.startError(ctx, err)
		if c.session != nil {
			go c.session.Close()
		}
		if c.proc != nil {
			c.proc.kill()
		}
		s.log.Debug("mcp server failed to start", "error", c.err.Error(), "stderr", lastLine(c.stderr()))
		return
	}
	go func() {
		c.endErr = session.Wait()
		// A server whose session is over has nothing left to do: it may
		// still be finishing its calls, so it is stopped gracefully.
		if c.proc != nil {
			c.proc.stop()
		}
		close(c.done)
		how := "connection closed"
		if c.proc != nil {
			how, _, _ = c.proc.exit()
		}
		s.log.Debug("mcp server ended", "how", how)
	}()
	s.log.Debug("mcp server started", "tools", len(c.listed()), "elapsed_ms", time.Since(started).Milliseconds())
}

// openRemote connects to a server reached by URL: over streamable HTTP,
// falling back to SSE when the server answers the initialize POST with
// 404 or 405, or over SSE when its type says so.
func (c *conn) openRemote(ctx context.Context, cfg config.MCPServer, rt *remote, opts *sdk.ClientSessionOptions) (*sdk.ClientSession, error) {
	s := c.srv
	client := &http.Client{Transport: rt}
	sse := func() (*sdk.ClientSession, error) {
		return s.client.Connect(ctx, &sseTransport{SSEClientTransport: sdk.SSEClientTransport{Endpoint: cfg.URL, HTTPClient: client}, stream: context.Background()}, opts)
	}
	var session *sdk.ClientSession
	var err error
	if cfg.Type == "sse" {
		session, err = sse()
	} else {
		session, err = s.client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: cfg.URL, HTTPClient: client}, opts)
		if err != nil && rt.wantsSSE() && ctx.Err() == nil {
			s.log.Debug("mcp server answered streamable HTTP with 404 or 405; trying SSE", "status", rt.firstStatus())
			session, err = sse()
		}
	}
	if err != nil && rt.unauthorized() {
		return nil, fmt.Errorf("%w: run ikigai mcp login %s", errUnauthorized, s.name)
	}
	return session, err
}

// startError says why a start failed: the server exited, did not answer
// in time, or answered wrongly.
func (c *conn) startError(ctx context.Context, err error) error {
	if c.proc != nil && c.proc.waitExit(100*time.Millisecond) {
		how, _, _ := c.proc.exit()
		return fmt.Errorf("exited with %s while starting", how)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("did not start within %v", c.srv.startupTimeout())
	}
	if errors.Is(err, errUnauthorized) {
		return err
	}
	return fmt.Errorf("failed to start: %w", err)
}

// wait waits for the start to end and returns why it failed, or ctx's
// error if ctx is done first.
func (c *conn) wait(ctx context.Context) error {
	select {
	case <-c.ready:
		return c.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// over reports whether the connection can no longer be used: its start
// failed, or its session ended.
func (c *conn) over() bool {
	select {
	case <-c.ready:
	default:
		return false // still starting
	}
	if c.err != nil {
		return true
	}
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// end ends the session and the server's process: gracefully, or at once.
func (c *conn) end(graceful bool) {
	if c.err != nil {
		return
	}
	if c.proc != nil {
		if graceful {
			c.proc.stop()
		} else {
			c.proc.kill()
		}
	}
	c.session.Close()
	<-c.done
}

func (c *conn) listed() []*sdk.Tool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tools
}

func (c *conn) stderr() string {
	if c.proc == nil {
		return ""
	}
	return c.proc.stderrText()
}

// listTools lists every tool of a session, page by page.
func listTools(ctx context.Context, session *sdk.ClientSession) ([]*sdk.Tool, error) {
	var tools []*sdk.Tool
	for t, err := range session.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		tools = append(tools, t)
	}
	return tools, nil
}

// schemaOf returns a tool's schema as the registry keeps it. The input
// schema must be a JSON Schema of type object, as model APIs require.
func schemaOf(t *sdk.Tool) (registry.Schema, error) {
	params, err := plainjson.Marshal(t.InputSchema)
	if err != nil {
		return registry.Schema{}, fmt.Errorf("inputSchema cannot be encoded: %v", err)
	}
	var typed struct {
		Type any `json:"type"`
	}
	if len(params) == 0 || params[0] != '{' || json.Unmarshal(params, &typed) != nil || typed.Type != "object" {
		return registry.Schema{}, errors.New(`inputSchema is not of "type": "object"`)
	}
	doc, err := plainjson.Marshal(t)
	if err != nil {
		return registry.Schema{}, err
	}
	return registry.Schema{Description: t.Description, Parameters: params, Annotations: annotationsOf(t), Document: doc}, nil
}

// annotationsOf returns a tool's hints. The SDK reads readOnlyHint and
// idempotentHint as plain booleans, so false and absent look alike; both
// are left unset, which means the same. deferredHint is read from _meta.
func annotationsOf(t *sdk.Tool) registry.Annotations {
	a := registry.Annotations{Title: t.Title}
	// The SDK keeps no annotation it does not know; ikigai's deferredHint
	// comes in _meta, where MCP puts what is an implementation's own.
	if d, ok := t.Meta["deferredHint"].(bool); ok {
		a.DeferredHint = &d
	}
	if t.Annotations == nil {
		return a
	}
	if a.Title == "" {
		a.Title = t.Annotations.Title
	}
	yes := true
	if t.Annotations.ReadOnlyHint {
		a.ReadOnlyHint = &yes
	}
	if t.Annotations.IdempotentHint {
		a.IdempotentHint = &yes
	}
	a.DestructiveHint = t.Annotations.DestructiveHint
	a.OpenWorldHint = t.Annotations.OpenWorldHint
	return a
}

// tool runs one tool of a server.
type tool struct {
	srv    *server
	name   string // the model's name for it
	remote string // the server's
}

// Run calls the tool with the envelope and failure codes of an executable:
// TOOL_TIMEOUT after timeout (DefaultTimeout if zero), TOOL_CANCELLED when
// ctx is done, TOOL_CRASHED when the server cannot start or dies during
// the call, INVALID_OUTPUT when it breaks the protocol, OUTPUT_TOO_LARGE
// past execute.MaxStdout. A server that is not running is started first,
// within the same timeout.
func (t *tool) Run(ctx context.Context, args json.RawMessage, timeout time.Duration) execute.Envelope {
	if env, ok := execute.CheckArgs(t.name, args); !ok {
		return env
	}
	if timeout <= 0 {
		timeout = execute.DefaultTimeout
	}
	ctx, cancel := context.WithTimeoutCause(ctx, timeout, execute.ErrTimeout)
	defer cancel()
	// A server being checked may be hung: the call goes to whatever the
	// check leaves, the same server or one started again.
	if err := t.srv.waitCheck(ctx); err != nil {
		return t.stopped(ctx, timeout)
	}
	c := t.srv.connect()
	if err := c.wait(ctx); err != nil {
		if ctx.Err() != nil {
			return t.stopped(ctx, timeout)
		}
		env := execute.Failed(execute.ToolCrashed, "Tool '%s' could not run: MCP server '%s' %v", t.name, t.srv.name, err)
		env.Stderr = c.stderr()
		return env
	}
	params := &sdk.CallToolParams{Name: t.remote, Arguments: args}
	if report := execute.ProgressOf(ctx); report != nil {
		token := fmt.Sprintf("ikigai-%d", t.srv.tokens.Add(1))
		params.SetProgressToken(token)
		t.srv.reports.Store(token, report)
		defer t.srv.reports.Delete(token)
	}
	res, err := c.session.CallTool(ctx, params)
	switch {
	case err == nil:
		return envelopeOf(t.name, t.srv.name, res)
	case ctx.Err() != nil:
		if errors.Is(context.Cause(ctx), execute.ErrTimeout) {
			t.srv.startCheck(c)
		}
		return t.stopped(ctx, timeout)
	}
	var rpcErr *jsonrpc.Error
	if errors.As(err, &rpcErr) {
		code := execute.ToolCrashed
		if rpcErr.Code == jsonrpc.CodeInvalidParams {
			code = execute.InvalidParams
		}
		env := execute.Failed(code, "Tool '%s' failed: MCP server '%s' answered error %d: %s", t.name, t.srv.name, rpcErr.Code, rpcErr.Message)
		env.Stderr = c.stderr()
		return env
	}
	if undecodable(err) {
		// The answer came, whole, but does not decode as a result: this
		// call failed, the server is fine.
		return execute.Failed(execute.InvalidOutput, "Tool '%s' failed: MCP server '%s' sent a result that is not valid MCP: %v", t.name, t.srv.name, err)
	}
	return t.broken(c, err)
}

// undecodable reports whether err is a result that arrived but could not
// be decoded: an image's data that is not base64, a field of the wrong
// type.
func undecodable(err error) bool {
	var corrupt base64.CorruptInputError
	var wrongType *json.UnmarshalTypeError
	return errors.As(err, &corrupt) || errors.As(err, &wrongType)
}

// stopped is the envelope of a call stopped by its timeout or its caller.
// The server's stderr is not the call's, so it is left out: it explains
// a server that died, not a call that took too long.
func (t *tool) stopped(ctx context.Context, timeout time.Duration) execute.Envelope {
	if errors.Is(context.Cause(ctx), execute.ErrTimeout) {
		return execute.Failed(execute.ToolTimeout, "Tool '%s' timed out after %v", t.name, timeout)
	}
	return execute.Failed(execute.ToolCancelled, "Tool '%s' was cancelled", t.name)
}

// broken is the envelope of a call whose connection failed under it:
// the server sent a message too large to read, printed something that is
// not JSON-RPC, or exited, or cannot be reached. The connection is ended, so the next call starts the server
// again.
func (t *tool) broken(c *conn, err error) execute.Envelope {
	if c.frames != nil && c.frames.over.Load() {
		c.end(false)
		return execute.Failed(execute.OutputTooLarge, "Tool '%s' failed: MCP server '%s' sent a message of more than %d MiB", t.name, t.srv.name, maxMessage>>20)
	}
	exited := c.proc != nil && c.proc.waitExit(drain)
	c.end(false)
	var env execute.Envelope
	var syntax *json.SyntaxError
	switch {
	case errors.As(c.endErr, &syntax):
		env = execute.Failed(execute.InvalidOutput, "Tool '%s' failed: MCP server '%s' printed something that is not JSON-RPC", t.name, t.srv.name)
	case exited:
		how, code, _ := c.proc.exit()
		env = execute.Failed(execute.ToolCrashed, "Tool '%s' crashed: MCP server '%s' exited with %s", t.name, t.srv.name, how)
		env.ExitCode = &code
	default:
		env = execute.Failed(execute.ToolCrashed, "Tool '%s' failed: lost MCP server '%s': %v", t.name, t.srv.name, err)
	}
	env.Stderr = c.stderr()
	return env
}

// startCheck starts checking, unless a check is under way, whether the
// server is hung after a call of it timed out: calls to a hung server
// would all time out, while one started again may answer. Calls made
// meanwhile wait for the check.
func (s *server) startCheck(c *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.checking != nil {
		return
	}
	done := make(chan struct{})
	s.checking = done
	go func() {
		s.checkHung(c)
		s.mu.Lock()
		s.checking = nil
		s.mu.Unlock()
		close(done)
	}()
}

// waitCheck waits for the check of the server under way, if any, or for
// ctx.
func (s *server) waitCheck(ctx context.Context) error {
	s.mu.Lock()
	done := s.checking
	s.mu.Unlock()
	if done == nil {
		return nil
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// checkHung stops the server if it does not answer a ping.
func (s *server) checkHung(c *conn) {
	ctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
	defer cancel()
	// Only a ping that times out tells of a hung server; one that fails at
	// once finds a connection that is being closed anyway.
	if c.session.Ping(ctx, nil) != nil && ctx.Err() != nil && !c.over() {
		s.log.Debug("mcp server does not answer after a call timed out; stopping it")
		c.end(false)
	}
}

// npmNoise matches the lines of npm's (and so npx's) failures that say
// nothing of what went wrong: the error code, the path of the log, a
// bare status, the 404 advice.
var npmNoise = lazyregexp.New(`^npm (error|ERR!)( (code|errno|syscall|path|A complete log|[0-9]+ (Note that|tarball,|\s*'))|\s*[0-9]*\s*$)`)

// errorLine returns the line of a server's stderr that says why it
// failed: the last non-empty line, or for npm's output (a server started
// with npx) the first of its error lines that says something, rather
// than its closing "A complete log of this run can be found in".
func errorLine(stderr string) string {
	for line := range strings.Lines(stderr) {
		line = strings.TrimSpace(line)
		if (strings.HasPrefix(line, "npm error ") || strings.HasPrefix(line, "npm ERR! ")) && !npmNoise().MatchString(line) {
			return line
		}
	}
	return lastLine(stderr)
}

// lastLine returns the last non-empty line of s.
func lastLine(s string) string {
	s = strings.TrimRight(s, " \t\r\n")
	return strings.TrimSpace(s[strings.LastIndexByte(s, '\n')+1:])
}

// maxMessage is the most one message of a server may hold, as the SDK
// bounds it: an answer past it is not read whole (and cannot be used:
// a result holds at most execute.MaxStdout).
const maxMessage = sdk.DefaultMaxLineLength

// errTooLarge ends the reading of a server that sent a message past
// maxMessage.
var errTooLarge = errors.New("message too large")

// frameReader reads a server's stdout, one message a line, and fails once
// a line grows past max, so that the connection ends with the reason
// known: too much output, not a crash. Lines before the first that
// starts a JSON object (a banner some servers print on stdout) are
// skipped, each given to banner, as the TypeScript SDK skips them.
type frameReader struct {
	f      *os.File
	max    int
	banner func(line string)
	line   int // bytes read since the last newline
	over   atomic.Bool

	started bool   // a JSON-RPC message has begun
	pending []byte // read before it began, not yet returned
}

func (r *frameReader) Read(p []byte) (int, error) {
	if r.over.Load() {
		return 0, errTooLarge
	}
	if !r.started {
		if err := r.skipBanner(); err != nil && len(r.pending) == 0 {
			return 0, err
		}
	}
	var n int
	var err error
	if len(r.pending) > 0 {
		n = copy(p, r.pending)
		r.pending = r.pending[n:]
	} else {
		n, err = r.f.Read(p)
	}
	for rest := p[:n]; ; {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			r.line += len(rest)
			break
		}
		if r.line+i > r.max {
			r.line += i
			break
		}
		r.line, rest = 0, rest[i+1:]
	}
	if r.line > r.max {
		r.over.Store(true)
		return 0, errTooLarge
	}
	return n, err
}

// skipBanner reads until the first line that starts a JSON object,
// dropping the lines before it; what is read from there on is left in
// pending.
func (r *frameReader) skipBanner() error {
	buf := make([]byte, 4096)
	for {
		for {
			t := bytes.TrimLeft(r.pending, " \t\r\n")
			if len(t) > 0 && t[0] == '{' || len(r.pending) > r.max {
				r.started = true
				return nil
			}
			i := bytes.IndexByte(r.pending, '\n')
			if i < 0 {
				break
			}
			if line := strings.TrimSpace(string(r.pending[:i])); line != "" && r.banner != nil {
				r.banner(line)
			}
			r.pending = r.pending[i+1:]
		}
		n, err := r.f.Read(buf)
		r.pending = append(r.pending, buf[:n]...)
		if err != nil {
			r.started = true // what is left is the transport's to judge
			return err
		}
	}
}

func (r *frameReader) Close() error { return r.f.Close() }

// A State is how a server's start went, for listings.
type State struct {
	Name string
	// Path is its command or URL.
	Path string
	// Tools is how many tools it offers, once started.
	Tools int
	// Err says why it did not start; "" when it did.
	Err string
}

// States waits until every server has started or failed, as Tools does,
// and says how each went, in the order of their names.
func (s *Servers) States(ctx context.Context) []State {
	states := make([]State, len(s.list))
	var wg sync.WaitGroup
	for i, srv := range s.list {
		wg.Go(func() {
			tools, failed := srv.tools(ctx)
			states[i] = State{Name: srv.name, Path: srv.path(), Tools: len(tools)}
			for _, f := range failed {
				if f.Name == config.MCPPrefix+srv.name {
					states[i].Err = f.Reason
				}
			}
		})
	}
	wg.Wait()
	return states
}
