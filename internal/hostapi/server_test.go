package hostapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ikigai-tools/ikigai/internal/agent"
	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/toolsdk"
	"github.com/ikigai-tools/ikigai/toolsdk/host"
)

func start(t *testing.T, opts Options) *Server {
	t.Helper()
	s, err := Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// begin starts a call of the tool called name in the user's conversation
// of s, and returns the client the tool would have and the call's end.
func begin(t *testing.T, s *Server, name string) (*host.Client, func()) {
	t.Helper()
	ctx, end := s.Hook()(context.Background(), agent.Call{
		ToolCall:     provider.ToolCall{ID: "call_1", Name: name},
		Agent:        &agent.Agent{},
		Conversation: &agent.Conversation{},
		Emit:         func(agent.Event) {},
	})
	c := &host.Client{}
	for _, kv := range execute.CallEnv(ctx) {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case host.EnvAPI:
			c.Addr = v
		case host.EnvToken:
			c.Token = v
		}
	}
	if c.Addr != s.Addr() || c.Token == "" {
		t.Fatalf("the call's environment: %q", execute.CallEnv(ctx))
	}
	return c, end
}

func code(err error) string {
	var e *toolsdk.Error
	if errors.As(err, &e) {
		return e.Code
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// The socket is the user's alone, in a directory only the user can enter.
func TestSocketIsPrivate(t *testing.T) {
	s := start(t, Options{})
	for path, want := range map[string]os.FileMode{s.dir: os.ModeDir | 0o700, s.Addr(): os.ModeSocket | 0o600} {
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Mode() & (os.ModeType | os.ModePerm); got != want {
			t.Errorf("%s: mode %v, want %v", path, got, want)
		}
	}
	s.Close()
	if _, err := os.Stat(s.dir); !os.IsNotExist(err) {
		t.Errorf("the directory is still there after Close: %v", err)
	}
}

// A token is good only while its call runs, and only in its session.
func TestTokens(t *testing.T) {
	a, b := start(t, Options{}), start(t, Options{})
	ctx := context.Background()
	ca, endA := begin(t, a, "probe")
	cb, endB := begin(t, b, "probe")
	defer endB()

	var pong host.Pong
	if err := ca.Call(ctx, host.OpPing, nil, &pong); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(host.Pong{Version: 1, Tool: "probe", Call: "call_1"}, pong); diff != "" {
		t.Errorf("pong (-want +got):\n%s", diff)
	}
	for name, c := range map[string]*host.Client{
		"a's token at b": {Addr: b.Addr(), Token: ca.Token},
		"b's token at a": {Addr: a.Addr(), Token: cb.Token},
		"made up":        {Addr: a.Addr(), Token: strings.Repeat("0", 32)},
	} {
		if err := c.Call(ctx, host.OpPing, nil, nil); code(err) != host.TokenRefused {
			t.Errorf("%s: got %v, want %s", name, err, host.TokenRefused)
		}
	}
	endA()
	if err := ca.Call(ctx, host.OpPing, nil, nil); code(err) != host.TokenRefused {
		t.Errorf("after the call ended: got %v, want %s", err, host.TokenRefused)
	}
	if err := cb.Call(ctx, host.OpPing, nil, nil); err != nil {
		t.Errorf("b's call still runs: %v", err)
	}
}

// Requests the host cannot take are answered with what is wrong.
func TestBadRequests(t *testing.T) {
	s := start(t, Options{})
	c, end := begin(t, s, "probe")
	defer end()
	send := func(line string) host.Reply {
		t.Helper()
		conn, err := net.Dial("unix", s.Addr())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.Write([]byte(line + "\n"))
		buf := make([]byte, 4096)
		n, _ := conn.Read(buf)
		reply, err := decodeReply(buf[:n])
		if err != nil {
			t.Fatalf("%s: %v (%q)", line, err, buf[:n])
		}
		return reply
	}
	for line, want := range map[string]string{
		`{"v":2,"token":"` + c.Token + `","op":"ping"}`:                       host.UnsupportedVersion,
		`{"v":1,"op":"ping"}`:                                                 host.TokenRefused,
		`{"v":1,"token":"` + c.Token + `","op":"fly"}`:                        host.UnknownOp,
		`{"v":1,"token":"` + c.Token + `","op":"ping","args":{"x":1}}`:        host.BadRequest,
		`{"v":1,"token":"` + c.Token + `","op":"ping","args":[1]}`:            host.BadRequest,
		`{"v":1,"token":"` + c.Token + `","op":"agent.wait","args":{"id":1}}`: host.BadRequest,
		`not json`: host.BadRequest,
	} {
		if got := send(line); got.OK || got.ErrorCode != want || got.V != 1 {
			t.Errorf("%s: got %+v, want %s", line, got, want)
		}
	}
}

// A tool run by hand has no host to ask.
func TestNoHost(t *testing.T) {
	t.Setenv(host.EnvAPI, "")
	if _, err := host.FromEnv(); code(err) != host.HostUnavailable {
		t.Errorf("FromEnv: %v", err)
	}
	c := &host.Client{Addr: "/nonexistent/api.sock", Token: "t"}
	if err := c.Call(context.Background(), host.OpPing, nil, nil); code(err) != host.HostUnavailable {
		t.Errorf("Call: %v", err)
	}
}

func decodeReply(line []byte) (host.Reply, error) {
	var r host.Reply
	err := json.Unmarshal(bytes.TrimSpace(line), &r)
	return r, err
}
