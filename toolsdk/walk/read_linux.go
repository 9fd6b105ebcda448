package walk

import (
	"io/fs"
	"syscall"
)

// atFDCWD is AT_FDCWD: openat relative to the working directory.
const atFDCWD = -0x64

// readFile opens name relative to the directory dirfd: the kernel then
// looks up one name rather than every directory of path.
func readFile(dirfd int, name, path string, buf []byte) ([]byte, error) {
	fd, err := retry(func() (int, error) { return syscall.Openat(dirfd, name, openFlags, 0) })
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return read(fd, path, buf)
}
