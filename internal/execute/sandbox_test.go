package execute

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ikigai-tools/ikigai/internal/sandbox"
)

// writer is a tool that writes the file named by its path argument and
// reports PERMISSION_DENIED as a core tool does, with where its TMPDIR was.
const writer = `
path=$(sed 's/.*"path":"\([^"]*\)".*/\1/')
echo "$TMPDIR" > "$RECORD"
if echo x 2>/dev/null > "$path"; then
	echo '{"output":"wrote"}'
else
	echo '{"error":"Error: writing file: Permission denied","error_code":"PERMISSION_DENIED"}'
fi`

func TestRunSandboxed(t *testing.T) {
	if s := sandbox.Detect(); s.ABI == 0 {
		t.Skipf("no Landlock: %s", s.Missing)
	}
	workspace, outside, records := t.TempDir(), t.TempDir(), t.TempDir()
	tool := script(t, writer)
	// The tool records its TMPDIR where it may write.
	box := &sandbox.Confinement{Mode: sandbox.WorkspaceWrite, Write: []string{workspace, records}, Network: true}
	note := &SandboxNote{Mode: sandbox.WorkspaceWrite, Writable: []string{workspace, records, "$TMPDIR"}, Network: "on", Note: sandboxAdvice}
	for i, tc := range []struct {
		name    string
		sandbox *sandbox.Confinement
		path    string
		want    Envelope
	}{
		{name: "inside", sandbox: box, path: filepath.Join(workspace, "a"),
			want: Envelope{Success: true, Result: json.RawMessage(`{"output":"wrote"}`)}},
		{name: "outside", sandbox: box, path: filepath.Join(outside, "a"),
			want: Envelope{Success: true, Result: json.RawMessage(`{"error":"Error: writing file: Permission denied","error_code":"PERMISSION_DENIED"}`), Sandbox: note}},
		{name: "outside, unconfined", path: filepath.Join(outside, "b"),
			want: Envelope{Success: true, Result: json.RawMessage(`{"output":"wrote"}`)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			record := filepath.Join(records, strings.Repeat("r", i+1))
			t.Setenv("RECORD", record)
			args, _ := json.Marshal(map[string]string{"path": tc.path})
			got := Program{Name: "t", Path: tool, Sandbox: tc.sandbox}.Run(context.Background(), args, 10*time.Second)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("envelope (-want +got):\n%s", diff)
			}
			// A confined run had a temporary directory of its own, gone now.
			tmp, err := os.ReadFile(record)
			if err != nil {
				t.Fatalf("the tool did not run: %v", err)
			}
			dir := strings.TrimSpace(string(tmp))
			if tc.sandbox != nil {
				if !strings.Contains(filepath.Base(dir), "ikigai-t-") {
					t.Errorf("TMPDIR is %q, want a directory of ikigai's", dir)
				}
				if _, err := os.Stat(dir); !os.IsNotExist(err) {
					t.Errorf("%s is still there (%v)", dir, err)
				}
			}
		})
	}
}

func TestRunSandboxRefused(t *testing.T) {
	tool := script(t, `echo '{}'`)
	p := Program{Name: "t", Path: tool, Sandbox: &sandbox.Confinement{Mode: sandbox.ReadOnly, Refused: "Landlock is not available (x) and sandbox_fallback is require"}}
	got := p.Run(context.Background(), json.RawMessage(`{}`), time.Second).JSON()
	want := `{"tool_success":false,"error":"Tool 't' was not run: the sandbox could not be applied: Landlock is not available (x) and sandbox_fallback is require","error_code":"SANDBOX_FAILED"}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestNoted(t *testing.T) {
	box := &sandbox.Confinement{Mode: sandbox.ReadOnly}
	for _, tc := range []struct {
		env  Envelope
		note bool
	}{
		{env: Succeeded(json.RawMessage(`{"output":"x"}`))},
		{env: Succeeded(json.RawMessage(`{"output":"x","exit_code":0}`))},
		{env: Succeeded(json.RawMessage(`[1]`))},
		{env: Succeeded(json.RawMessage(`{"output":"x","exit_code":1}`)), note: true},
		{env: Succeeded(json.RawMessage(`{"error":"e","error_code":"PERMISSION_DENIED"}`)), note: true},
		{env: Failed(ToolCrashed, "crashed"), note: true},
		{env: Failed(ToolTimeout, "timed out"), note: true},
		{env: Failed(InvalidParams, "bad")},
		{env: NotFound("t")},
	} {
		got := Program{Name: "t", Sandbox: box}.noted(tc.env)
		if (got.Sandbox != nil) != tc.note {
			t.Errorf("%s: noted %v, want %v", tc.env.JSON(), got.Sandbox != nil, tc.note)
		}
		if got := (Program{Name: "t"}).noted(tc.env); got.Sandbox != nil {
			t.Errorf("%s: an unconfined call is noted", tc.env.JSON())
		}
	}
	got := Program{Name: "t", Sandbox: box}.noted(Failed(ToolCrashed, "crashed")).JSON()
	want := `{"tool_success":false,"error":"crashed","error_code":"TOOL_CRASHED","sandbox":{"mode":"read-only","writable":["$TMPDIR"],"network":"off","note":"` + sandboxAdvice + `"}}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}
