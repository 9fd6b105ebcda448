package files

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ikigai-tools/ikigai/toolsdk"
)

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
			return toolsdk.Errorf("NOT_FOUND", "Error: editing file 'x': String not found")
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
				var e *toolsdk.Error
				if !errors.As(err, &e) || e.Code != tt.wantCode || e.Error() != tt.wantMsg {
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

// In a sticky world-writable directory, another user's link is not
// followed, as the kernel does not follow it with fs.protected_symlinks.
func TestWriteFileAtomicProtectedLinks(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("giving a link to another user needs root")
	}
	const nobody = 65534
	dir := t.TempDir()
	sticky := filepath.Join(dir, "sticky")
	os.Mkdir(sticky, 0o755)
	os.Chmod(sticky, 0o777|fs.ModeSticky)
	secret := filepath.Join(dir, "secret")
	os.WriteFile(secret, []byte("root's"), 0o600)
	link := func(name, target string, uid int) string {
		path := filepath.Join(sticky, name)
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
		if err := os.Lchown(path, uid, uid); err != nil {
			t.Fatal(err)
		}
		return path
	}
	ctx := context.Background()

	for _, path := range []string{link("evil", secret, nobody), link("new", filepath.Join(dir, "created"), nobody)} {
		err := WriteFileAtomic(ctx, path, writeString("pwned"))
		var e *toolsdk.Error
		if !errors.As(err, &e) || e.Code != CodePermissionDenied || !strings.Contains(e.Error(), "sticky world-writable") {
			t.Errorf("%s: error %v, want PERMISSION_DENIED for a protected link", filepath.Base(path), err)
		}
	}
	checkFile(t, secret, "root's", 0o600)
	if _, err := os.Lstat(filepath.Join(dir, "created")); err == nil {
		t.Error("the link's target was created")
	}

	// The caller's own link is followed; so is the directory owner's.
	if err := WriteFileAtomic(ctx, link("mine", secret, 0), writeString("new")); err != nil {
		t.Fatal(err)
	}
	checkFile(t, secret, "new", 0o600)
	os.Chown(sticky, nobody, nobody)
	if err := WriteFileAtomic(ctx, filepath.Join(sticky, "evil"), writeString("owner's")); err != nil {
		t.Fatal(err)
	}
	checkFile(t, secret, "owner's", 0o600)
}

// EditFileAtomic replaces the file only if it is still the one that was
// read: what another process wrote between the read and the rename is
// kept, and the edit fails with FILE_CHANGED. The write function, which
// runs between the two, plays the other process.
func TestEditFileAtomicChanged(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file.txt")
	read := func() fs.FileInfo {
		t.Helper()
		os.WriteFile(file, []byte("one\n"), 0o644)
		f, info, err := OpenRegular("editing file", file)
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
		return info
	}
	tests := []struct {
		name    string
		meddle  func(read fs.FileInfo)
		changed bool
		want    string // the file's content afterwards
	}{
		{"unchanged", func(fs.FileInfo) {}, false, "ONE\n"},
		{"appended to", func(fs.FileInfo) {
			f, _ := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString("two\n")
			f.Close()
		}, true, "one\ntwo\n"},
		{"rewritten, same size, modification time set back", func(read fs.FileInfo) {
			os.WriteFile(file, []byte("uno\n"), 0o644)
			os.Chtimes(file, time.Time{}, read.ModTime())
		}, true, "uno\n"},
		{"replaced", func(fs.FileInfo) {
			os.WriteFile(file+".new", []byte("new\n"), 0o644)
			os.Rename(file+".new", file)
		}, true, "new\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info := read()
			err := EditFileAtomic(context.Background(), file, info, func(w io.Writer) error {
				tt.meddle(info)
				_, err := io.WriteString(w, "ONE\n")
				return err
			})
			var e *toolsdk.Error
			switch {
			case !tt.changed && err != nil:
				t.Errorf("error %v", err)
			case tt.changed && (!errors.As(err, &e) || e.Code != CodeFileChanged):
				t.Errorf("error %v, want FILE_CHANGED", err)
			}
			checkFile(t, file, tt.want, 0o644)
			if got := files(t, dir); !slices.Equal(got, []string{"file.txt"}) {
				t.Errorf("directory holds %q", got)
			}
		})
	}

	// A file removed meanwhile is not brought back.
	info := read()
	err := EditFileAtomic(context.Background(), file, info, func(w io.Writer) error {
		os.Remove(file)
		return nil
	})
	if e, ok := err.(*toolsdk.Error); !ok || e.Code != CodeFileChanged {
		t.Errorf("removed: error %v, want FILE_CHANGED", err)
	}
	if _, err := os.Lstat(file); err == nil {
		t.Error("the removed file is back")
	}
}
