package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/ikigai-tools/ikigai/internal/config"
	"github.com/ikigai-tools/ikigai/internal/execute"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// remoteServer is an MCP server on loopback with one tool, whoami, that
// answers with the Authorization and X-Team headers of the session's
// first request and
// the client's roots. It serves streamable HTTP on /mcp and legacy SSE
// on /sse; a POST to /sse without a session answers 405 as an SSE-only
// server does. seen records every request's path and headers.
type remoteServer struct {
	*httptest.Server
	mu   sync.Mutex
	seen []string
}

func newRemoteServer(t *testing.T) *remoteServer {
	t.Helper()
	rs := &remoteServer{}
	newServer := func(first *http.Request) *sdk.Server {
		s := sdk.NewServer(&sdk.Implementation{Name: "remote", Version: "1"}, nil)
		s.AddTool(&sdk.Tool{Name: "whoami", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var roots []string
			if req.Session.InitializeParams().Capabilities.RootsV2 == nil {
				roots = []string{"no roots"}
			} else if res, err := req.Session.ListRoots(ctx, nil); err == nil {
				for _, r := range res.Roots {
					roots = append(roots, r.URI)
				}
			} else {
				roots = []string{"error: " + err.Error()}
			}
			h := first.Header
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: h.Get("Authorization") + "|" + h.Get("X-Team") + "|" + strings.Join(roots, ",")}}}, nil
		})
		return s
	}
	streamable := sdk.NewStreamableHTTPHandler(newServer, nil)
	sse := sdk.NewSSEHandler(newServer, nil)
	mux := http.NewServeMux()
	mux.Handle("/mcp", streamable)
	mux.HandleFunc("/sse", func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Query().Get("sessionid") == "" {
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		sse.ServeHTTP(w, r)
	})
	mux.HandleFunc("/private", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="test"`)
		http.Error(w, "unauthorized", http.StatusUnauthorized)
	})
	rs.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rs.mu.Lock()
		rs.seen = append(rs.seen, r.Method+" "+r.URL.Path+" "+r.Header.Get("X-Team"))
		rs.mu.Unlock()
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(rs.Close)
	return rs
}

func (rs *remoteServer) requests() []string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return append([]string(nil), rs.seen...)
}

// whoami starts cfg as server "r" offering dir as root, calls its whoami
// tool once the start is over (and its context with it), and returns
// what it answered.
func whoami(t *testing.T, cfg config.MCPServer, dir string) string {
	t.Helper()
	s := Start(map[string]config.MCPServer{"r": cfg}, execute.Env{}, dir, nil)
	t.Cleanup(s.Close)
	tools, failed := s.Tools(t.Context())
	if len(failed) > 0 {
		t.Fatalf("failed: %+v", failed)
	}
	if len(tools) != 1 {
		t.Fatalf("tools: %+v", tools)
	}
	env := tools[0].Runner.Run(t.Context(), json.RawMessage(`{}`), 0)
	if !env.Success {
		t.Fatalf("call: %+v", env)
	}
	var res struct{ Output string }
	if err := json.Unmarshal(env.Result, &res); err != nil {
		t.Fatalf("result %s: %v", env.Result, err)
	}
	return res.Output
}

func TestRemoteTransports(t *testing.T) {
	t.Setenv("IKIGAI_TEST_TEAM", "blue")
	t.Setenv("IKIGAI_TEST_TOKEN", "s3cret")
	rs := newRemoteServer(t)
	headers := map[string]string{"X-Team": "${IKIGAI_TEST_TEAM}"}
	for _, tc := range []struct {
		name string
		cfg  config.MCPServer
		want string
	}{
		{"streamable", config.MCPServer{URL: rs.URL + "/mcp", Headers: headers, BearerTokenEnvVar: "IKIGAI_TEST_TOKEN"}, "Bearer s3cret|blue|no roots"},
		{"http type", config.MCPServer{Type: "http", URL: rs.URL + "/mcp", Headers: headers}, "|blue|no roots"},
		{"sse type", config.MCPServer{Type: "sse", URL: rs.URL + "/sse", Headers: headers, BearerTokenEnvVar: "IKIGAI_TEST_TOKEN"}, "Bearer s3cret|blue|no roots"},
		// An SSE-only server answers the initialize POST with 405: the
		// client falls back to SSE.
		{"fallback", config.MCPServer{URL: rs.URL + "/sse", Headers: headers}, "|blue|no roots"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := whoami(t, tc.cfg, ""); got != tc.want {
				t.Errorf("whoami = %q, want %q", got, tc.want)
			}
		})
	}
	// Every request carried the headers, the stream's GET included.
	for _, r := range rs.requests() {
		if !strings.HasSuffix(r, " blue") {
			t.Errorf("request without the header: %q", r)
		}
	}
}

// The working directory is the only root; with none, roots are not
// advertised at all.
func TestRoots(t *testing.T) {
	rs := newRemoteServer(t)
	dir := t.TempDir()
	if got, want := whoami(t, config.MCPServer{URL: rs.URL + "/mcp"}, dir), "||file://"+dir; got != want {
		t.Errorf("whoami = %q, want %q", got, want)
	}
	if got := whoami(t, config.MCPServer{URL: rs.URL + "/mcp"}, ""); got != "||no roots" {
		t.Errorf("roots without a directory: %q", got)
	}
}

func TestRemoteFailures(t *testing.T) {
	rs := newRemoteServer(t)
	for _, tc := range []struct {
		name string
		cfg  config.MCPServer
		want string
	}{
		{"unauthorized", config.MCPServer{URL: rs.URL + "/private"}, "server answered 401 Unauthorized: run ikigai mcp login r"},
		{"missing variable", config.MCPServer{URL: rs.URL + "/mcp", Headers: map[string]string{"X": "${IKIGAI_TEST_UNSET}"}}, "server cannot be started: environment variable IKIGAI_TEST_UNSET is not set"},
		{"missing token", config.MCPServer{URL: rs.URL + "/mcp", BearerTokenEnvVar: "IKIGAI_TEST_UNSET"}, "server cannot be started: environment variable IKIGAI_TEST_UNSET (bearer_token_env_var) is not set"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Start(map[string]config.MCPServer{"r": tc.cfg, "ok": {URL: rs.URL + "/mcp"}}, execute.Env{}, "", nil)
			t.Cleanup(s.Close)
			tools, failed := s.Tools(t.Context())
			if len(tools) != 1 || len(failed) != 1 || failed[0].Reason != tc.want {
				t.Errorf("tools %d, failed %+v; want %q", len(tools), failed, tc.want)
			}
		})
	}
}

// A disabled server is not started.
func TestDisabled(t *testing.T) {
	rs := newRemoteServer(t)
	s := Start(map[string]config.MCPServer{"r": {URL: rs.URL + "/mcp", Disabled: true}}, execute.Env{}, "", nil)
	t.Cleanup(s.Close)
	if tools, failed := s.Tools(t.Context()); len(tools)+len(failed) != 0 {
		t.Errorf("tools %+v, failed %+v", tools, failed)
	}
	if r := rs.requests(); len(r) != 0 {
		t.Errorf("requests: %q", r)
	}
}
