package walk

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"slices"
	"syscall"

	"github.com/ikigai-tools/ikigai/toolsdk/files"
)

// ErrTooLarge is the error of reading a file larger than the core tools'
// limit, files.MaxFileSize.
var ErrTooLarge = errors.New("file is larger than 100 MiB")

// Content reads the whole file into buf, grown as needed, and returns what
// it read. It must be called during visit: on Linux it opens the file
// relative to the directory the walk holds open, which costs less than
// opening Path.
func (f File) Content(buf []byte) ([]byte, error) {
	return readFile(f.dirfd, f.name, f.Path, buf)
}

// ReadFile reads the whole file at path into buf, grown as needed, and
// returns what it read.
func ReadFile(path string, buf []byte) ([]byte, error) {
	return readFile(atFDCWD, path, path, buf)
}

// read reads the open file fd to its end with system calls alone: setting
// up an os.File costs more than reading a typical source file.
func read(fd int, name string, buf []byte) ([]byte, error) {
	defer syscall.Close(fd)
	buf = buf[:cap(buf)]
	if len(buf) == 0 {
		buf = make([]byte, 64<<10)
	}
	n := 0
	for {
		if n == len(buf) {
			buf = slices.Grow(buf, len(buf))[:2*len(buf)]
		}
		k, err := retry(func() (int, error) { return syscall.Read(fd, buf[n:]) })
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		if k == 0 {
			return buf[:n], nil
		}
		if n += k; n > files.MaxFileSize {
			return nil, &fs.PathError{Op: "read", Path: name, Err: ErrTooLarge}
		}
	}
}

// maxIgnoreFile is the largest ignore file read, in bytes: real ones hold a
// few KiB. A larger one is left unread, as git leaves one of 100 MiB.
const maxIgnoreFile = 1 << 20

// errNotIgnoreFile is the error of reading an ignore file that is not a
// regular file or is larger than maxIgnoreFile.
var errNotIgnoreFile = errors.New("not a regular file of at most 1 MiB")

// readIgnoreFile reads an ignore file (.gitignore, .git/info/exclude),
// which comes with the tree and may be hostile: only a regular file, not
// through a symlink (git opens them O_NOFOLLOW too), without waiting on a
// FIFO, and only up to maxIgnoreFile. A .gitignore linked to /dev/zero
// would otherwise be read until memory ran out, and a FIFO would block.
func readIgnoreFile(path string) ([]byte, error) {
	fd, err := retry(func() (int, error) { return syscall.Open(path, openFlags|syscall.O_NOFOLLOW, 0) })
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	info, err := f.Stat()
	switch {
	case err != nil:
		return nil, err
	case !info.Mode().IsRegular() || info.Size() > maxIgnoreFile:
		return nil, &fs.PathError{Op: "read", Path: path, Err: errNotIgnoreFile}
	}
	data, err := io.ReadAll(io.LimitReader(f, maxIgnoreFile+1))
	if err == nil && len(data) > maxIgnoreFile { // it grew meanwhile
		err = &fs.PathError{Op: "read", Path: path, Err: errNotIgnoreFile}
	}
	return data, err
}

// openFlags open a file for reading; O_NONBLOCK keeps a file that was
// swapped for a FIFO from blocking.
const openFlags = syscall.O_RDONLY | syscall.O_CLOEXEC | syscall.O_NONBLOCK

func retry(call func() (int, error)) (int, error) {
	for {
		n, err := call()
		if err != syscall.EINTR {
			return n, err
		}
	}
}
