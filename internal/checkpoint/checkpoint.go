// Package checkpoint keeps snapshots of a workspace's files, so that what
// a conversation changed can be shown and undone. The snapshots are commits
// in a shadow git repository outside the workspace (under ikigai's state
// directory): git runs with GIT_DIR and GIT_WORK_TREE pointing at the two,
// so nothing appears in the user's own repository, if there is one, and
// files the workspace's .gitignore files (and the user's global excludes)
// ignore are left out. The git binary does the work.
//
// One shadow repository serves every session in a workspace, so that a
// file is stored once however many sessions snapshot it; each session has
// its own index and its own branch, and sessions may snapshot at once.
package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// DefaultMaxMB is the default cap on the files a snapshot takes, in MB.
const DefaultMaxMB = 100

// gitTimeout bounds one git command.
const gitTimeout = 2 * time.Minute

// TooLargeError says the workspace's files are over the cap: the snapshot
// was not taken.
type TooLargeError struct {
	Size, Max int64 // in bytes
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("the files here come to %d MB, over checkpoint_max_mb (%d)", (e.Size+999_999)/1_000_000, e.Max/1_000_000)
}

// A Repo is one session's view of the shadow repository of a workspace.
type Repo struct {
	dir   string // the shadow repository, a bare git directory
	work  string // the workspace
	index string // the session's index
	ref   string // the session's branch
	max   int64  // the most bytes of files a snapshot takes; 0 for no cap
}

// Open returns the session's view of the shadow repository at dir for the
// workspace work, making the repository if it does not exist. maxBytes
// caps the files a snapshot takes (0: no cap). A repository that cannot be
// made is removed, not left half made.
func Open(ctx context.Context, dir, work, session string, maxBytes int64) (*Repo, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, errors.New("git is not installed")
	}
	if session == "" || strings.ContainsAny(session, "/\\ ") {
		return nil, fmt.Errorf("checkpoint: bad session name %q", session)
	}
	r := &Repo{dir: dir, work: work, max: maxBytes, index: filepath.Join(dir, "index-"+session), ref: "refs/sessions/" + session}
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); err == nil {
		return r, nil
	}
	// A state directory inside the workspace must not be snapshotted into
	// itself.
	var exclude []byte
	if rel, err := filepath.Rel(work, dir); err == nil && filepath.IsLocal(rel) {
		exclude = []byte("/" + filepath.ToSlash(rel) + "/\n")
	}
	made := false
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		made = true
	}
	err := os.MkdirAll(filepath.Dir(dir), 0o700)
	if err == nil {
		_, err = r.git(ctx, "init", "--quiet", "--bare", "--template=", dir)
	}
	if err == nil {
		// The user's own configuration must not turn snapshots into
		// something else: no signing, no line-end conversion, no hooks.
		for _, kv := range [][2]string{{"core.autocrlf", "false"}, {"commit.gpgsign", "false"}, {"core.hooksPath", "/dev/null"}, {"gc.auto", "0"}} {
			if _, err = r.git(ctx, "config", kv[0], kv[1]); err != nil {
				break
			}
		}
	}
	if err == nil && exclude != nil {
		if err = os.MkdirAll(filepath.Join(dir, "info"), 0o700); err == nil {
			err = os.WriteFile(filepath.Join(dir, "info", "exclude"), exclude, 0o600)
		}
	}
	if err != nil {
		if made {
			os.RemoveAll(dir)
		}
		return nil, fmt.Errorf("making the checkpoint repository %s: %w", dir, err)
	}
	return r, nil
}

// Dir returns where the shadow repository is.
func (r *Repo) Dir() string { return r.dir }

// Forget removes the session's branch and index, and the repository with
// them when no other session has snapshots in it: what a session whose
// snapshots failed leaves behind.
func (r *Repo) Forget(ctx context.Context) error {
	r.git(ctx, "update-ref", "-d", r.ref)
	os.Remove(r.index)
	if refs, err := r.git(ctx, "for-each-ref", "--count=1", "refs/sessions/"); err == nil && refs != "" {
		return nil
	}
	return os.RemoveAll(r.dir)
}

