package toolsdk

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

func TestFileError(t *testing.T) {
	tests := []struct {
		err      error
		wantCode string
		wantMsg  string
	}{
		{&fs.PathError{Op: "open", Path: "/tmp/x", Err: syscall.ENOENT}, "FILE_NOT_FOUND", "Error: reading file 'a.txt': No such file or directory"},
		{syscall.ENOTDIR, "FILE_NOT_FOUND", "Error: reading file 'a.txt': Not a directory"},
		{&fs.PathError{Op: "open", Path: "a.txt", Err: syscall.EACCES}, "PERMISSION_DENIED", "Error: reading file 'a.txt': Permission denied"},
		{syscall.EPERM, "PERMISSION_DENIED", "Error: reading file 'a.txt': Operation not permitted"},
		{syscall.EROFS, "PERMISSION_DENIED", "Error: reading file 'a.txt': Read-only file system"},
		{fmt.Errorf("writing: %w", syscall.ENOSPC), "NO_SPACE", "Error: reading file 'a.txt': No space left on device"},
		{syscall.EDQUOT, "NO_SPACE", "Error: reading file 'a.txt': Disk quota exceeded"},
		{&fs.PathError{Op: "read", Path: "a.txt", Err: syscall.EISDIR}, "FALLBACK", "Error: reading file 'a.txt': Is a directory"},
		{&fs.PathError{Op: "read", Path: "/tmp/.a.txt.tmp", Err: errors.New("disk on fire")}, "FALLBACK", "Error: reading file 'a.txt': disk on fire"},
		{errors.New("odd"), "FALLBACK", "Error: reading file 'a.txt': odd"},
	}
	for _, tt := range tests {
		got := FileError("FALLBACK", "reading file", "a.txt", tt.err)
		if got.Code != tt.wantCode || got.Message != tt.wantMsg {
			t.Errorf("FileError(%v) = %s %q, want %s %q", tt.err, got.Code, got.Message, tt.wantCode, tt.wantMsg)
		}
	}
}

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

// files lists the names in dir, to show that no temporary file is left.
func files(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func checkFile(t *testing.T, path, want string, wantMode fs.FileMode) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s holds %q, want %q", path, got, want)
	}
	info, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode() != wantMode {
		t.Errorf("%s has mode %v, want %v", path, info.Mode(), wantMode)
	}
}

