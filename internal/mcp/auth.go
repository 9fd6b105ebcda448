package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ikigai-tools/ikigai/internal/buildinfo"
	"github.com/ikigai-tools/ikigai/internal/config"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// authStore is the file that keeps the OAuth tokens of remote servers
// (mcp-auth.json in the state directory), readable by the user alone:
// for each server, by name and URL, the client ikigai registered as and
// the tokens it was given.
type authStore struct{ path string }

// authEntry is what is kept for one server.
type authEntry struct {
	ClientID     string    `json:"client_id"`
	ClientSecret string    `json:"client_secret,omitempty"`
	AuthURL      string    `json:"auth_url"`
	TokenURL     string    `json:"token_url"`
	AuthStyle    int       `json:"auth_style,omitempty"`
	AccessToken  string    `json:"access_token"`
	TokenType    string    `json:"token_type,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
}

// storeMu orders the store's reads and writes within the process.
var storeMu sync.Mutex

func authKey(name, url string) string { return name + " " + url }

func (s authStore) read() (map[string]authEntry, error) {
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]authEntry{}, nil
	}
	if err != nil {
		return nil, err
	}
	m := map[string]authEntry{}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %v", s.path, err)
	}
	return m, nil
}

func (s authStore) get(name, url string) (authEntry, bool) {
	storeMu.Lock()
	defer storeMu.Unlock()
	m, err := s.read()
	if err != nil {
		return authEntry{}, false
	}
	e, ok := m[authKey(name, url)]
	return e, ok
}

// put keeps e for the server, in a file of mode 0600 in a directory of
// mode 0700, replaced at once (see write).
func (s authStore) put(name, url string, e authEntry) error {
	storeMu.Lock()
	defer storeMu.Unlock()
	m, err := s.read()
	if err != nil {
		return err
	}
	m[authKey(name, url)] = e
	return s.write(m)
}

// ForgetLogins removes from the store at path what it keeps for the server
// called name, at whatever URL, and reports whether it kept anything.
func ForgetLogins(path, name string) (bool, error) {
	storeMu.Lock()
	defer storeMu.Unlock()
	s := authStore{path}
	m, err := s.read()
	if err != nil {
		return false, err
	}
	forgot := false
	for key := range m {
		if strings.HasPrefix(key, authKey(name, "")) {
			delete(m, key)
			forgot = true
		}
	}
	if !forgot {
		return false, nil
	}
	return true, s.write(m)
}

// write replaces the store's file with m, with storeMu held.
func (s authStore) write(m map[string]authEntry) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(s.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".mcp-auth-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(append(data, '\n'))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), s.path) // CreateTemp made it 0600
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}

func (e authEntry) config() *oauth2.Config {
	return &oauth2.Config{ClientID: e.ClientID, ClientSecret: e.ClientSecret,
		Endpoint: oauth2.Endpoint{AuthURL: e.AuthURL, TokenURL: e.TokenURL, AuthStyle: oauth2.AuthStyle(e.AuthStyle)}}
}

func (e authEntry) token() *oauth2.Token {
	return &oauth2.Token{AccessToken: e.AccessToken, TokenType: e.TokenType, RefreshToken: e.RefreshToken, Expiry: e.Expiry}
}

// keptTokens is a token source that writes each new token back to the
// store: a refresh token may be good for one use only.
type keptTokens struct {
	store     authStore
	name, url string
	entry     authEntry
	src       oauth2.TokenSource

	mu sync.Mutex
}

func newKeptTokens(ctx context.Context, store authStore, name, url string, e authEntry, client *http.Client) *keptTokens {
	ctx = context.WithValue(ctx, oauth2.HTTPClient, client)
	return &keptTokens{store: store, name: name, url: url, entry: e, src: e.config().TokenSource(ctx, e.token())}
}

func (k *keptTokens) Token() (*oauth2.Token, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	t, err := k.src.Token()
	if err != nil {
		return nil, err
	}
	if t.AccessToken != k.entry.AccessToken || t.RefreshToken != k.entry.RefreshToken {
		k.entry.AccessToken, k.entry.TokenType, k.entry.Expiry = t.AccessToken, t.TokenType, t.Expiry
		if t.RefreshToken != "" {
			k.entry.RefreshToken = t.RefreshToken
		}
		if err := k.store.put(k.name, k.url, k.entry); err != nil {
			return nil, fmt.Errorf("keeping the new token: %w", err)
		}
	}
	return t, nil
}

// storedTokens returns the token source of the server's stored tokens;
// nil when there are none.
func storedTokens(cfg config.MCPServer, name string, client *http.Client) oauth2.TokenSource {
	if cfg.AuthFile == "" {
		return nil
	}
	store := authStore{cfg.AuthFile}
	e, ok := store.get(name, cfg.URL)
	if !ok {
		return nil
	}
	return newKeptTokens(context.Background(), store, name, cfg.URL, e, client)
}

// Login runs OAuth's authorization code flow for the remote server
// called name, as its WWW-Authenticate answer and metadata describe it:
// the client registers itself, show is given the URL the user opens in
// a browser (it is not opened), and a listener on 127.0.0.1 receives
// the code, exchanged with PKCE (S256) for tokens, which are kept in
// cfg.AuthFile. cfg is the server's configuration, expanded.
func Login(ctx context.Context, name string, cfg config.MCPServer, show func(url string)) error {
	if cfg.URL == "" {
		return fmt.Errorf("%s is started by a command: only a server reached by URL logs in", name)
	}
	if cfg.AuthFile == "" {
		return errors.New("no state directory to keep the tokens in")
	}
	rt, err := newRemote(cfg, config.LookupEnv)
	if err != nil {
		return err
	}
	delete(rt.headers, "Authorization") // whatever is configured: log in afresh
	client := &http.Client{Transport: rt}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	defer ln.Close()
	redirect := "http://" + ln.Addr().String() + "/callback"
	codes := make(chan *auth.AuthorizationResult, 1)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		if e := q.Get("error"); e != "" {
			http.Error(w, "Login failed: "+e, http.StatusBadRequest)
			return
		}
		select {
		case codes <- &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}:
			fmt.Fprintln(w, "ikigai is logged in; you can close this page.")
		default:
			http.Error(w, "already logged in", http.StatusConflict)
		}
	}), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer func() {
		// The browser still gets its page: the answer to the callback is
		// written before the listener goes.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}()

	store := authStore{cfg.AuthFile}
	var saveErr error
	h, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs:            []string{redirect},
			ClientName:              "ikigai",
			ClientURI:               "https://github.com/ikigai-tools/ikigai",
			GrantTypes:              []string{"authorization_code", "refresh_token"},
			ResponseTypes:           []string{"code"},
			TokenEndpointAuthMethod: "none",
			SoftwareVersion:         buildinfo.Version,
		}},
		RedirectURL:         redirect,
		RequestRefreshToken: true,
		Client:              client,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			show(args.URL)
			select {
			case res := <-codes:
				return res, nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		},
		NewTokenSource: func(ctx context.Context, c *oauth2.Config, t *oauth2.Token) (oauth2.TokenSource, error) {
			e := authEntry{ClientID: c.ClientID, ClientSecret: c.ClientSecret, AuthURL: c.Endpoint.AuthURL,
				TokenURL: c.Endpoint.TokenURL, AuthStyle: int(c.Endpoint.AuthStyle),
				AccessToken: t.AccessToken, TokenType: t.TokenType, RefreshToken: t.RefreshToken, Expiry: t.Expiry}
			saveErr = store.put(name, cfg.URL, e)
			return oauth2.StaticTokenSource(t), saveErr
		},
	})
	if err != nil {
		return err
	}
	req, resp, err := challenge(ctx, client, cfg)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusUnauthorized {
		resp.Body.Close()
		return fmt.Errorf("%s answered %s, not 401 Unauthorized: it does not ask to log in", name, resp.Status)
	}
	if err := h.Authorize(ctx, req, resp); err != nil {
		return err
	}
	return saveErr
}

// challenge asks the server what it asks of a client that has not logged
// in: an initialize POST over streamable HTTP, the stream's GET over SSE.
func challenge(ctx context.Context, client *http.Client, cfg config.MCPServer) (*http.Request, *http.Response, error) {
	var req *http.Request
	var err error
	if cfg.Type == "sse" {
		req, err = http.NewRequestWithContext(ctx, http.MethodGet, cfg.URL, nil)
		if err == nil {
			req.Header.Set("Accept", "text/event-stream")
		}
	} else {
		body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + protocolVersion + `","capabilities":{},"clientInfo":{"name":"ikigai","version":"` + buildinfo.Version + `"}}}`
		req, err = http.NewRequestWithContext(ctx, http.MethodPost, cfg.URL, bytes.NewReader([]byte(body)))
		if err == nil {
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
		}
	}
	if err != nil {
		return nil, nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode != http.StatusUnauthorized {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	}
	return req, resp, nil
}
