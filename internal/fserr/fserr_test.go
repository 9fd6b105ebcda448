package fserr

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"testing"
)

func TestReason(t *testing.T) {
	odd := errors.New("odd")
	tests := []struct {
		err  error
		want error
	}{
		{&fs.PathError{Op: "open", Path: "/x", Err: syscall.ENOENT}, syscall.ENOENT},
		{fmt.Errorf("loading: %w", &fs.PathError{Op: "open", Path: "/x", Err: syscall.EACCES}), syscall.EACCES},
		{&os.LinkError{Op: "rename", Old: "a", New: "b", Err: syscall.EXDEV}, syscall.EXDEV},
		{os.NewSyscallError("pidfd_open", syscall.ENOSYS), syscall.ENOSYS},
		{odd, odd},
		{nil, nil},
	}
	for _, tt := range tests {
		if got := Reason(tt.err); got != tt.want {
			t.Errorf("Reason(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
