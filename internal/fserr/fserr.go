// Package fserr gives the reason a file-system operation failed without
// the operation and path its error carries, for messages that name the
// file their own way ("tool 'x' could not be started: permission denied").
package fserr

import (
	"errors"
	"io/fs"
	"os"
)

// Reason returns the error the system gave, unwrapped from the
// *fs.PathError, *os.LinkError or *os.SyscallError err is or wraps; any
// other err is returned as it is.
func Reason(err error) error {
	var pathErr *fs.PathError
	var linkErr *os.LinkError
	var sysErr *os.SyscallError
	switch {
	case errors.As(err, &pathErr):
		return pathErr.Err
	case errors.As(err, &linkErr):
		return linkErr.Err
	case errors.As(err, &sysErr):
		return sysErr.Err
	}
	return err
}
