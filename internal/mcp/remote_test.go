//lint:file-ignore SA1019 MCP's logging and roots are deprecated from protocol 2026-07-28 but still what clients and servers of the versions ikigai speaks use.

package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
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
		{"fallback from http", config.MCPServer{Type: "http", URL: rs.URL + "/sse", Headers: headers}, "|blue|no roots"},
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

// oauthServer is an MCP server on loopback behind OAuth, and its
// authorization server: metadata, dynamic registration, an authorization
// endpoint that grants at once (standing in for the user at a browser),
// and a token endpoint that checks PKCE and rotates refresh tokens,
// issuing access tokens that expire within oauth2's leeway, so that
// every use refreshes.
type oauthServer struct {
	*httptest.Server
	t *testing.T

	mu         sync.Mutex
	clients    map[string]string // client_id → redirect URI
	challenges map[string]string // code → S256 challenge
	access     map[string]bool
	refresh    string // the one refresh token good now
	refreshes  int
}

func newOAuthServer(t *testing.T) *oauthServer {
	o := &oauthServer{t: t, clients: map[string]string{}, challenges: map[string]string{}, access: map[string]bool{}}
	mcpHandler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server {
		s := sdk.NewServer(&sdk.Implementation{Name: "private", Version: "1"}, nil)
		s.AddTool(&sdk.Tool{Name: "secret", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "42"}}}, nil
		})
		return s
	}, nil)
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		o.mu.Lock()
		ok := o.access[tok]
		o.mu.Unlock()
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+o.URL+`/.well-known/oauth-protected-resource/mcp"`)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		mcpHandler.ServeHTTP(w, r)
	})
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"resource": o.URL + "/mcp", "authorization_servers": []string{o.URL}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"issuer": o.URL, "authorization_endpoint": o.URL + "/authorize",
			"token_endpoint": o.URL + "/token", "registration_endpoint": o.URL + "/register",
			"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"},
			"grant_types_supported": []string{"authorization_code", "refresh_token"}, "scopes_supported": []string{"offline_access"},
			"token_endpoint_auth_methods_supported": []string{"none"}})
	})
	mux.HandleFunc("/register", func(w http.ResponseWriter, r *http.Request) {
		var md struct {
			RedirectURIs []string `json:"redirect_uris"`
		}
		json.NewDecoder(r.Body).Decode(&md)
		if len(md.RedirectURIs) != 1 || !strings.HasPrefix(md.RedirectURIs[0], "http://127.0.0.1:") {
			t.Errorf("registered redirect URIs %q", md.RedirectURIs)
		}
		o.mu.Lock()
		id := fmt.Sprintf("client-%d", len(o.clients)+1)
		o.clients[id] = md.RedirectURIs[0]
		o.mu.Unlock()
		w.WriteHeader(http.StatusCreated)
		json.NewEncoder(w).Encode(map[string]any{"client_id": id, "redirect_uris": md.RedirectURIs, "token_endpoint_auth_method": "none"})
	})
	mux.HandleFunc("/authorize", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		o.mu.Lock()
		redirect, known := o.clients[q.Get("client_id")]
		code := fmt.Sprintf("code-%d", len(o.challenges)+1)
		o.challenges[code] = q.Get("code_challenge")
		o.mu.Unlock()
		if !known || q.Get("redirect_uri") != redirect || q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("resource") != o.URL+"/mcp" {
			t.Errorf("authorize request %v", q)
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		http.Redirect(w, r, redirect+"?code="+code+"&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		o.mu.Lock()
		defer o.mu.Unlock()
		switch r.Form.Get("grant_type") {
		case "authorization_code":
			challenge, ok := o.challenges[r.Form.Get("code")]
			sum := sha256.Sum256([]byte(r.Form.Get("code_verifier")))
			if !ok || base64.RawURLEncoding.EncodeToString(sum[:]) != challenge {
				t.Errorf("code exchange without the PKCE verifier: %v", r.Form)
				http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
				return
			}
			delete(o.challenges, r.Form.Get("code"))
		case "refresh_token":
			if r.Form.Get("refresh_token") != o.refresh {
				t.Errorf("refresh with %q, want %q", r.Form.Get("refresh_token"), o.refresh)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				io.WriteString(w, `{"error":"invalid_grant"}`)
				return
			}
			o.refreshes++
		default:
			http.Error(w, `{"error":"unsupported_grant_type"}`, http.StatusBadRequest)
			return
		}
		n := len(o.access) + 1
		access := fmt.Sprintf("access-%d", n)
		o.access[access] = true
		o.refresh = fmt.Sprintf("refresh-%d", n)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": 5, "refresh_token": o.refresh})
	})
	o.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/mcp" {
			w.Header().Set("Content-Type", "application/json")
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(o.Close)
	return o
}

// TestOAuth logs in (registration, PKCE, the code at the loopback
// redirect), then starts the server with the kept tokens: each start and
// call refreshes the expired access token, the rotated refresh token is
// written back, and a later run uses the latest.
func TestOAuth(t *testing.T) {
	o := newOAuthServer(t)
	state := filepath.Join(t.TempDir(), "state")
	cfg := config.MCPServer{URL: o.URL + "/mcp", AuthFile: filepath.Join(state, "mcp-auth.json")}

	// Before logging in, the server says what to do.
	s := Start(map[string]config.MCPServer{"p": cfg}, execute.Env{}, "", nil)
	_, failed := s.Tools(t.Context())
	s.Close()
	if len(failed) != 1 || failed[0].Reason != "server answered 401 Unauthorized: run ikigai mcp login p" {
		t.Fatalf("before login: %+v", failed)
	}

	var shown string
	err := Login(t.Context(), "p", cfg, func(u string) {
		shown = u
		// The user's browser: it follows the redirect to the listener.
		go func() {
			resp, err := http.Get(u)
			if err != nil {
				t.Errorf("browser: %v", err)
				return
			}
			resp.Body.Close()
		}()
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(shown, o.URL+"/authorize?") {
		t.Errorf("shown %q", shown)
	}
	for _, p := range []string{state, cfg.AuthFile} {
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]os.FileMode{true: 0o700, false: 0o600}[info.IsDir()]; info.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", p, info.Mode().Perm(), want)
		}
	}

	for run := range 2 {
		s := Start(map[string]config.MCPServer{"p": cfg}, execute.Env{}, "", nil)
		tools, failed := s.Tools(t.Context())
		if len(failed) > 0 || len(tools) != 1 {
			s.Close()
			t.Fatalf("run %d: tools %v, failed %+v", run, tools, failed)
		}
		env := tools[0].Runner.Run(t.Context(), json.RawMessage(`{}`), 0)
		s.Close()
		if !env.Success || string(env.Result) != `{"output":"42"}` {
			t.Errorf("run %d: %+v", run, env)
		}
	}
	o.mu.Lock()
	refreshes, latest := o.refreshes, o.refresh
	o.mu.Unlock()
	data, _ := os.ReadFile(cfg.AuthFile)
	if refreshes < 2 || !strings.Contains(string(data), `"refresh_token": "`+latest+`"`) {
		t.Errorf("%d refreshes; latest %s; kept:\n%s", refreshes, latest, data)
	}
}
