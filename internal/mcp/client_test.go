package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ikigai-tools/ikigai/internal/config"
	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/registry"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// testServer configures the test binary as an MCP server; starts, if not
// empty, is the file each start writes its pid to.
func testServer(mode, starts string) config.MCPServer {
	return config.MCPServer{Command: os.Args[0], Env: map[string]string{
		"IKIGAI_TEST_MCP_SERVER": mode,
		"IKIGAI_TEST_MCP_STARTS": starts,
		"TEST_VALUE":             "from the configuration",
	}}
}

// start starts servers and stops them when the test ends.
func start(t *testing.T, servers map[string]config.MCPServer) *Servers {
	t.Helper()
	s := Start(servers, execute.Env{}, "", nil)
	t.Cleanup(s.Close)
	return s
}

// registryOf waits for s's tools and puts them in a registry.
func registryOf(t *testing.T, s *Servers) *registry.Registry {
	t.Helper()
	tools, failed := s.Tools(t.Context())
	return registry.New(tools, failed, nil)
}

// pids returns the pids the servers' starts wrote to file.
func pids(t *testing.T, file string) []string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(data))
}

// alive reports whether the process pid exists.
func alive(pid string) bool {
	var n int
	fmt.Sscan(pid, &n)
	return syscall.Kill(n, 0) == nil
}

