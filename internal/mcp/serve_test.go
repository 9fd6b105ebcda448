package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"github.com/ikigai-tools/ikigai/internal/rules"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/registry"
)

// serve runs a server of reg on pipes, for the test's length; send writes
// a line to it and next reads its next line.
func serve(t *testing.T, reg *registry.Registry, denied ...string) (send func(string), next func() string) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var deny rules.List
	for _, d := range denied {
		r, err := rules.Parse(d)
		if err != nil {
			t.Fatal(err)
		}
		deny = append(deny, r)
	}
	srv := NewServer(reg, func(string) time.Duration { return time.Second }, nil, deny)
	done := make(chan error, 1)
	go func() { done <- srv.Run(context.Background(), inR, outW) }()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("the server did not end once its input did")
		}
	})
	lines := bufio.NewReader(outR)
	send = func(line string) {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatalf("the server stopped reading: %v", err)
		}
	}
	next = func() string {
		t.Helper()
		got := make(chan string, 1)
		go func() {
			l, _ := lines.ReadString('\n')
			got <- strings.TrimSuffix(l, "\n")
		}()
		select {
		case l := <-got:
			return l
		case <-time.After(10 * time.Second):
			t.Fatal("no answer from the server")
			return ""
		}
	}
	return send, next
}

// A line that is not JSON, or JSON that is not JSON-RPC, gets the error
// JSON-RPC says, and the server carries on serving.
func TestServeMalformedLines(t *testing.T) {
	send, next := serve(t, registry.New(nil, nil, nil))
	for _, tc := range []struct{ line, want string }{
		{`this is not json`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the message is not JSON"}}`},
		{`{"foo":1}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: invalid message version tag \"\"; expected \"2.0\""}}`},
		{`{"jsonrpc":"2.0","id":7,"params":3}`, `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"Invalid Request: neither a request nor a response"}}`},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: parse error: invalid ID type map[string]interface {}"}}`},
		{`[]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: an empty batch"}}`},
		{`[{"foo":1}]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: invalid message version tag \"\"; expected \"2.0\""}}`},
	} {
		send(tc.line)
		if got := next(); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.line, got, tc.want)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if got := next(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":1,"result":{`) {
		t.Errorf("initialize: %s", got)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":99,"result":{}}`) // answers nothing asked: ignored
	send(`not json either`)
	if got := next(); !strings.Contains(got, `"code":-32700`) {
		t.Errorf("after initialize: %s", got)
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if got := next(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":2,"result":{`) || !strings.Contains(got, `"tools":[]`) {
		t.Errorf("tools/list: %s", got)
	}
}

// runFunc runs a tool with a function.
type runFunc func() execute.Envelope

func (f runFunc) Run(context.Context, json.RawMessage, time.Duration) execute.Envelope { return f() }

// A tool the configuration denies is not served: not listed, not run.
func TestServeDenied(t *testing.T) {
	var ran atomic.Bool
	tool := func(name string) registry.Tool {
		return registry.Tool{Entry: registry.Entry{Name: name}, Schema: registry.Schema{Parameters: json.RawMessage(`{"type":"object"}`)},
			Runner: runFunc(func() execute.Envelope { ran.Store(true); return execute.Succeeded(json.RawMessage(`{}`)) })}
	}
	send, next := serve(t, registry.New([]registry.Tool{tool("bash"), tool("grep")}, nil, nil), "bash")
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	next()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if got := next(); !strings.Contains(got, `"name":"grep"`) || strings.Contains(got, `"name":"bash"`) {
		t.Errorf("tools/list: %s", got)
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"bash","arguments":{}}}`)
	if got := next(); !strings.Contains(got, `"error"`) || ran.Load() {
		t.Errorf("the denied tool: %s, ran %v", got, ran.Load())
	}
}
