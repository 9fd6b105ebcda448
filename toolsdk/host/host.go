// Package host is the client of ikigai's host API: how a tool that ikigai
// runs asks the running ikigai for something (a sub-agent, a skill, more
// tools, a background job). ikigai gives every call it runs the socket's
// address in IKIGAI_API and a token for that call in IKIGAI_API_TOKEN; the
// token is good while the call runs, and only in that session.
//
//	c, err := host.FromEnv()
//	if err != nil {
//		return nil, err // HOST_UNAVAILABLE: the tool was run by hand
//	}
//	var a host.Agent
//	err = c.Call(ctx, host.OpAgentStart, host.AgentStart{Prompt: "Count the TODOs"}, &a)
//
// Errors are *toolsdk.Error values whose codes are the host's (see
// docs/host-api.md), so a tool can return them as its operation errors.
// The package uses only the standard library.
package host

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/ikigai-tools/ikigai/toolsdk"
)

// Environment variables ikigai sets for every call it runs.
const (
	// EnvAPI is the address of the host API: a Unix socket's path.
	EnvAPI = "IKIGAI_API"
	// EnvToken is the call's token.
	EnvToken = "IKIGAI_API_TOKEN"
)

// Version is the version of the protocol this package speaks.
const Version = 1

// MaxMessage is the largest request or reply, in bytes, newline excluded.
const MaxMessage = 4 << 20

// Error codes of the host API. An operation's own codes (AGENT_NOT_FOUND,
// JOB_NOT_FOUND, ...) are listed in docs/host-api.md.
const (
	// HostUnavailable: no host to ask (the tool was run by hand, or ikigai
	// is gone).
	HostUnavailable = "HOST_UNAVAILABLE"
	// TokenRefused: the token is not one of a call running in this session.
	TokenRefused = "TOKEN_REFUSED"
	// BadRequest: the request could not be read, or its arguments are wrong.
	BadRequest = "BAD_REQUEST"
	// UnknownOp: the host has no such operation.
	UnknownOp = "UNKNOWN_OP"
	// UnsupportedVersion: the host speaks another version of the protocol.
	UnsupportedVersion = "UNSUPPORTED_VERSION"
	// Denied: the user or the approval policy refused what was asked.
	Denied = "DENIED"
)

// Request is one request, as it goes over the socket: one line of JSON.
type Request struct {
	V     int    `json:"v"`
	Token string `json:"token"`
	Op    string `json:"op"`
	// Args are the operation's arguments, a JSON object.
	Args json.RawMessage `json:"args,omitempty"`
	// TimeoutMS is how long the caller waits for the reply; an operation
	// that waits (for a sub-agent, say) answers before then. 0: no limit.
	TimeoutMS int64 `json:"timeout_ms,omitempty"`
}

// Reply is the answer to one request: a result, or an error.
type Reply struct {
	V         int             `json:"v"`
	OK        bool            `json:"ok"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     string          `json:"error,omitempty"`
	ErrorCode string          `json:"error_code,omitempty"`
}

// A Client asks the host API on behalf of one call.
type Client struct {
	Addr  string
	Token string
}

// FromEnv returns the client for the call the tool is running: the address
// and token ikigai put in the environment. Without them the error is
// HOST_UNAVAILABLE, saying the tool must be run by ikigai.
func FromEnv() (*Client, error) {
	addr, token := os.Getenv(EnvAPI), os.Getenv(EnvToken)
	if addr == "" || token == "" {
		return nil, toolsdk.Errorf(HostUnavailable, "Error: no ikigai to ask: %s is not set (this tool works only when ikigai runs it)", EnvAPI)
	}
	return &Client{Addr: addr, Token: token}, nil
}

// Call runs the operation op with args (encoded as JSON; nil for none) and
// decodes its result into result (nil to drop it). ctx bounds the wait, and
// its deadline tells the host how long the caller waits. A failure is a
// *toolsdk.Error with the host's error code.
func (c *Client) Call(ctx context.Context, op string, args, result any) error {
	req := Request{V: Version, Token: c.Token, Op: op}
	if args != nil {
		raw, err := json.Marshal(args)
		if err != nil {
			return fmt.Errorf("encoding the arguments of %s: %w", op, err)
		}
		req.Args = raw
	}
	if d, ok := ctx.Deadline(); ok {
		// Leave time to hand the reply on before the deadline.
		left := time.Until(d)
		req.TimeoutMS = max(1, (left - min(left/10, 500*time.Millisecond)).Milliseconds())
	}
	reply, err := c.roundTrip(ctx, req)
	if err != nil {
		return err
	}
	if !reply.OK {
		return &toolsdk.Error{Code: reply.ErrorCode, Message: reply.Error}
	}
	if result != nil && len(reply.Result) > 0 {
		if err := json.Unmarshal(reply.Result, result); err != nil {
			return fmt.Errorf("reading the reply to %s: %w", op, err)
		}
	}
	return nil
}

// roundTrip sends one request on a connection of its own and reads the
// reply.
func (c *Client) roundTrip(ctx context.Context, req Request) (Reply, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "unix", c.Addr)
	if err != nil {
		if ctx.Err() != nil {
			return Reply{}, ctx.Err()
		}
		return Reply{}, toolsdk.Errorf(HostUnavailable, "Error: cannot reach ikigai at %s: %v", c.Addr, unwrap(err))
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Now()) })
	defer stop()
	line, err := json.Marshal(req)
	if err != nil {
		return Reply{}, err
	}
	if _, err := conn.Write(append(line, '\n')); err != nil {
		return Reply{}, lost(ctx, err)
	}
	r := bufio.NewReaderSize(conn, 64<<10)
	data, err := readLine(r)
	if err != nil {
		return Reply{}, lost(ctx, err)
	}
	var reply Reply
	if err := json.Unmarshal(data, &reply); err != nil {
		return Reply{}, toolsdk.Errorf(HostUnavailable, "Error: ikigai answered something that is not a reply: %v", err)
	}
	if !reply.OK && reply.ErrorCode == "" {
		reply.ErrorCode = "HOST_ERROR"
	}
	return reply, nil
}

// readLine reads one line of at most MaxMessage bytes, without its newline.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > MaxMessage+1 {
			return nil, errors.New("reply too long")
		}
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return nil, err
		}
	}
}

// lost is the error of a connection that failed during a request.
func lost(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return toolsdk.Errorf(HostUnavailable, "Error: lost ikigai during the request: %v", unwrap(err))
}

func unwrap(err error) error {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		var sys *os.SyscallError
		if errors.As(op.Err, &sys) {
			return sys.Err
		}
		return op.Err
	}
	return err
}
