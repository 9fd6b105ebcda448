package calllog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"syscall"
)

// file appends lines to the log at path, rotating it to path.1 once a line
// would take it past max bytes. Several ikigai processes may share the log
// (an agent, and mcp serve for another client): each write holds an
// exclusive flock on the file, and a process that finds the file at path
// is no longer the one it has open (another rotated it) opens the new one.
type file struct {
	path string
	max  int64
	mu   sync.Mutex
	f    *os.File
	// report, if set, is told of the first write that fails.
	report   func(msg string)
	reported bool
}

func openFile(path string, max int64) (*file, error) {
	f := &file{path: path, max: max}
	if err := f.open(); err != nil {
		return nil, err
	}
	return f, nil
}

func (w *file) open() error {
	f, err := os.OpenFile(w.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	w.f = f
	return nil
}

// Write appends p, which is one whole line. The first failure is reported.
func (w *file) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.write(p)
	if err != nil && !w.reported && w.report != nil {
		w.reported = true
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is said anyway
		}
		w.report(fmt.Sprintf("Warning: the call log cannot be written to %s: %v", w.path, err))
	}
	return n, err
}

func (w *file) write(p []byte) (int, error) {
	// Two rounds suffice unless other processes keep rotating under us.
	for range 3 {
		if w.f == nil {
			if err := w.open(); err != nil {
				return 0, err
			}
		}
		n, retry, err := w.tryWrite(p)
		if !retry {
			return n, err
		}
		w.f.Close()
		w.f = nil
	}
	return 0, errors.New("the log keeps being rotated")
}

// tryWrite writes p under the lock unless the open file must be replaced
// first: because it is no longer the one at path, or because it was full
// and has just been rotated.
func (w *file) tryWrite(p []byte) (n int, retry bool, err error) {
	fd := int(w.f.Fd())
	if err := syscall.Flock(fd, syscall.LOCK_EX); err != nil {
		return 0, false, err
	}
	defer syscall.Flock(fd, syscall.LOCK_UN)
	open, err := w.f.Stat()
	if err != nil {
		return 0, false, err
	}
	if now, err := os.Stat(w.path); err != nil || !os.SameFile(open, now) {
		return 0, true, nil
	}
	if open.Size() > 0 && open.Size()+int64(len(p)) > w.max {
		if err := os.Rename(w.path, w.path+".1"); err != nil {
			return 0, false, err
		}
		return 0, true, nil
	}
	n, err = w.f.Write(p)
	return n, false, err
}

func (w *file) close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	return err
}
