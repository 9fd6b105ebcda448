//go:build unix && !linux

package walk

import (
	"io/fs"
	"syscall"
)

const atFDCWD = 0 // unused: files are opened by path

func readFile(_ int, _, path string, buf []byte) ([]byte, error) {
	fd, err := retry(func() (int, error) { return syscall.Open(path, openFlags, 0) })
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return read(fd, path, buf)
}