// Snapshot records the workspace's files as they are now, with message,
// and returns the snapshot's id. Files over the cap, together, are a
// *TooLargeError, and nothing is recorded.
func (r *Repo) Snapshot(ctx context.Context, message string) (string, error) {
	if r.max > 0 {
		size, err := r.size(ctx)
		if err != nil {
			return "", err
		}
		if size > r.max {
			return "", &TooLargeError{Size: size, Max: r.max}
		}
	}
	if _, err := r.git(ctx, "add", "--all", "--", ":/"); err != nil {
		return "", err
	}
	tree, err := r.git(ctx, "write-tree")
	if err != nil {
		return "", err
	}
	args := []string{"commit-tree", tree, "-m", message}
	if parent, err := r.git(ctx, "rev-parse", "--verify", "--quiet", r.ref); err == nil && parent != "" {
		args = append(args, "-p", parent)
	}
	commit, err := r.git(ctx, args...)
	if err != nil {
		return "", err
	}
	if _, err := r.git(ctx, "update-ref", r.ref, commit); err != nil {
		return "", err
	}
	return commit, nil
}

// size adds up the sizes of the files a snapshot would take: those it
// holds already and those not ignored.
func (r *Repo) size(ctx context.Context) (int64, error) {
	out, err := r.git(ctx, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	if err != nil {
		return 0, err
	}
	var total int64
	for name := range strings.SplitSeq(out, "\x00") {
		if name == "" {
			continue
		}
		if fi, err := os.Lstat(filepath.Join(r.work, name)); err == nil && fi.Mode().IsRegular() {
			total += fi.Size()
		}
	}
	return total, nil
}

// Restore puts the workspace's files back as the snapshot id has them:
// files it holds are written, and files snapshots taken since hold that
// it does not are removed. Ignored files, and files no snapshot holds, are
// left alone. The workspace as it was before is snapshotted first, and
// that snapshot's id returned, so that a restore can itself be undone.
func (r *Repo) Restore(ctx context.Context, id string) (string, error) {
	now, err := r.Snapshot(ctx, "before restoring "+id)
	var tooLarge *TooLargeError
	if errors.As(err, &tooLarge) {
		// Still restore: the files the snapshots hold are known.
		now, err = "", nil
	}
	if err != nil {
		return "", err
	}
	// With the index holding what is there now, restore removes what the
	// source lacks and writes what it has.
	if _, err := r.git(ctx, "restore", "--source="+id, "--worktree", "--", ":/"); err != nil {
		return now, err
	}
	if _, err := r.git(ctx, "read-tree", id); err != nil {
		return now, err
	}
	return now, nil
}

// Diff returns the changes from snapshot from to snapshot to as a unified
// diff of the files, with three lines of context; to "" is the workspace
// now, snapshotted first. Binary files are named, not shown.
func (r *Repo) Diff(ctx context.Context, from, to string) (string, error) {
	if to == "" {
		var err error
		if to, err = r.Snapshot(ctx, "diff"); err != nil {
			return "", err
		}
	}
	return r.git(ctx, "diff", "--no-color", "--no-ext-diff", "--no-renames", "--stat", "--patch", from, to)
}

// Changed returns the files that differ between two snapshots.
func (r *Repo) Changed(ctx context.Context, from, to string) ([]string, error) {
	out, err := r.git(ctx, "diff", "--name-only", "-z", "--no-renames", from, to)
	if err != nil {
		return nil, err
	}
	var files []string
	for f := range strings.SplitSeq(out, "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	return files, nil
}

// git runs a git command on the shadow repository and the workspace and
// returns its output, without the last newline.
func (r *Repo) git(ctx context.Context, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = r.work
	// The caller's GIT_ variables (ikigai run from a git hook) would
	// point git elsewhere.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	if args[0] != "init" {
		cmd.Env = append(cmd.Env, "GIT_DIR="+r.dir, "GIT_WORK_TREE="+r.work, "GIT_INDEX_FILE="+r.index)
	}
	cmd.Env = append(cmd.Env,
		"GIT_AUTHOR_NAME=ikigai", "GIT_AUTHOR_EMAIL=ikigai@localhost",
		"GIT_COMMITTER_NAME=ikigai", "GIT_COMMITTER_EMAIL=ikigai@localhost",
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_OPTIONAL_LOCKS=0",
		"LC_ALL=C",
	)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		// git's last line says what stopped it.
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		msg := strings.TrimPrefix(lines[len(lines)-1], "fatal: ")
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("git %s: %s", args[0], msg)
	}
	return strings.TrimSuffix(stdout.String(), "\n"), nil
}
