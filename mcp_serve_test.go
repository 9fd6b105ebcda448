package ikigai_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fakeKey is planted in the environment of ikigai mcp serve and printed
// by a tool; it must never reach the log.
const fakeKey = "sk-ant-api03-PLANTEDFAKEKEY0123456789abcdef"

// serveTools are the user's tools the server offers besides the core ones.
var serveTools = map[string]string{
	// Keys out of alphabetical order, HTML characters and non-ASCII: the
	// schema must reach the client byte for byte.
	"greet": `#!/bin/sh
if [ "$1" = --schema ]; then cat <<'EOF'
{"name": "greet", "description": "Greets <someone> & says «hello»",
 "parameters": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string", "description": "who <b>"}}},
 "annotations": {"readOnlyHint": true, "openWorldHint": false}}
EOF
exit; fi
echo '{"greeting":"hello","to":"<b>"}'
`,
	"fail": `#!/bin/sh
[ "$1" = --schema ] && { echo '{"name":"fail","description":"Fails"}'; exit; }
echo "{\"error\":\"Error: the API refused key $IKIGAI_FAKE_API_KEY\",\"error_code\":\"AUTH_FAILED\"}"
`,
	"crash": `#!/bin/sh
[ "$1" = --schema ] && { echo '{"name":"crash","description":"Crashes"}'; exit; }
echo "Authorization: Bearer $IKIGAI_FAKE_API_KEY" >&2
exit 3
`,
	"slow": `#!/bin/sh
[ "$1" = --schema ] && { echo '{"name":"slow","description":"Too slow"}'; exit; }
exec sleep 30
`,
	"wait": `#!/bin/sh
[ "$1" = --schema ] && { echo '{"name":"wait","description":"Waits to be cancelled"}'; exit; }
echo $$ > "$HOME/wait.pid"
exec sleep 30
`,
}

