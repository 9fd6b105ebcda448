package walk

import (
	"errors"
	"io/fs"
	"slices"
	"syscall"

	"github.com/ikigai-tools/ikigai/toolsdk"
)

// ErrTooLarge is the error of reading a file larger than the core tools'
// limit, toolsdk.MaxFileSize.
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
		if n += k; n > toolsdk.MaxFileSize {
			return nil, &fs.PathError{Op: "read", Path: name, Err: ErrTooLarge}
		}
	}
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