func TestList(t *testing.T) {
	cfg := testServer("", "")
	cfg.DisabledTools = []string{"garbage", "freeze"}
	r := registryOf(t, start(t, map[string]config.MCPServer{"t": cfg}))

	var names []string
	for _, tool := range r.Tools() {
		names = append(names, tool.Name)
		if tool.Name == ResourceTool {
			continue
		}
		if tool.Source != "mcp:t" || tool.Path != os.Args[0] {
			t.Errorf("%s: source %q, path %q", tool.Name, tool.Source, tool.Path)
		}
		if !regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`).MatchString(tool.Name) {
			t.Errorf("%q is not a name models accept", tool.Name)
		}
	}
	want := []string{
		ToolName("t", longTool), "mcp--t--big", "mcp--t--crash", ToolName("t", "dotted.name"), "mcp--t--echo", "mcp--t--env",
		"mcp--t--fail", "mcp--t--grow", "mcp--t--hang", "mcp--t--huge", "mcp--t--lines", "mcp--t--process", "mcp--t--resources", "mcp--t--slow", "mcp--t--x--echo",
		ResourceTool,
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if len(r.Failed()) != 0 {
		t.Errorf("failed: %v", r.Failed())
	}

	echo, _ := r.Lookup("mcp--t--echo")
	yes := true
	if diff := cmp.Diff(registry.Annotations{Title: "Echo", ReadOnlyHint: &yes, DeferredHint: &yes}, echo.Schema.Annotations); diff != "" {
		t.Errorf("annotations (-want +got):\n%s", diff)
	}
	if echo.Schema.Description != "Says it back" {
		t.Errorf("description %q", echo.Schema.Description)
	}
	var params struct {
		Type       string         `json:"type"`
		Properties map[string]any `json:"properties"`
		Required   []string       `json:"required"`
	}
	if err := json.Unmarshal(echo.Schema.Parameters, &params); err != nil || params.Type != "object" || params.Properties["text"] == nil || len(params.Required) != 1 {
		t.Errorf("parameters %s: %v", echo.Schema.Parameters, err)
	}
	var doc map[string]any
	if err := json.Unmarshal(echo.Schema.Document, &doc); err != nil || doc["name"] != "echo" {
		t.Errorf("document %s: %v", echo.Schema.Document, err)
	}
}

func TestToolName(t *testing.T) {
	for _, tc := range []struct{ server, tool, want string }{
		{"github", "create_issue", "mcp--github--create_issue"},
		{"my-server", "get-thing", "mcp--my-server--get-thing"},
		{"fs", "read.file", "mcp--fs--read_file-"},
		{"fs", "read_file", "mcp--fs--read_file"},
		{"fs", "lire é", "mcp--fs--lire___-"},
		{"fs", strings.Repeat("a", 60), "mcp--fs--" + strings.Repeat("a", 46) + "-"},
	} {
		got := ToolName(tc.server, tc.tool)
		if !strings.HasPrefix(got, tc.want) || len(got) > 64 {
			t.Errorf("ToolName(%q, %q) = %q, want %q...", tc.server, tc.tool, got, tc.want)
		}
		if strings.HasSuffix(tc.want, "-") && !regexp.MustCompile(`-[0-9a-f]{8}$`).MatchString(got) {
			t.Errorf("ToolName(%q, %q) = %q, want a hash suffix", tc.server, tc.tool, got)
		}
		if got != ToolName(tc.server, tc.tool) {
			t.Errorf("ToolName(%q, %q) changes from call to call", tc.server, tc.tool)
		}
	}
	if ToolName("fs", "read.file") == ToolName("fs", "read/file") {
		t.Error("two tools that sanitise alike got the same name")
	}
	if ToolName("fs", strings.Repeat("a", 60)+"1") == ToolName("fs", strings.Repeat("a", 60)+"2") {
		t.Error("two long names alike but for their end got the same name")
	}
}

// The configuration finds the server of every name ToolName makes, the
// names cut short in the server's part included: the lookup that decides
// which server ikigai tools call starts, and whose timeout applies.
func TestServerOfToolName(t *testing.T) {
	long := strings.Repeat("s", 60)
	cfg := &config.Config{MCPServers: map[string]config.MCPServer{
		"github": {}, "fs": {}, "a": {}, "a--b": {}, long: {}, "x" + long: {},
		strings.Repeat("q", 49): {}, strings.Repeat("r", 50) + "_x": {},
	}}
	for _, tc := range []struct{ server, tool string }{
		{"github", "create_issue"},
		{"fs", "read.file"},
		{"fs", strings.Repeat("a", 60)},
		{"a--b", "c"},
		{"a", "b"},
		{long, "bash"},
		{long, "read.file"},
		{"x" + long, "bash"},
		{strings.Repeat("q", 49), "tool"},
		{strings.Repeat("r", 50) + "_x", "tool"},
	} {
		name := ToolName(tc.server, tc.tool)
		if got := cfg.MCPServerOf(name); got != tc.server {
			t.Errorf("MCPServerOf(%q) = %q, want %q", name, got, tc.server)
		}
	}
	cfg.MCPServers[long] = config.MCPServer{Timeout: 7 * time.Second}
	if got := cfg.TimeoutFor(ToolName(long, "bash")); got != 7*time.Second {
		t.Errorf("the timeout of %s's tools: %v", long, got)
	}
	for _, name := range []string{"bash", "mcp--nosuch--tool", "mcp--" + strings.Repeat("z", 50) + "-0123abcd"} {
		if got := cfg.MCPServerOf(name); got != "" {
			t.Errorf("MCPServerOf(%q) = %q, want none", name, got)
		}
	}
}

// Server names that run into each other's tool names make the same name
// once: the first server's tool keeps it, the other is listed as failed.
func TestNameCollision(t *testing.T) {
	r := registryOf(t, start(t, map[string]config.MCPServer{"t": testServer("", ""), "t--x": testServer("", "")}))
	tool, ok := r.Lookup("mcp--t--x--echo")
	if !ok || tool.Source != "mcp:t" {
		t.Fatalf("mcp--t--x--echo: %v %v", tool.Entry, ok)
	}
	var reasons []string
	for _, f := range r.Failed() {
		reasons = append(reasons, f.Name+" "+string(f.Source)+": "+f.Reason)
	}
	if diff := cmp.Diff([]string{"mcp--t--x--echo mcp:t--x: same name as a tool of mcp:t"}, reasons); diff != "" {
		t.Errorf("failed (-want +got):\n%s", diff)
	}
}

func call(t *testing.T, r *registry.Registry, name, args string, timeout time.Duration) execute.Envelope {
	t.Helper()
	return r.Call(t.Context(), name, json.RawMessage(args), timeout)
}

func TestCall(t *testing.T) {
	r := registryOf(t, start(t, map[string]config.MCPServer{"t": testServer("", "")}))
	for _, tc := range []struct {
		name, args string
		want       *regexp.Regexp
	}{
		{"mcp--t--echo", `{"text":"hi <b>"}`, regexp.MustCompile(`^\{"tool_success":true,"result":\{"pid":\d+,"said":"hi <b>"\}\}$`)},
		{"mcp--t--lines", `{}`, regexp.MustCompile(`^\{"tool_success":true,"result":\{"output":"one\\ntwo","images":\[\{"media_type":"image/png","data":"UE5H"\}\]\}\}$`)},
		{"mcp--t--fail", `{}`, regexp.MustCompile(`^\{"tool_success":true,"result":\{"error":"it went wrong","error_code":"TOOL_ERROR"\}\}$`)},
		{"mcp--t--env", `{}`, regexp.MustCompile(`^\{"tool_success":true,"result":\{"output":"from the configuration"\}\}$`)},
		// Big, but less than a tool may print: whole, for the agent to spill.
		{"mcp--t--big", `{}`, regexp.MustCompile(`^\{"tool_success":true,"result":\{"output":"x{1000}x+"\}\}$`)},
		{"mcp--t--echo", `[1]`, regexp.MustCompile(`^\{"tool_success":false,"error":"Arguments for tool 'mcp--t--echo' are not a JSON object","error_code":"INVALID_PARAMS"\}$`)},
		{"mcp--t--echo", `{"text":3}`, regexp.MustCompile(`^\{"tool_success":true,"result":\{"error":".*text.*","error_code":"TOOL_ERROR"\}\}$`)},
	} {
		env := call(t, r, tc.name, tc.args, 10*time.Second)
		if got := string(env.JSON()); !tc.want.MatchString(got) {
			t.Errorf("%s %s:\n got %s\nwant %s", tc.name, tc.args, got, tc.want)
		}
	}
}

func TestCrashAndRestart(t *testing.T) {
	starts := filepath.Join(t.TempDir(), "starts")
	r := registryOf(t, start(t, map[string]config.MCPServer{"t": testServer("", starts)}))
	env := call(t, r, "mcp--t--crash", `{}`, 10*time.Second)
	code := 3
	want := execute.Envelope{Error: "Tool 'mcp--t--crash' crashed: MCP server 't' exited with exit code 3", Code: execute.ToolCrashed,
		ExitCode: &code, Stderr: "test server starting\npanic: dying on purpose\n"}
	if diff := cmp.Diff(want, env); diff != "" {
		t.Errorf("crash (-want +got):\n%s", diff)
	}
	env = call(t, r, "mcp--t--echo", `{"text":"again"}`, 10*time.Second)
	if !env.Success {
		t.Fatalf("after the crash: %s", env.JSON())
	}
	if p := pids(t, starts); len(p) != 2 || !strings.Contains(string(env.Result), `"pid":`+p[1]) {
		t.Errorf("starts %v, result %s", p, env.Result)
	}
}

func TestTimeoutKeepsAnsweringServer(t *testing.T) {
	starts := filepath.Join(t.TempDir(), "starts")
	r := registryOf(t, start(t, map[string]config.MCPServer{"t": testServer("", starts)}))
	// The server's stderr is not the call's: it is left out.
	env := call(t, r, "mcp--t--hang", `{}`, 200*time.Millisecond)
	if diff := cmp.Diff(execute.Failed(execute.ToolTimeout, "Tool 'mcp--t--hang' timed out after 200ms"), env); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// The server answers its ping, so it is kept; the next call waits for
	// the ping.
	if env := call(t, r, "mcp--t--echo", `{}`, 10*time.Second); !env.Success {
		t.Errorf("after the timeout: %s", env.JSON())
	}
	if p := pids(t, starts); len(p) != 1 {
		t.Errorf("the server was started %d times", len(p))
	}
}

func TestHungServerIsStopped(t *testing.T) {
	quickPing(t)
	starts := filepath.Join(t.TempDir(), "starts")
	s := start(t, map[string]config.MCPServer{"t": testServer("", starts)})
	r := registryOf(t, s)
	first := s.list[0].connect()
	env := call(t, r, "mcp--t--freeze", `{}`, 200*time.Millisecond)
	if env.Code != execute.ToolTimeout {
		t.Fatalf("got %s", env.JSON())
	}
	select {
	case <-first.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the frozen server was not stopped")
	}
	if p := pids(t, starts); alive(p[0]) {
		t.Errorf("the frozen server %s is still running", p[0])
	}
	if env := call(t, r, "mcp--t--echo", `{}`, 10*time.Second); !env.Success {
		t.Errorf("after the server was stopped: %s", env.JSON())
	}
}

// A call made while a server whose call timed out is being checked waits
// for the check, and goes to the server started again, not to the hung
// one that the check stops.
func TestCallAfterHungServerTimedOut(t *testing.T) {
	quickPing(t)
	starts := filepath.Join(t.TempDir(), "starts")
	r := registryOf(t, start(t, map[string]config.MCPServer{"t": testServer("", starts)}))
	if env := call(t, r, "mcp--t--freeze", `{}`, 200*time.Millisecond); env.Code != execute.ToolTimeout {
		t.Fatalf("got %s", env.JSON())
	}
	env := call(t, r, "mcp--t--echo", `{"text":"next"}`, 10*time.Second)
	if !env.Success {
		t.Fatalf("the call after the timeout: %s", env.JSON())
	}
	if p := pids(t, starts); len(p) != 2 || !strings.Contains(string(env.Result), `"pid":`+p[1]) {
		t.Errorf("starts %v, result %s", p, env.Result)
	}
}

// quickPing makes the check of a server whose call timed out give up
// sooner, for the length of the test.
func quickPing(t *testing.T) {
	saved := pingTimeout
	pingTimeout = 300 * time.Millisecond
	t.Cleanup(func() { pingTimeout = saved })
}

// An answer too big even to read (past the 16 MiB a message may have) is
// OUTPUT_TOO_LARGE, as a result past 16 MiB is, not a crash; the server is
// started again for the next call.
func TestAnswerTooBigToRead(t *testing.T) {
	r := registryOf(t, start(t, map[string]config.MCPServer{"t": testServer("", "")}))
	env := call(t, r, "mcp--t--huge", `{}`, 30*time.Second)
	want := execute.Failed(execute.OutputTooLarge, "Tool 'mcp--t--huge' failed: MCP server 't' sent a message of more than 16 MiB")
	if diff := cmp.Diff(want, env); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if env := call(t, r, "mcp--t--echo", `{}`, 10*time.Second); !env.Success {
		t.Errorf("after the huge answer: %s", env.JSON())
	}
}

func TestCancel(t *testing.T) {
	r := registryOf(t, start(t, map[string]config.MCPServer{"t": testServer("", "")}))
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(100*time.Millisecond, cancel)
	env := r.Call(ctx, "mcp--t--hang", json.RawMessage(`{}`), time.Minute)
	if env.Code != execute.ToolCancelled || env.Error != "Tool 'mcp--t--hang' was cancelled" {
		t.Errorf("got %s", env.JSON())
	}
	if env := call(t, r, "mcp--t--echo", `{}`, 10*time.Second); !env.Success {
		t.Errorf("after the cancellation: %s", env.JSON())
	}
}

func TestGarbageOutput(t *testing.T) {
	starts := filepath.Join(t.TempDir(), "starts")
	r := registryOf(t, start(t, map[string]config.MCPServer{"t": testServer("", starts)}))
	env := call(t, r, "mcp--t--garbage", `{}`, 10*time.Second)
	if env.Code != execute.InvalidOutput || env.Error != "Tool 'mcp--t--garbage' failed: MCP server 't' printed something that is not JSON-RPC" {
		t.Errorf("got %s", env.JSON())
	}
	if p := pids(t, starts); alive(p[0]) {
		t.Errorf("the server %s is still running", p[0])
	}
	if env := call(t, r, "mcp--t--echo", `{}`, 10*time.Second); !env.Success {
		t.Errorf("after the garbage: %s", env.JSON())
	}
}

func TestStartFailures(t *testing.T) {
	hang := testServer("hang", filepath.Join(t.TempDir(), "starts"))
	hang.StartupTimeout = time.Second
	s := start(t, map[string]config.MCPServer{
		"hang":   hang,
		"exit":   testServer("exit", ""),
		"nosuch": {Command: "/nonexistent/server"},
		"ok":     testServer("", ""),
	})
	r := registryOf(t, s)
	var got []string
	for _, f := range r.Failed() {
		// The hung server says what it wrote on stderr, if it got that far.
		reason, _, _ := strings.Cut(f.Reason, ": test server starting")
		got = append(got, fmt.Sprintf("%s %s %s: %s", f.Name, f.Source, f.Path, reason))
	}
	want := []string{
		"mcp--exit mcp:exit " + os.Args[0] + ": server exited with exit code 1 while starting: bad configuration: no such repository",
		"mcp--hang mcp:hang " + os.Args[0] + ": server did not start within 1s",
		"mcp--nosuch mcp:nosuch /nonexistent/server: server cannot be started: fork/exec /nonexistent/server: no such file or directory",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("failed (-want +got):\n%s", diff)
	}
	if _, ok := r.Lookup("mcp--ok--echo"); !ok {
		t.Error("the working server's tools are missing")
	}
	if p := pids(t, hang.Env["IKIGAI_TEST_MCP_STARTS"]); alive(p[0]) {
		t.Errorf("the hung server %s is still running", p[0])
	}
	// A server that failed is tried again at the next listing.
	s.Tools(t.Context())
	if p := pids(t, hang.Env["IKIGAI_TEST_MCP_STARTS"]); len(p) != 2 {
		t.Errorf("the hung server was started %d times, want 2", len(p))
	}
}

// A call to a server that cannot start fails like a tool that cannot.
func TestCallStartFailure(t *testing.T) {
	cfg := testServer("", "")
	s := start(t, map[string]config.MCPServer{"t": cfg})
	r := registryOf(t, s)
	s.list[0].cfg = testServer("exit", "") // as if its configuration broke after the listing
	s.list[0].connect().end(false)
	env := call(t, r, "mcp--t--echo", `{}`, 10*time.Second)
	want := execute.Envelope{Error: "Tool 'mcp--t--echo' could not run: MCP server 't' exited with exit code 1 while starting", Code: execute.ToolCrashed,
		Stderr: "test server starting\nbad configuration: no such repository\n"}
	if diff := cmp.Diff(want, env); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestClose(t *testing.T) {
	starts := filepath.Join(t.TempDir(), "starts")
	hang := testServer("hang", starts+".hang")
	s := Start(map[string]config.MCPServer{"t": testServer("", starts), "hang": hang}, execute.Env{}, "", nil)
	s.list[1].connect().wait(t.Context()) // t is ready; hang is still starting
	for _, f := range []string{starts, starts + ".hang"} {
		for _, err := os.Stat(f); err != nil; _, err = os.Stat(f) {
			time.Sleep(10 * time.Millisecond)
		}
	}
	s.Close()
	for _, p := range append(pids(t, starts), pids(t, starts+".hang")...) {
		if alive(p) {
			t.Errorf("server %s is still running", p)
		}
	}
	tools, failed := s.Tools(t.Context())
	if len(tools) != 0 || len(failed) != 2 {
		t.Errorf("after Close: %v, %v", tools, failed)
	}
}

func TestHTTP(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "web", Version: "1"}, nil)
	type in struct {
		N int `json:"n"`
	}
	type out struct {
		Double int `json:"double"`
	}
	sdk.AddTool(srv, &sdk.Tool{Name: "double", Description: "Doubles n"}, func(_ context.Context, _ *sdk.CallToolRequest, i in) (*sdk.CallToolResult, out, error) {
		return nil, out{i.N * 2}, nil
	})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(ts.Close) // after the client's connection is closed
	r := registryOf(t, start(t, map[string]config.MCPServer{"web": {URL: ts.URL}}))
	tool, ok := r.Lookup("mcp--web--double")
	if !ok || tool.Path != ts.URL || tool.Source != "mcp:web" {
		t.Fatalf("got %v, %v (failed: %v)", tool.Entry, ok, r.Failed())
	}
	if env := call(t, r, "mcp--web--double", `{"n":21}`, 10*time.Second); string(env.JSON()) != `{"tool_success":true,"result":{"double":42}}` {
		t.Errorf("got %s", env.JSON())
	}
}

func TestSchemaOf(t *testing.T) {
	for _, schema := range []any{nil, map[string]any{"type": "string"}, []any{1}, map[string]any{"properties": map[string]any{}}} {
		if _, err := schemaOf(&sdk.Tool{Name: "x", InputSchema: schema}); err == nil || err.Error() != `inputSchema is not of "type": "object"` {
			t.Errorf("schema %v: got %v", schema, err)
		}
	}
}

// A server runs in a session of its own, with the agent's environment less
// the providers' variables and what Exclude names; its own env entries
// apply whatever is left out.
func TestServerProcess(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-planted")
	t.Setenv("OPENAI_API_KEY", "sk-planted")
	t.Setenv("MY_SECRET", "hunter2")
	t.Setenv("KEEP_ME", "kept")
	cfg := testServer("", "")
	cfg.Env["OPENAI_API_KEY"] = "the server's own"
	s := Start(map[string]config.MCPServer{"t": cfg}, execute.Env{Exclude: []string{"MY_*"}}, "", nil)
	t.Cleanup(s.Close)
	env := registryOf(t, s).Call(t.Context(), "mcp--t--process", json.RawMessage(`{}`), 10*time.Second)
	var out struct{ Output string }
	json.Unmarshal(env.Result, &out)
	ids, environ, _ := strings.Cut(out.Output, "\n")
	var pid, sid int
	fmt.Sscanf(ids, "pid=%d sid=%d", &pid, &sid)
	if pid == 0 || sid != pid {
		t.Errorf("the server is not a session leader: %q", ids)
	}
	vars := strings.Split(environ, "\n")
	for _, v := range []string{"KEEP_ME=kept", "OPENAI_API_KEY=the server's own", "TEST_VALUE=from the configuration"} {
		if !slices.Contains(vars, v) {
			t.Errorf("%s missing from the server's environment", v)
		}
	}
	for _, v := range []string{"ANTHROPIC_API_KEY=sk-ant-planted", "OPENAI_API_KEY=sk-planted", "MY_SECRET=hunter2"} {
		if slices.Contains(vars, v) {
			t.Errorf("%s reached the server", v)
		}
	}
}

// A result the SDK cannot decode (here an image's base64 without its
// padding) fails that call, and only that call: the server keeps running.
func TestCallUndecodable(t *testing.T) {
	r := registryOf(t, start(t, map[string]config.MCPServer{"t": testServer("raw", "")}))
	before := call(t, r, "mcp--t--pid", `{}`, 10*time.Second)
	env := call(t, r, "mcp--t--badimage", `{}`, 10*time.Second)
	if env.Success || env.Code != execute.InvalidOutput || !strings.Contains(env.Error, "not valid MCP") {
		t.Errorf("an undecodable result: %s", env.JSON())
	}
	if after := call(t, r, "mcp--t--pid", `{}`, 10*time.Second); string(after.Result) != string(before.Result) || !after.Success {
		t.Errorf("the server was started again: %s, then %s", before.JSON(), after.JSON())
	}
}

// Resources in a result: a short text resource in the text, a long one
// and a link named with the way to read them, which mcp_resource reads;
// an image past 5 MiB left out, saying so.
func TestResources(t *testing.T) {
	r := registryOf(t, start(t, map[string]config.MCPServer{"t": testServer("", "")}))
	call := func(name, args string) map[string]any {
		t.Helper()
		tool, ok := r.Lookup(name)
		if !ok {
			t.Fatalf("no tool %s", name)
		}
		env := tool.Runner.Run(t.Context(), json.RawMessage(args), 0)
		var res map[string]any
		if !env.Success || json.Unmarshal(env.Result, &res) != nil {
			t.Fatalf("%s: %+v", name, env)
		}
		return res
	}
	res := call("mcp--t--resources", `{}`)
	read := `read it with mcp_resource {"server":"t","uri":"test://big"}]`
	want := "see these\n[resource test://small]\nsmall text\n" +
		"[resource test://big (text/plain, 51200 bytes): " + read + "\n" +
		"[resource link test://big (big: a big file): " + read + "\n" +
		"[an image (image/png) of 6.0 MiB was left out: over 5 MiB]"
	if diff := cmp.Diff(want, res["output"]); diff != "" || res["images"] != nil || res["content"] != nil {
		t.Errorf("output (-want +got):\n%s\n%v", diff, res)
	}
	res = call(ResourceTool, `{"server":"t","uri":"test://big"}`)
	if out, _ := res["output"].(string); !strings.HasPrefix(out, "the whole yyy") || len(out) != len("the whole ")+50<<10 {
		t.Errorf("read: %.80v", res)
	}
	res = call(ResourceTool, `{"server":"t","uri":"test://none"}`)
	if res["error_code"] != "RESOURCE_UNREADABLE" {
		t.Errorf("missing resource: %v", res)
	}
}

// A banner on stdout before the first message is skipped, with a
// warning, not taken for a broken server.
func TestBanner(t *testing.T) {
	var logged strings.Builder
	var mu sync.Mutex
	logger := slog.New(slog.NewTextHandler(lockedWriter{&mu, &logged}, nil))
	s := Start(map[string]config.MCPServer{"t": testServer("banner", "")}, execute.Env{}, "", logger)
	t.Cleanup(s.Close)
	r := registryOf(t, s)
	tool, ok := r.Lookup("mcp--t--env")
	if !ok {
		t.Fatalf("no tool; failed %v", r.Failed())
	}
	if env := tool.Runner.Run(t.Context(), json.RawMessage(`{}`), 0); !env.Success {
		t.Errorf("call: %+v", env)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, line := range []string{`"Test MCP server v1.0 listening on stdio"`, "ready"} {
		if !strings.Contains(logged.String(), `level=WARN msg="mcp server printed a line that is not JSON-RPC before its first message; skipped" mcp_server=t line=`+line+"\n") {
			t.Errorf("no warning of %q in\n%s", line, logged.String())
		}
	}
}

// A server whose tools change says so; the change is flagged once, and
// the next listing has the new tool.
func TestToolsChanged(t *testing.T) {
	s := start(t, map[string]config.MCPServer{"t": testServer("", "")})
	r := registryOf(t, s)
	if s.Changed() {
		t.Errorf("changed before any change")
	}
	grow, _ := r.Lookup("mcp--t--grow")
	if env := grow.Runner.Run(t.Context(), json.RawMessage(`{}`), 0); !env.Success {
		t.Fatalf("grow: %+v", env)
	}
	for deadline := time.Now().Add(time.Minute); !s.Changed(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("never flagged")
		}
	}
	if s.Changed() {
		t.Errorf("flagged twice")
	}
	if _, ok := registryOf(t, s).Lookup("mcp--t--grown"); !ok {
		t.Errorf("the new tool is not listed")
	}
}

// A call sends a progress token; the server's progress reaches the
// report the call's context carries.
func TestProgress(t *testing.T) {
	r := registryOf(t, start(t, map[string]config.MCPServer{"t": testServer("", "")}))
	slow, _ := r.Lookup("mcp--t--slow")
	var mu sync.Mutex
	var got []string
	ctx, cancel := context.WithCancel(t.Context())
	ctx = execute.WithProgress(ctx, func(msg string) {
		mu.Lock()
		got = append(got, msg)
		mu.Unlock()
	})
	done := make(chan execute.Envelope)
	go func() { done <- slow.Runner.Run(ctx, json.RawMessage(`{}`), 0) }()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n == 2 {
			break
		}
	}
	cancel()
	<-done
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff([]string{"1/2 steps done", "2/2 steps done"}, got); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
}