// lockedBuffer collects what the SDK's logging transport writes.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// A client from the official SDK drives ikigai mcp serve: the list with
// its schemas byte for byte, a call, an operation error, a failure, a
// timeout, a cancellation, a refresh; the log gets one line per call and
// no secret.
func TestMCPServe(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	tools := filepath.Join(home, ".ikigai", "tools")
	os.MkdirAll(tools, 0o755)
	for name, script := range serveTools {
		if err := os.WriteFile(filepath.Join(tools, name+"-tool"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(home, ".ikigai", "config.json"), []byte(`{"tools": {"slow": {"timeout_seconds": 0.5}}}`), 0o644)
	libexec := filepath.Join(layout, "libexec", "ikigai")

	cmd := exec.Command(filepath.Join(layout, "bin", "ikigai"), "mcp", "serve")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_STATE_HOME=", "IKIGAI_LIBEXEC_DIR="+libexec,
		"IKIGAI_SYSTEM_CONFIG=/nonexistent", "IKIGAI_SCHEMA_TIMEOUT_SECONDS=10", "IKIGAI_FAKE_API_KEY="+fakeKey)
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	wire := &lockedBuffer{}
	changed := make(chan struct{}, 1)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	ctx := t.Context()
	session, err := client.Connect(ctx, &mcp.LoggingTransport{Transport: &mcp.CommandTransport{Command: cmd}, Writer: wire}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()

	// The list: every tool, with its parameters as --schema printed them.
	list, err := session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	want := []string{"agent", "bash", "crash", "fail", "file_edit", "file_read", "file_write", "glob", "greet", "grep", "job", "skill", "slow", "tool_search", "wait", "web_fetch", "web_search"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Fatalf("tools (-want +got):\n%s", diff)
	}
	raw := rawTools(t, wire.String())
	for _, name := range names {
		path := filepath.Join(tools, name+"-tool")
		if _, err := os.Stat(path); err != nil {
			path = filepath.Join(libexec, strings.ReplaceAll(name, "_", "-")+"-tool")
		}
		out, err := exec.Command(path, "--schema").Output()
		if err != nil {
			t.Fatal(err)
		}
		var schema struct {
			Parameters json.RawMessage `json:"parameters"`
		}
		json.Unmarshal(out, &schema)
		var compact bytes.Buffer
		json.Compact(&compact, schema.Parameters)
		if schema.Parameters == nil {
			compact.WriteString(`{"type":"object","properties":{}}`)
		}
		if got := string(raw[name]); got != compact.String() {
			t.Errorf("%s: inputSchema\n got %s\nwant %s", name, got, compact.String())
		}
	}
	greet := list.Tools[slices.Index(names, "greet")]
	if a := greet.Annotations; a == nil || !a.ReadOnlyHint || a.OpenWorldHint == nil || *a.OpenWorldHint || greet.Description != "Greets <someone> & says «hello»" {
		t.Errorf("greet: %+v, annotations %+v", greet, greet.Annotations)
	}

	call := func(ctx context.Context, name string) *mcp.CallToolResult {
		t.Helper()
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{"name": "x"}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}
	text := func(res *mcp.CallToolResult) string { return res.Content[0].(*mcp.TextContent).Text }
	codeOf := func(res *mcp.CallToolResult) any { return res.StructuredContent.(map[string]any)["error_code"] }

	res := call(ctx, "greet")
	if text(res) != `{"greeting":"hello","to":"<b>"}` || res.IsError || res.StructuredContent.(map[string]any)["to"] != "<b>" {
		t.Errorf("greet: %s, %v, %v", text(res), res.IsError, res.StructuredContent)
	}
	res = call(ctx, "fail")
	if text(res) != `{"error":"Error: the API refused key `+fakeKey+`","error_code":"AUTH_FAILED"}` || !res.IsError || codeOf(res) != "AUTH_FAILED" {
		t.Errorf("fail: %s, %v", text(res), res.IsError)
	}
	res = call(ctx, "crash")
	if text(res) != `{"tool_success":false,"error":"Tool 'crash' crashed with exit code 3","error_code":"TOOL_CRASHED","exit_code":3,"stderr":"Authorization: Bearer `+fakeKey+`\n"}` ||
		!res.IsError || codeOf(res) != "TOOL_CRASHED" {
		t.Errorf("crash: %s, %v", text(res), res.IsError)
	}
	res = call(ctx, "slow")
	if text(res) != `{"tool_success":false,"error":"Tool 'slow' timed out after 500ms","error_code":"TOOL_TIMEOUT"}` || !res.IsError {
		t.Errorf("slow: %s, %v", text(res), res.IsError)
	}

	// Arguments the tool rejects: an isError result saying which one.
	res, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "file_read", Arguments: map[string]any{"path": "x"}})
	if err != nil || text(res) != `{"tool_success":false,"error":"file-read-tool: missing or invalid file_path field","error_code":"INVALID_PARAMS"}` || !res.IsError {
		t.Errorf("file_read without file_path: %v, %v", err, res)
	}

	// Cancelling the call stops the tool.
	pidFile := filepath.Join(home, "wait.pid")
	cancelCtx, cancel := context.WithCancel(ctx)
	go func() {
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(pidFile); err == nil {
				break
			}
		}
		cancel()
	}()
	if _, err := session.CallTool(cancelCtx, &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{}}); err == nil {
		t.Error("the cancelled call returned no error")
	}
	data, _ := os.ReadFile(pidFile)
	var pid int
	fmt.Sscan(string(data), &pid)
	for deadline := time.Now().Add(10 * time.Second); pid > 0 && syscall.Kill(pid, 0) == nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the cancelled tool %d is still running", pid)
		}
	}

	if _, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "nosuch"}); err == nil {
		t.Error("a call to a tool that does not exist succeeded")
	}

	// SIGHUP finds the tools again and tells the client.
	os.WriteFile(filepath.Join(tools, "new-tool"), []byte("#!/bin/sh\necho '{\"name\":\"new\",\"description\":\"New\"}'\n"), 0o755)
	os.Remove(filepath.Join(tools, "slow-tool"))
	cmd.Process.Signal(syscall.SIGHUP)
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no list_changed notification after SIGHUP")
	}
	list, err = session.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	names = names[:0]
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	if !slices.Contains(names, "new") || slices.Contains(names, "slow") {
		t.Errorf("after SIGHUP: %v", names)
	}

	// Closing waits for the server to exit, which waits for its calls.
	if err := session.Close(); err != nil || !cmd.ProcessState.Success() {
		t.Errorf("ikigai mcp serve: %v, %v\n%s", err, cmd.ProcessState, stderr.String())
	}

	// One line per call, none with the key.
	logFile := filepath.Join(home, ".local", "state", "ikigai", "ikigai.log")
	log, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(log, []byte(fakeKey)) || bytes.Contains(log, []byte(fakeKey[10:30])) {
		t.Errorf("the key reached the log:\n%s", log)
	}
	var calls []string
	sc := bufio.NewScanner(bytes.NewReader(log))
	for sc.Scan() {
		var line struct{ Msg, Tool, Source, Outcome, Error_code string }
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		if line.Msg == "tool call" {
			calls = append(calls, strings.Join([]string{line.Tool, line.Source, line.Outcome, line.Error_code}, " "))
		}
	}
	wantCalls := []string{
		"greet user ok ", "fail user error AUTH_FAILED", "crash user failed TOOL_CRASHED",
		"slow user failed TOOL_TIMEOUT", "file_read system failed INVALID_PARAMS", "wait user failed TOOL_CANCELLED",
	}
	if diff := cmp.Diff(wantCalls, calls); diff != "" {
		t.Errorf("log (-want +got):\n%s\n%s", diff, log)
	}
}