func TestWriteFileAtomicModes(t *testing.T) {
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	dir := t.TempDir()
	ctx := context.Background()

	fresh := filepath.Join(dir, "new.txt")
	if err := WriteFileAtomic(ctx, fresh, writeString("hello\n")); err != nil {
		t.Fatal(err)
	}
	checkFile(t, fresh, "hello\n", 0o640)

	// An existing file keeps bits the umask would have cleared.
	kept := filepath.Join(dir, "kept.sh")
	if err := os.WriteFile(kept, []byte("old"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(kept, 0o707)
	if err := WriteFileAtomic(ctx, kept, writeString("")); err != nil {
		t.Fatal(err)
	}
	checkFile(t, kept, "", 0o707)

	if got, want := files(t, dir), []string{"kept.sh", "new.txt"}; !slices.Equal(got, want) {
		t.Errorf("directory holds %q, want %q", got, want)
	}
}

func TestWriteFileAtomicFollowsLinks(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	for _, name := range []string{"real", "sub"} {
		if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	target := filepath.Join(dir, "real", "target.txt")
	os.WriteFile(target, []byte("old"), 0o600)
	// sub/link -> ../real/target.txt, reached through a linked directory:
	// "linkdir/../x" must not be cleaned to "x".
	os.Symlink("../real/target.txt", filepath.Join(dir, "sub", "link"))
	os.Symlink("sub", filepath.Join(dir, "linkdir"))
	os.Symlink("linkdir/link", filepath.Join(dir, "chain"))
	if err := WriteFileAtomic(ctx, filepath.Join(dir, "chain"), writeString("new")); err != nil {
		t.Fatal(err)
	}
	checkFile(t, target, "new", 0o600)
	if info, err := os.Lstat(filepath.Join(dir, "chain")); err != nil || info.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("chain is no longer a symlink: %v %v", info, err)
	}

	// A dangling link gets its target created.
	os.Symlink("created.txt", filepath.Join(dir, "dangling"))
	if err := WriteFileAtomic(ctx, filepath.Join(dir, "dangling"), writeString("made")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "created.txt")); string(got) != "made" {
		t.Errorf("created.txt holds %q", got)
	}
}

func TestWriteFileAtomicErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file.txt")
	os.WriteFile(file, []byte("old"), 0o644)
	os.Symlink("loop", filepath.Join(dir, "loop"))
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	ctx := context.Background()
	tests := []struct {
		name     string
		ctx      context.Context
		path     string
		write    func(io.Writer) error
		wantCode string
		wantMsg  string
		wantErr  error // instead of an *Error
	}{
		{"missing directory", ctx, "missing/x.txt", writeString("x"), "OPEN_FAILED", "Error: writing file 'missing/x.txt': No such file or directory", nil},
		{"parent is a file", ctx, file + "/x.txt", writeString("x"), "OPEN_FAILED", "Error: writing file '" + file + "/x.txt': Not a directory", nil},
		{"directory", ctx, dir, writeString("x"), "OPEN_FAILED", "Error: writing file '" + dir + "': Is a directory", nil},
		{"device", ctx, os.DevNull, writeString("x"), "OPEN_FAILED", "Error: writing file '/dev/null': not a regular file", nil},
		{"link loop", ctx, filepath.Join(dir, "loop"), writeString("x"), "OPEN_FAILED", "Error: writing file '" + dir + "/loop': Too many levels of symbolic links", nil},
		{"write fails", ctx, file, func(w io.Writer) error {
			w.Write([]byte("partial"))
			return errors.New("source vanished")
		}, "WRITE_FAILED", "Error: writing file '" + file + "': source vanished", nil},
		{"operation error passes through", ctx, file, func(w io.Writer) error {
			return Errorf("NOT_FOUND", "Error: editing file 'x': String not found")
		}, "NOT_FOUND", "Error: editing file 'x': String not found", nil},
		{"cancelled", cancelled, file, writeString("new"), "", "", context.Canceled},
		{"cancelled without writing", cancelled, file, func(io.Writer) error { return nil }, "", "", context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := WriteFileAtomic(tt.ctx, tt.path, tt.write)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Errorf("error %v, want %v", err, tt.wantErr)
				}
			} else {
				var e *Error
				if !errors.As(err, &e) || e.Code != tt.wantCode || e.Message != tt.wantMsg {
					t.Errorf("error %#v, want %s %q", err, tt.wantCode, tt.wantMsg)
				}
			}
			checkFile(t, file, "old", 0o644)
			if got, want := files(t, dir), []string{"file.txt", "loop"}; !slices.Equal(got, want) {
				t.Errorf("directory holds %q, want %q", got, want)
			}
		})
	}
}

// A signal that stops the process mid-write removes the temporary file.
func TestWriteFileAtomicInterrupted(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file.txt")
	os.WriteFile(file, []byte("old"), 0o644)
	var during []string
	err := WriteFileAtomic(context.Background(), file, func(w io.Writer) error {
		during = files(t, dir)
		runInterruptHooks() // what Main does before it exits on a signal
		return errors.New("stopped")
	})
	if err == nil || len(during) != 2 {
		t.Fatalf("error %v; while writing the directory held %q, want the file and a temporary file", err, during)
	}
	if got := files(t, dir); !slices.Equal(got, []string{"file.txt"}) {
		t.Errorf("directory holds %q after the interrupt, want only file.txt", got)
	}
	checkFile(t, file, "old", 0o644)
}

func TestOpenRegular(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file.txt")
	os.WriteFile(file, []byte("hello"), 0o644)
	pipe := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Fatal(err)
	}

	f, info, err := OpenRegular("reading file", file)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if info.Size() != 5 {
		t.Errorf("size %d, want 5", info.Size())
	}

	for _, tt := range []struct{ path, code, msg string }{
		{filepath.Join(dir, "missing"), "FILE_NOT_FOUND", "Error: reading file '" + dir + "/missing': No such file or directory"},
		{dir, "READ_FAILED", "Error: reading file '" + dir + "': Is a directory"},
		{os.DevNull, "READ_FAILED", "Error: reading file '/dev/null': not a regular file"},
		{pipe, "READ_FAILED", "Error: reading file '" + pipe + "': not a regular file"}, // and it does not hang
	} {
		f, _, err := OpenRegular("reading file", tt.path)
		var e *Error
		if f != nil || !errors.As(err, &e) || e.Code != tt.code || e.Message != tt.msg {
			t.Errorf("OpenRegular(%q) = %v, %#v; want %s %q", tt.path, f, err, tt.code, tt.msg)
		}
	}
}
