package discovery

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ikigai-tools/ikigai/internal/registry"
)

// write creates a file under dir with the given mode, and its directory.
func write(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

// toolScript is a tool that prints a valid schema naming itself.
func toolScript(name string) string {
	return "#!/bin/sh\necho '{\"name\":\"" + name + "\",\"description\":\"" + name + " tool\"}'\n"
}

func TestScan(t *testing.T) {
	root := t.TempDir()
	d := Dirs{
		System:       filepath.Join(root, "system"),
		User:         filepath.Join(root, "user"),
		Project:      filepath.Join(root, "project"),
		TrustProject: true,
		// Not what this test is about: room for a busy machine.
		SchemaTimeout: 10 * time.Second,
	}
	write(t, filepath.Join(d.System, "bash-tool"), toolScript("bash"), 0o755)
	write(t, filepath.Join(d.System, "file-read-tool"), toolScript("file_read"), 0o755)
	write(t, filepath.Join(d.System, "README"), "not a tool", 0o644)
	write(t, filepath.Join(d.System, "-tool"), toolScript(""), 0o755)
	write(t, filepath.Join(d.User, "bash-tool"), toolScript("bash"), 0o755)
	write(t, filepath.Join(d.User, "file_read-tool"), toolScript("file_read"), 0o755)
	write(t, filepath.Join(d.User, "file-read-tool"), toolScript("file_read"), 0o755)
	write(t, filepath.Join(d.User, "plain-tool"), toolScript("plain"), 0o644)
	write(t, filepath.Join(d.User, "bad.name-tool"), toolScript("bad"), 0o755)
	write(t, filepath.Join(d.User, "crash-tool"), "#!/bin/sh\necho oops >&2\nexit 3\n", 0o755)
	write(t, filepath.Join(d.User, "sub-tool", "x"), "", 0o644)
	write(t, filepath.Join(d.Project, "bash-tool"), toolScript("bash"), 0o755)
	if err := os.Symlink(filepath.Join(d.System, "bash-tool"), filepath.Join(d.Project, "link-tool")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "nowhere"), filepath.Join(d.Project, "broken-tool")); err != nil {
		t.Fatal(err)
	}

	r := Scan(context.Background(), d)
	type row struct {
		Name, Source, Path string
		Shadows            []registry.Entry
		Warnings           []string
	}
	var got []row
	for _, tl := range r.Tools() {
		got = append(got, row{tl.Name, string(tl.Source), tl.Path, tl.Shadows, tl.Warnings})
	}
	want := []row{
		{"bash", "project", filepath.Join(d.Project, "bash-tool"), []registry.Entry{
			{Name: "bash", Source: registry.User, Path: filepath.Join(d.User, "bash-tool")},
			{Name: "bash", Source: registry.System, Path: filepath.Join(d.System, "bash-tool")},
		}, nil},
		{"file_read", "user", filepath.Join(d.User, "file-read-tool"), []registry.Entry{
			{Name: "file_read", Source: registry.System, Path: filepath.Join(d.System, "file-read-tool")},
		}, nil},
		{"link", "project", filepath.Join(d.Project, "link-tool"), nil,
			[]string{`schema "name" is "bash" but the file name makes the tool "link"`}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}

	var failed []string
	for _, f := range r.Failed() {
		rel, _ := filepath.Rel(root, f.Path)
		failed = append(failed, f.Name+" "+rel+": "+f.Reason)
	}
	wantFailed := []string{
		`bad.name user/bad.name-tool: invalid name "bad.name": models accept only letters, digits and underscores, at most 64`,
		"broken project/broken-tool: broken symlink",
		"crash user/crash-tool: exit code 3: oops",
		"file_read user/file_read-tool: same tool name as file-read-tool",
		"plain user/plain-tool: not executable",
	}
	if diff := cmp.Diff(wantFailed, failed); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
}

// fixedSource offers the same tools and failures every time.
type fixedSource struct {
	tools  []registry.Tool
	failed []registry.Failure
}

func (f fixedSource) Tools(context.Context) ([]registry.Tool, []registry.Failure) {
	return f.tools, f.failed
}

func TestScanMore(t *testing.T) {
	root := t.TempDir()
	d := Dirs{System: filepath.Join(root, "system"), SchemaTimeout: 10 * time.Second}
	write(t, filepath.Join(d.System, "bash-tool"), toolScript("bash"), 0o755)
	mcp := fixedSource{
		tools:  []registry.Tool{{Entry: registry.Entry{Name: "mcp--s--x", Source: "mcp:s", Path: "s-server"}}},
		failed: []registry.Failure{{Entry: registry.Entry{Name: "mcp--t", Source: "mcp:t", Path: "t-server"}, Reason: "server did not start"}},
	}
	other := fixedSource{tools: []registry.Tool{{Entry: registry.Entry{Name: "bash", Source: "other", Path: "elsewhere"}}}}
	r := Scan(context.Background(), d, mcp, other)
	var names []string
	for _, tl := range r.Tools() {
		names = append(names, tl.Name+" "+string(tl.Source))
	}
	if diff := cmp.Diff([]string{"bash system", "mcp--s--x mcp:s"}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if bash, _ := r.Lookup("bash"); len(bash.Shadows) != 1 || bash.Shadows[0].Source != "other" {
		t.Errorf("bash shadows %v, want the other source's", bash.Shadows)
	}
	if diff := cmp.Diff(mcp.failed, r.Failed()); diff != "" {
		t.Errorf("failed (-want +got):\n%s", diff)
	}
}

func TestScanUntrusted(t *testing.T) {
	root := t.TempDir()
	ran := filepath.Join(root, "ran")
	d := Dirs{User: filepath.Join(root, "user"), Project: filepath.Join(root, "project")}
	write(t, filepath.Join(d.Project, "evil-tool"), "#!/bin/sh\ntouch "+ran+"\n", 0o755)
	write(t, filepath.Join(d.Project, "grep-tool"), "#!/bin/sh\ntouch "+ran+"\n", 0o755)
	write(t, filepath.Join(d.User, "grep-tool"), toolScript("grep"), 0o755)

	r := Scan(context.Background(), d)
	if _, err := os.Stat(ran); err == nil {
		t.Fatal("an untrusted project tool was run")
	}
	want := []registry.Entry{
		{Name: "evil", Source: registry.Project, Path: filepath.Join(d.Project, "evil-tool")},
		{Name: "grep", Source: registry.Project, Path: filepath.Join(d.Project, "grep-tool")},
	}
	if diff := cmp.Diff(want, r.Untrusted()); diff != "" {
		t.Errorf("untrusted (-want +got):\n%s", diff)
	}
	if tl, ok := r.Lookup("grep"); !ok || tl.Source != registry.User || tl.Shadows != nil {
		t.Errorf("grep = %+v, want the user's, shadowing nothing", tl.Entry)
	}
	if _, ok := Locate(d, "evil"); ok {
		t.Error("Locate found an untrusted project tool")
	}
}

func TestLocate(t *testing.T) {
	root := t.TempDir()
	d := Dirs{System: filepath.Join(root, "s"), User: filepath.Join(root, "u"), Project: filepath.Join(root, "p"), TrustProject: true}
	write(t, filepath.Join(d.System, "file-read-tool"), "", 0o755)
	write(t, filepath.Join(d.User, "file-read-tool"), "", 0o644) // not executable: not a candidate
	write(t, filepath.Join(d.Project, "grep-tool"), "", 0o755)
	for name, want := range map[string]string{
		"file_read": filepath.Join(d.System, "file-read-tool"),
		"grep":      filepath.Join(d.Project, "grep-tool"),
		"file-read": "",
		"glob":      "",
	} {
		e, ok := Locate(d, name)
		if e.Path != want || ok != (want != "") {
			t.Errorf("Locate(%q) = %q, %v; want %q", name, e.Path, ok, want)
		}
	}
	if diff := cmp.Diff([]string{"file_read", "grep"}, Names(d)); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
}

func TestSystemDir(t *testing.T) {
	if got := SystemDir("/opt/tools"); got != "/opt/tools" {
		t.Errorf("SystemDir with an override = %q", got)
	}
	// The test binary has no ../libexec/ikigai beside it.
	if got, want := SystemDir(""), "/usr/local/libexec/ikigai"; got != want {
		t.Errorf("SystemDir() = %q, want the configured %q", got, want)
	}
}
