package files

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/ikigai-tools/ikigai/toolsdk"
)

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
		var e *toolsdk.Error
		if f != nil || !errors.As(err, &e) || e.Code != tt.code || e.Error() != tt.msg {
			t.Errorf("OpenRegular(%q) = %v, %#v; want %s %q", tt.path, f, err, tt.code, tt.msg)
		}
	}
}
