package files

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
	"testing"
)

func TestError(t *testing.T) {
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
		got := Error("FALLBACK", "reading file", "a.txt", tt.err)
		if got.Code != tt.wantCode || got.Error() != tt.wantMsg {
			t.Errorf("Error(%v) = %s %q, want %s %q", tt.err, got.Code, got.Error(), tt.wantCode, tt.wantMsg)
		}
	}
}
