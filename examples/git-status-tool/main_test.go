package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ikigai-tools/ikigai/toolsdk/tooltest"
)

// repo makes an empty git repository in a temporary directory.
func repo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	for k, v := range map[string]string{
		"GIT_CONFIG_GLOBAL": "/dev/null",
		"GIT_AUTHOR_NAME":   "T", "GIT_AUTHOR_EMAIL": "t@example.com",
		"GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.com",
	} {
		t.Setenv(k, v)
	}
	gitIn(t, dir, "init", "-q", "-b", "main")
	return dir
}

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func gitStatus(t *testing.T, dir string) status {
	t.Helper()
	var s status
	tooltest.Call(t, tool, `{"path":"`+dir+`"}`).Decode(t, &s)
	s.Commit = "" // differs every run
	return s
}

func TestEmptyRepository(t *testing.T) {
	dir := repo(t)
	want := status{Branch: "main", Clean: true, Files: []file{}}
	if got := gitStatus(t, dir); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestChanges(t *testing.T) {
	dir := repo(t)
	write(t, dir, "keep.txt", "1")
	write(t, dir, "old name.txt", "rename me\n")
	write(t, dir, "gone.txt", "x")
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "-qm", "first")
	write(t, dir, "keep.txt", "2")
	gitIn(t, dir, "mv", "old name.txt", "new name.txt")
	gitIn(t, dir, "rm", "-q", "gone.txt")
	write(t, dir, "staged.txt", "s")
	gitIn(t, dir, "add", "staged.txt")
	write(t, dir, "staged.txt", "s2")
	write(t, dir, "fresh.txt", "f")

	want := status{Branch: "main", Count: 5, Files: []file{
		{Path: "gone.txt", Staged: "deleted"},
		{Path: "keep.txt", Unstaged: "modified"},
		{Path: "new name.txt", From: "old name.txt", Staged: "renamed"},
		{Path: "staged.txt", Staged: "added", Unstaged: "modified"},
		{Path: "fresh.txt", Unstaged: "untracked"},
	}}
	if got := gitStatus(t, dir); !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestAheadOfUpstream(t *testing.T) {
	upstream := repo(t)
	write(t, upstream, "a", "a")
	gitIn(t, upstream, "add", "a")
	gitIn(t, upstream, "commit", "-qm", "a")
	dir := t.TempDir()
	gitIn(t, dir, "clone", "-q", upstream, "clone")
	clone := filepath.Join(dir, "clone")
	gitIn(t, clone, "commit", "-q", "--allow-empty", "-m", "local")

	got := gitStatus(t, clone)
	if got.Branch != "main" || got.Upstream != "origin/main" || got.Ahead != 1 || got.Behind != 0 || !got.Clean {
		t.Errorf("got %+v, want main tracking origin/main, 1 ahead, clean", got)
	}
}

func TestNotARepository(t *testing.T) {
	dir := t.TempDir()
	res := tooltest.Call(t, tool, `{"path":"`+dir+`"}`)
	want := `{"error":"Error: reading repository '` + dir + `': not a git repository","error_code":"NOT_A_REPOSITORY"}` + "\n"
	if res.ExitCode != 0 || res.Stdout != want {
		t.Errorf("got %+v, want stdout %q", res, want)
	}
}

func TestInvalidPath(t *testing.T) {
	res := tooltest.Call(t, tool, `{"path":"../elsewhere"}`)
	want := `{"error":"Error: reading repository '../elsewhere': path contains a '..' component","error_code":"INVALID_PATH"}` + "\n"
	if res.Stdout != want {
		t.Errorf("got %q, want %q", res.Stdout, want)
	}
}

func TestSchema(t *testing.T) {
	if s := tooltest.Schema(t, tool); !strings.Contains(s, `"readOnlyHint": true`) {
		t.Errorf("schema lacks the read-only annotation:\n%s", s)
	}
}
