package checkpoint_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ikigai-tools/ikigai/internal/checkpoint"
)

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// files returns the workspace's files and their contents, .git left out.
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			data, _ := os.ReadFile(path)
			rel, _ := filepath.Rel(dir, path)
			got[rel] = string(data)
		}
		return nil
	})
	return got
}

// A snapshot, changes of every kind, and a restore that undoes them all
// but leaves ignored files alone; the user's own repository sees nothing.
func TestSnapshotRestore(t *testing.T) {
	ctx := context.Background()
	work := t.TempDir()
	if out, err := exec.Command("git", "-C", work, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	write(t, work, ".gitignore", "*.log\n")
	write(t, work, "a.txt", "one\n")
	write(t, work, "sub/b.txt", "two\n")
	write(t, work, "build.log", "old log\n")
	repo, err := checkpoint.Open(ctx, filepath.Join(t.TempDir(), "state", "w.git"), work, "s1", 0)
	if err != nil {
		t.Fatal(err)
	}
	first, err := repo.Snapshot(ctx, "turn 1")
	if err != nil {
		t.Fatal(err)
	}
	before := files(t, work)

	write(t, work, "a.txt", "ONE\n")
	os.RemoveAll(filepath.Join(work, "sub"))
	write(t, work, "new/c.txt", "three\n")
	write(t, work, "build.log", "new log\n")
	second, err := repo.Snapshot(ctx, "turn 1 end")
	if err != nil {
		t.Fatal(err)
	}
	changed, err := repo.Changed(ctx, first, second)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"a.txt", "new/c.txt", "sub/b.txt"}, changed); d != "" {
		t.Errorf("changed (-want +got):\n%s", d)
	}
	diff, err := repo.Diff(ctx, first, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"-one\n+ONE\n", "+++ b/new/c.txt", "--- a/sub/b.txt"} {
		if !strings.Contains(diff, want) {
			t.Errorf("the diff lacks %q:\n%s", want, diff)
		}
	}
	if strings.Contains(diff, "build.log") {
		t.Errorf("the diff shows an ignored file:\n%s", diff)
	}

	undo, err := repo.Restore(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	want := before
	want["build.log"] = "new log\n" // ignored: left as it is
	if d := cmp.Diff(want, files(t, work)); d != "" {
		t.Errorf("after the restore (-want +got):\n%s", d)
	}
	// The restore can be undone.
	if _, err := repo.Restore(ctx, undo); err != nil {
		t.Fatal(err)
	}
	if got := files(t, work); got["a.txt"] != "ONE\n" || got["new/c.txt"] != "three\n" {
		t.Errorf("after undoing the restore: %v", got)
	}
	// The user's repository knows nothing of it.
	out, _ := exec.Command("git", "-C", work, "status", "--porcelain", "--ignored").Output()
	if !strings.Contains(string(out), "?? a.txt") || strings.Contains(string(out), "checkpoint") {
		t.Errorf("git status of the workspace:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(work, ".git", "refs", "heads", "checkpoints")); err == nil {
		t.Error("the snapshots went into the user's repository")
	}
}

// Files over the cap are not snapshotted.
func TestTooLarge(t *testing.T) {
	ctx := context.Background()
	work := t.TempDir()
	write(t, work, "big.bin", strings.Repeat("x", 2_000_000))
	write(t, work, "big.log", strings.Repeat("x", 2_000_000))
	write(t, work, ".gitignore", "*.log\n")
	repo, err := checkpoint.Open(ctx, filepath.Join(t.TempDir(), "w.git"), work, "s1", 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	_, err = repo.Snapshot(ctx, "x")
	var tooLarge *checkpoint.TooLargeError
	if !errors.As(err, &tooLarge) || tooLarge.Error() != "the files here come to 3 MB, over checkpoint_max_mb (1)" {
		t.Errorf("got %v, want a TooLargeError", err)
	}
	os.Remove(filepath.Join(work, "big.bin"))
	if _, err := repo.Snapshot(ctx, "x"); err != nil {
		t.Errorf("under the cap, ignored files aside: %v", err)
	}
}

// A repository that cannot be made is not left behind.
func TestOpenFails(t *testing.T) {
	parent := filepath.Join(t.TempDir(), "state")
	os.MkdirAll(parent, 0o755)
	dir := filepath.Join(parent, "w.git")
	// A file where git wants a directory: init fails part way.
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "objects"), nil, 0o644)
	if _, err := checkpoint.Open(context.Background(), dir, t.TempDir(), "s1", 0); err == nil {
		t.Fatal("Open succeeded")
	}
	// It was there before: left as it was.
	if _, err := os.Stat(filepath.Join(dir, "objects")); err != nil {
		t.Errorf("a directory Open did not make was removed: %v", err)
	}
	other := filepath.Join(parent, "blocked", "w.git")
	os.WriteFile(filepath.Join(parent, "blocked"), nil, 0o644)
	if _, err := checkpoint.Open(context.Background(), other, t.TempDir(), "s1", 0); err == nil {
		t.Fatal("Open succeeded under a file")
	}
}

// Two sessions of a workspace share its shadow repository, each with its
// own snapshots; forgetting one keeps the other's.
func TestSessionsShare(t *testing.T) {
	ctx := context.Background()
	work := t.TempDir()
	dir := filepath.Join(t.TempDir(), "w.git")
	write(t, work, "a.txt", "one\n")
	one, err := checkpoint.Open(ctx, dir, work, "one", 0)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := one.Snapshot(ctx, "one")
	write(t, work, "a.txt", "two\n")
	two, err := checkpoint.Open(ctx, dir, work, "two", 0)
	if err != nil {
		t.Fatal(err)
	}
	second, _ := two.Snapshot(ctx, "two")
	write(t, work, "a.txt", "three\n")
	if _, err := one.Restore(ctx, first); err != nil {
		t.Fatal(err)
	}
	if got := files(t, work)["a.txt"]; got != "one\n" {
		t.Errorf("session one restored %q", got)
	}
	if _, err := two.Restore(ctx, second); err != nil {
		t.Fatal(err)
	}
	if got := files(t, work)["a.txt"]; got != "two\n" {
		t.Errorf("session two restored %q", got)
	}
	if err := one.Forget(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := two.Diff(ctx, second, ""); err != nil {
		t.Errorf("session two after one was forgotten: %v", err)
	}
	two.Forget(ctx)
	if _, err := os.Stat(dir); err == nil {
		t.Error("the repository outlived its last session")
	}
}

// A shadow repository inside the workspace (the state directory is there)
// leaves itself out.
func TestRepositoryInsideWorkspace(t *testing.T) {
	ctx := context.Background()
	work := t.TempDir()
	write(t, work, "a.txt", "one\n")
	repo, err := checkpoint.Open(ctx, filepath.Join(work, "state", "checkpoints", "w.git"), work, "s1", 0)
	if err != nil {
		t.Fatal(err)
	}
	first, err := repo.Snapshot(ctx, "first")
	if err != nil {
		t.Fatal(err)
	}
	write(t, work, "a.txt", "two\n")
	second, err := repo.Snapshot(ctx, "second")
	if err != nil {
		t.Fatal(err)
	}
	changed, _ := repo.Changed(ctx, first, second)
	if !cmp.Equal(changed, []string{"a.txt"}) {
		t.Errorf("changed: %q", changed)
	}
	if _, err := repo.Restore(ctx, first); err != nil {
		t.Fatal(err)
	}
}
