package instructions

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// openBeneath opens name inside root for reading without blocking, letting
// the kernel refuse any step of its path, symbolic links included, that
// leads out of root (openat2 with RESOLVE_BENEATH). The kernel refuses an
// absolute link even when it points inside root, and a kernel without
// openat2 has no such rule: both get it from resolving the path first.
func openBeneath(root, name string) (*os.File, error) {
	dir, err := unix.Open(root, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: root, Err: err}
	}
	defer unix.Close(dir)
	how := &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_NONBLOCK | unix.O_NOCTTY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	}
	fd, err := unix.Openat2(dir, name, how)
	switch {
	case errors.Is(err, unix.EXDEV), errors.Is(err, unix.ENOSYS), errors.Is(err, unix.EPERM) && seccompBlocked():
		return openResolved(root, name)
	case err != nil:
		return nil, &os.PathError{Op: "open", Path: filepath.Join(root, name), Err: err}
	}
	return os.NewFile(uintptr(fd), filepath.Join(root, name)), nil
}

// seccompBlocked reports whether openat2 is refused as a whole, as some
// container runtimes' filters do, rather than for this path.
func seccompBlocked() bool {
	_, err := unix.Openat2(unix.AT_FDCWD, "/", &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC})
	return errors.Is(err, unix.EPERM) || errors.Is(err, unix.ENOSYS)
}
