// Package hostapi is the host API: how the tools ikigai runs talk back to
// the running ikigai. For each session a Server listens on a Unix socket
// in a private directory; every call a conversation runs gets the socket's
// address and a token of its own (IKIGAI_API, IKIGAI_API_TOKEN), good only
// while that call runs. Through it a tool starts sub-agents (which run in
// this process, with the same providers, approval and sandbox), lists and
// loads skills, finds and enables deferred tools, and runs background jobs.
// The protocol (one line of JSON each way, versioned) is toolsdk/host's and
// is specified in docs/host-api.md.
package hostapi

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/ikigai-tools/ikigai/internal/agent"
	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/sandbox"
	"github.com/ikigai-tools/ikigai/internal/skills"
	"github.com/ikigai-tools/ikigai/toolsdk"
	"github.com/ikigai-tools/ikigai/toolsdk/host"
)

// Options are a server's settings.
type Options struct {
	// MaxDepth is how deep sub-agents may nest (a sub-agent of the user's
	// conversation is at depth 1); 0 means DefaultMaxDepth.
	MaxDepth int
	// MaxRunning is how many sub-agents may run at once in the session;
	// 0 means DefaultMaxRunning.
	MaxRunning int
	// Skills are the directories skills are found in.
	Skills skills.Dirs
	// Sandbox confines background jobs as it would a call of the tool that
	// started them; nil runs them unconfined.
	Sandbox *sandbox.Policy
	// Dir is the directory jobs run in.
	Dir string
	// JobState is where jobs kept past the session are recorded; "" keeps
	// none (keep is refused).
	JobState string
	// Model returns the model called name, for a sub-agent that asks for
	// one; nil allows only the caller's.
	Model func(ctx context.Context, name string) (Model, error)
}

// Model is a model a sub-agent can use.
type Model struct {
	Provider provider.Provider
	Name     string
	Window   int             // its context window; 0 when unknown
	Price    *provider.Price // nil when unknown
}

// A Server answers the requests of one session's tool calls.
type Server struct {
	opts   Options
	dir    string // the private directory holding the socket
	addr   string
	ln     *net.UnixListener
	ctx    context.Context // ends at Close: the session's
	cancel context.CancelFunc
	root   *node
	jobs   *jobs
	serve  sync.WaitGroup // connections and sub-agents' runs

	mu      sync.Mutex
	calls   map[string]*call // by token
	running int              // sub-agents' runs under way
	agents  int              // sub-agents started, for their ids
	closed  bool
}

// A node is one conversation that calls tools: the user's (the root) or a
// sub-agent's. Its context ends when it does, which ends its sub-agents.
type node struct {
	depth int
	ctx   context.Context

	mu       sync.Mutex
	children []*subagent
}

// A call is one running tool call, known by its token.
type call struct {
	agent.Call
	ctx  context.Context // the call's own: cancelled when the user cancels it
	node *node

	mu    sync.Mutex
	ended bool
	onEnd []func()
}

// atEnd runs f when the call ends, or now if it has.
func (c *call) atEnd(f func()) {
	c.mu.Lock()
	if !c.ended {
		c.onEnd = append(c.onEnd, f)
		f = nil
	}
	c.mu.Unlock()
	if f != nil {
		f()
	}
}

func (c *call) end() {
	c.mu.Lock()
	c.ended = true
	fs := c.onEnd
	c.onEnd = nil
	c.mu.Unlock()
	for _, f := range fs {
		f()
	}
}

// socketName is the socket's name in its directory.
const socketName = "api.sock"

// maxSocketPath is the longest socket path Linux takes, less its NUL.
const maxSocketPath = 107

// Start listens on a socket of its own, in a new directory that only the
// user can enter (0700), itself only the user's (0600): in
// $XDG_RUNTIME_DIR, else the temporary directory, else /tmp when those
// would make the path too long for a socket.
func Start(opts Options) (*Server, error) {
	dir, err := privateDir()
	if err != nil {
		return nil, fmt.Errorf("host API: %w", err)
	}
	addr := filepath.Join(dir, socketName)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: addr, Net: "unix"})
	if err == nil {
		err = os.Chmod(addr, 0o600)
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("host API: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{opts: opts, dir: dir, addr: addr, ln: ln, ctx: ctx, cancel: cancel,
		root: &node{ctx: ctx}, calls: map[string]*call{}}
	s.jobs = newJobs(s)
	s.serve.Go(s.accept)
	return s, nil
}

func privateDir() (string, error) {
	var errs []error
	for _, base := range []string{os.Getenv("XDG_RUNTIME_DIR"), os.TempDir(), "/tmp"} {
		// MkdirTemp adds up to ten digits.
		if base == "" || len(filepath.Join(base, "ikigai-api-0123456789", socketName)) > maxSocketPath {
			continue
		}
		dir, err := os.MkdirTemp(base, "ikigai-api-") // 0700
		if err == nil {
			return dir, nil
		}
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		return "", errors.New("no directory short enough for a socket")
	}
	return "", errors.Join(errs...)
}