// rawTools returns each tool's inputSchema as the server sent it, from
// the messages the logging transport read.
func rawTools(t *testing.T, wire string) map[string]json.RawMessage {
	t.Helper()
	for line := range strings.Lines(wire) {
		msg, ok := strings.CutPrefix(line, "read: ")
		if !ok {
			continue
		}
		var resp struct {
			Result struct {
				Tools []struct {
					Name        string          `json:"name"`
					InputSchema json.RawMessage `json:"inputSchema"`
				} `json:"tools"`
			} `json:"result"`
		}
		if json.Unmarshal([]byte(msg), &resp) != nil || resp.Result.Tools == nil {
			continue
		}
		m := map[string]json.RawMessage{}
		for _, tool := range resp.Result.Tools {
			m[tool.Name] = tool.InputSchema
		}
		return m
	}
	t.Fatalf("no tools/list response in:\n%s", wire)
	return nil
}

// ikigai mcp serve answers a malformed line with JSON-RPC's error and
// carries on serving, as a real process, until the client closes stdin.
func TestMCPServeMalformedLines(t *testing.T) {
	root := t.TempDir()
	cmd := exec.Command(filepath.Join(layout, "bin", "ikigai"), "mcp", "serve")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "HOME="+filepath.Join(root, "home"), "XDG_STATE_HOME=", "IKIGAI_LIBEXEC_DIR="+filepath.Join(layout, "libexec", "ikigai"),
		"IKIGAI_SYSTEM_CONFIG=/nonexistent", "IKIGAI_SCHEMA_TIMEOUT_SECONDS=10")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewReader(stdout)
	exchange := func(send string) string {
		t.Helper()
		if _, err := io.WriteString(stdin, send+"\n"); err != nil {
			t.Fatalf("ikigai mcp serve stopped reading: %v", err)
		}
		got, err := lines.ReadString('\n')
		if err != nil {
			t.Fatalf("no answer to %s: %v", send, err)
		}
		return strings.TrimSuffix(got, "\n")
	}
	if got := exchange(`this is not json`); got != `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the message is not JSON"}}` {
		t.Errorf("not JSON: %s", got)
	}
	if got := exchange(`{"foo":1}`); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,`) {
		t.Errorf("not JSON-RPC: %s", got)
	}
	if got := exchange(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":1,"result":{`) {
		t.Errorf("initialize: %s", got)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	if got := exchange(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`); !strings.Contains(got, `"name":"bash"`) {
		t.Errorf("tools/list: %.200s", got)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("ikigai mcp serve: %v", err)
	}
}
