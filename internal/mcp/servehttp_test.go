//lint:file-ignore SA1019 MCP's logging and roots are deprecated from protocol 2026-07-28 but still what clients and servers of the versions ikigai speaks use.

package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/registry"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// runner answers every call with env.
type runner struct{ env execute.Envelope }

func (r runner) Run(context.Context, json.RawMessage, time.Duration) execute.Envelope { return r.env }

func served(name, desc, doc string, env execute.Envelope) registry.Tool {
	return registry.Tool{Entry: registry.Entry{Name: name, Source: "system", Path: "/bin/" + name},
		Schema: registry.Schema{Description: desc, Parameters: json.RawMessage(`{"type":"object"}`), Document: json.RawMessage(doc)},
		Runner: runner{env}}
}

// bearer sends a token with every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// ikigai mcp serve --http: a bearer token on loopback, outputSchema from
// returns, instructions, logs once the client sets a level, --tools.
func TestServeHTTP(t *testing.T) {
	ok := execute.Succeeded(json.RawMessage(`{"n":1}`))
	ok.Stderr = "indexing 3 files\n"
	reg := registry.New([]registry.Tool{
		served("count", "Counts things. Quickly.", `{"name":"count","returns":{"type":"object","properties":{"n":{"type":"number"}}}}`, ok),
		served("fails", "Fails.", `{"name":"fails","returns":{"type":"object"}}`, execute.Failed(execute.ToolCrashed, "it crashed")),
		served("plain", "Returns text.", `{"name":"plain","returns":{"type":"string"}}`, ok),
		served("hidden", "Not served.", `{"name":"hidden"}`, ok),
	}, []registry.Failure{{Entry: registry.Entry{Name: "broken", Path: "/bin/broken-tool"}, Reason: "--schema printed nothing"}}, nil)
	srv := NewServer(reg, func(string) time.Duration { return time.Second }, nil, nil, ServeOptions{Tools: []string{"count", "f*", "plain", "broken"}})
	if _, _, err := ListenLoopback("0.0.0.0:0", ""); err == nil || !strings.Contains(err.Error(), "loopback only") {
		t.Errorf("listening beyond loopback: %v", err)
	}
	ln, token, err := ListenLoopback("127.0.0.1:0", "")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- srv.RunHTTP(ctx, ln, token) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	url := "http://" + ln.Addr().String() + "/"

	if resp, err := http.Post(url, "application/json", strings.NewReader(`{}`)); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("without the token: %v, %v", resp.Status, err)
	}

	var mu sync.Mutex
	var logs []string
	gotLog := make(chan struct{}, 10)
	client := sdk.NewClient(&sdk.Implementation{Name: "test"}, &sdk.ClientOptions{LoggingMessageHandler: func(_ context.Context, r *sdk.LoggingMessageRequest) {
		mu.Lock()
		logs = append(logs, string(r.Params.Level)+" "+r.Params.Logger+": "+r.Params.Data.(string))
		mu.Unlock()
		gotLog <- struct{}{}
	}})
	session, err := client.Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	want := "ikigai's tools, run on this machine as its agent runs them:\n- count: Counts things.\n- fails: Fails.\n- plain: Returns text."
	if got := session.InitializeResult().Instructions; got != want {
		t.Errorf("instructions:\n%s\nwant\n%s", got, want)
	}
	tools, err := session.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	schemas := map[string]any{}
	for _, tool := range tools.Tools {
		schemas[tool.Name] = tool.OutputSchema
	}
	wantSchemas := map[string]any{
		"count": map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "number"}}},
		"fails": map[string]any{"type": "object"},
		"plain": nil,
	}
	if diff := cmp.Diff(wantSchemas, schemas); diff != "" {
		t.Errorf("output schemas (-want +got):\n%s", diff)
	}

	if err := session.SetLoggingLevel(t.Context(), &sdk.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	<-gotLog
	res, err := session.CallTool(t.Context(), &sdk.CallToolParams{Name: "count"})
	if err != nil || res.IsError {
		t.Fatalf("count: %v, %+v", err, res)
	}
	<-gotLog
	res, err = session.CallTool(t.Context(), &sdk.CallToolParams{Name: "fails"})
	if err != nil || !res.IsError || res.StructuredContent != nil {
		t.Errorf("fails: %v, %+v", err, res)
	}
	mu.Lock()
	defer mu.Unlock()
	wantLogs := []string{"warning ikigai: tool broken (/bin/broken-tool) could not be served: --schema printed nothing", "debug count: indexing 3 files\n"}
	if diff := cmp.Diff(wantLogs, logs); diff != "" {
		t.Errorf("logs (-want +got):\n%s", diff)
	}
}
