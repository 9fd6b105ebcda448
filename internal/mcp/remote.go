package mcp

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sync"

	"github.com/ikigai-tools/ikigai/internal/config"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"
)

// errUnauthorized is why a remote server that answered 401 did not start.
var errUnauthorized = errors.New("answered 401 Unauthorized")

// remote is how a server reached by URL is spoken to: the configured
// headers on every request, over either transport, and what the server
// answered the first POST, which decides whether to fall back to SSE.
type remote struct {
	base    http.RoundTripper
	headers map[string]string
	// tokens are the server's OAuth tokens, from ikigai mcp login; nil
	// when there are none.
	tokens oauth2.TokenSource

	mu     sync.Mutex
	status int // of the first answered POST; 0 before
	auth   bool
}

// newRemote returns the transport of a server's requests: cfg's headers,
// expanded already, and its bearer token from the environment variable
// bearer_token_env_var names.
func newRemote(cfg config.MCPServer, getenv func(string) (string, bool)) (*remote, error) {
	return newRemoteNamed("", cfg, getenv)
}

// newRemoteNamed is newRemote with the OAuth tokens ikigai mcp login kept
// for the server called name, if any, sent unless a header says otherwise.
func newRemoteNamed(name string, cfg config.MCPServer, getenv func(string) (string, bool)) (*remote, error) {
	h := maps.Clone(cfg.Headers)
	if h == nil {
		h = map[string]string{}
	}
	if v := cfg.BearerTokenEnvVar; v != "" {
		tok, ok := getenv(v)
		if !ok || tok == "" {
			return nil, fmt.Errorf("environment variable %s (bearer_token_env_var) is not set", v)
		}
		h["Authorization"] = "Bearer " + tok
	}
	r := &remote{base: http.DefaultTransport, headers: h}
	if name != "" {
		r.tokens = storedTokens(cfg, name, http.DefaultClient)
	}
	return r, nil
}

func (r *remote) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for _, k := range slices.Sorted(maps.Keys(r.headers)) {
		// An OAuth token set by the SDK wins over a configured header.
		if k == "Authorization" && req.Header.Get(k) != "" {
			continue
		}
		req.Header.Set(k, r.headers[k])
	}
	if r.tokens != nil && req.Header.Get("Authorization") == "" {
		// A token that cannot be had (a refresh refused) leaves the
		// request without: the server's 401 asks to log in again.
		if t, err := r.tokens.Token(); err == nil {
			t.SetAuthHeader(req)
		}
	}
	resp, err := r.base.RoundTrip(req)
	if err == nil {
		r.mu.Lock()
		if req.Method == http.MethodPost && r.status == 0 {
			r.status = resp.StatusCode
		}
		if resp.StatusCode == http.StatusUnauthorized {
			r.auth = true
		}
		r.mu.Unlock()
	}
	return resp, err
}

// firstStatus is the status of the first answered POST, 0 before any.
func (r *remote) firstStatus() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status
}

func (r *remote) unauthorized() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.auth
}

// wantsSSE reports whether a streamable-HTTP start that failed should be
// tried again over SSE, as the TypeScript SDK does: the server answered
// the initialize POST with 404 or 405, as a legacy SSE server does.
func (r *remote) wantsSSE() bool {
	s := r.firstStatus()
	return s == http.StatusNotFound || s == http.StatusMethodNotAllowed
}

// sseTransport is the SDK's SSE client transport connected with a context
// of its own: the SDK ties the stream's GET to the context of Connect,
// which is the startup timeout's, and would end the stream with it.
type sseTransport struct {
	sdk.SSEClientTransport
	// stream is the context the stream lives in, cancelled when the
	// connection is over.
	stream context.Context
}

func (t *sseTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	ctx2, cancel := context.WithCancel(t.stream)
	// Until connected, the startup timeout bounds the wait.
	stop := context.AfterFunc(ctx, cancel)
	conn, err := t.SSEClientTransport.Connect(ctx2)
	if !stop() || err != nil {
		cancel()
		if err == nil {
			conn.Close()
			return nil, ctx.Err()
		}
		return nil, err
	}
	return &cancelOnClose{Connection: conn, cancel: cancel}, nil
}

type cancelOnClose struct {
	sdk.Connection
	cancel context.CancelFunc
}

func (c *cancelOnClose) Close() error {
	err := c.Connection.Close()
	c.cancel()
	return err
}