// Addr is the socket's path: what IKIGAI_API holds.
func (s *Server) Addr() string { return s.addr }

// Close stops listening, cancels every sub-agent, ends the jobs (but those
// kept), and waits for what it started.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.mu.Unlock()
	s.ln.Close()
	s.cancel()
	s.jobs.close()
	s.serve.Wait()
	os.RemoveAll(s.dir)
}

// Hook returns what the user's conversation's agent calls around each tool
// call (agent.Agent.Around): it gives the call a token.
func (s *Server) Hook() func(ctx context.Context, c agent.Call) (context.Context, func()) {
	return s.around(s.root)
}

// around gives each call of the conversation n a token, good until the
// call ends.
func (s *Server) around(n *node) func(ctx context.Context, c agent.Call) (context.Context, func()) {
	return func(ctx context.Context, c agent.Call) (context.Context, func()) {
		cl := &call{Call: c, ctx: ctx, node: n}
		token := newToken()
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return ctx, func() {}
		}
		s.calls[token] = cl
		s.mu.Unlock()
		return execute.WithEnv(ctx, host.EnvAPI+"="+s.addr, host.EnvToken+"="+token), func() {
			s.mu.Lock()
			delete(s.calls, token)
			s.mu.Unlock()
			cl.end()
		}
	}
}

func newToken() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// lookup returns the running call whose token this is.
func (s *Server) lookup(token string) *call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[token]
}

func (s *Server) accept() {
	for {
		conn, err := s.ln.AcceptUnix()
		if err != nil {
			return // closed
		}
		s.serve.Go(func() { s.handle(conn) })
	}
}

// requestTimeout bounds how long a client may take to send its request.
const requestTimeout = 5 * time.Second

// handle answers the one request a connection carries. The request's
// context ends when the client hangs up (a tool stopped mid-request) or
// the session ends.
func (s *Server) handle(conn *net.UnixConn) {
	defer conn.Close()
	conn.SetReadDeadline(time.Now().Add(requestTimeout))
	r := bufio.NewReaderSize(conn, 64<<10)
	line, err := readLine(r)
	if err != nil {
		if !errors.Is(err, errEmpty) {
			conn.Write(encodeReply(nil, badRequest("reading the request: %v", err)))
		}
		return
	}
	conn.SetReadDeadline(time.Time{})
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	go func() {
		var b [1]byte
		r.Read(b[:]) // returns when the client hangs up
		cancel()
	}()
	result, err := s.do(ctx, line)
	conn.Write(encodeReply(result, err))
}

var errEmpty = errors.New("empty request")

// readLine reads one line of at most host.MaxMessage bytes.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > host.MaxMessage+1 {
			return nil, fmt.Errorf("longer than %d bytes", host.MaxMessage)
		}
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
		case len(line) == 0:
			return nil, errEmpty
		default:
			return nil, fmt.Errorf("no newline after the request: %v", err)
		}
	}
}

// do decodes a request, checks its token and runs its operation. An
// operation that waits answers by the request's timeout.
func (s *Server) do(ctx context.Context, line []byte) (any, error) {
	req, err := DecodeRequest(line)
	if err != nil {
		return nil, err
	}
	cl := s.lookup(req.Token)
	if cl == nil {
		return nil, toolsdk.Errorf(host.TokenRefused, "Error: the token is not that of a call running in this session")
	}
	op, ok := operations[req.Op]
	if !ok {
		return nil, toolsdk.Errorf(host.UnknownOp, "Error: no operation %q (version %d has %s)", req.Op, host.Version, opNames())
	}
	if req.TimeoutMS > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(req.TimeoutMS)*time.Millisecond)
		defer cancel()
	}
	return op(s, ctx, cl, req.Op, req.Args)
}

// An operation answers one request of the call cl; ctx ends when the
// reply is due.
type operation func(s *Server, ctx context.Context, cl *call, op string, args json.RawMessage) (any, error)

var operations map[string]operation

func init() {
	operations = map[string]operation{
		host.OpPing:       ping,
		host.OpAgentStart: agentStart,
		host.OpAgentSend:  agentSend,
		host.OpAgentWait:  agentWait,
		host.OpAgentKill:  agentKill,
		host.OpAgentList:  agentList,
		host.OpSkillList:  skillList,
		host.OpSkillLoad:  skillLoad,
		host.OpToolSearch: toolSearch,
		host.OpJobStart:   jobStart,
		host.OpJobRead:    jobRead,
		host.OpJobKill:    jobKill,
		host.OpJobList:    jobList,
	}
}

func opNames() string {
	return "ping, agent.start, agent.send, agent.wait, agent.kill, agent.list, skill.list, skill.load, tool.search, job.start, job.read, job.kill, job.list"
}

func ping(s *Server, ctx context.Context, cl *call, op string, args json.RawMessage) (any, error) {
	if err := decodeArgs(op, args, &struct{}{}); err != nil {
		return nil, err
	}
	return host.Pong{Version: host.Version, Tool: cl.Name, Call: cl.ID, Depth: cl.node.depth}, nil
}
