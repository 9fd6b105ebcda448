package toolsdk

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"
	"unicode"
	"unicode/utf8"
)

// MaxFileSize is the largest file a core tool reads whole or writes: 100 MiB.
const MaxFileSize = 100 << 20

// BinaryProbe is how much of the start of a file is looked at to decide
// whether it is binary.
const BinaryProbe = 8 << 10

// BinaryOffset returns the offset of the first NUL byte in the first
// BinaryProbe bytes of head, the start of a file, or -1 when there is none.
// A file with a NUL byte there is binary, as git decides.
func BinaryOffset(head []byte) int {
	return bytes.IndexByte(head[:min(len(head), BinaryProbe)], 0)
}

// FileError returns the operation error for err, which an operation on the
// file at path failed with. Its code comes from the OS error where one fits,
// and is code otherwise:
//
//	ENOENT, ENOTDIR          FILE_NOT_FOUND
//	EACCES, EPERM, EROFS     PERMISSION_DENIED
//	ENOSPC, EDQUOT           NO_SPACE
//
// Its message reads "Error: {op} '{path}': {reason}", the reason in the
// OS's words ("No such file or directory"). op names the operation as the
// user asked for it ("reading file"), and path is the path as the user gave
// it, whatever path the failing call used.
func FileError(code, op, path string, err error) *Error {
	var errno syscall.Errno
	reason := err.Error()
	switch {
	case errors.As(err, &errno):
		reason = capitalize(errno.Error())
		switch errno {
		case syscall.ENOENT, syscall.ENOTDIR:
			code = "FILE_NOT_FOUND"
		case syscall.EACCES, syscall.EPERM, syscall.EROFS:
			code = "PERMISSION_DENIED"
		case syscall.ENOSPC, syscall.EDQUOT:
			code = "NO_SPACE"
		}
	case errors.Unwrap(err) != nil:
		// A *fs.PathError and its kin name the path the call used; the
		// message names the user's.
		reason = errors.Unwrap(err).Error()
	}
	return &Error{Code: code, Message: fmt.Sprintf("Error: %s '%s': %s", op, path, reason)}
}

// capitalize gives an OS error message the capital that strerror(3) has.
func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// OpenRegular opens the file at path for reading, and returns it with its
// FileInfo, taken from the open descriptor so that it describes the file
// that was opened even if path changes meanwhile. A directory, a device or
// a named pipe is refused with READ_FAILED; opening a pipe does not wait
// for a writer. Errors are [FileError]s for op with the fallback codes
// OPEN_FAILED and SIZE_FAILED.
func OpenRegular(op, path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, FileError("OPEN_FAILED", op, path, err)
	}
	info, err := f.Stat()
	switch {
	case err != nil:
		err = FileError("SIZE_FAILED", op, path, err)
	case info.IsDir():
		err = FileError("READ_FAILED", op, path, syscall.EISDIR)
	case !info.Mode().IsRegular():
		err = Errorf("READ_FAILED", "Error: %s '%s': not a regular file", op, path)
	default:
		return f, info, nil
	}
	f.Close()
	return nil, nil, err
}

// WriteFileAtomic replaces the file at path with what write writes to w,
// so that whoever opens path, whenever, and however the process ends, finds
// either the old content or the new, never a mix and never no file.
//
// write writes to a temporary file in the same directory, which is synced
// to disk and renamed over path only if write and every step after it
// succeed; on any failure, and when ctx is done, the temporary file is
// removed and path is left as it was. If the process is stopped by a signal
// in the middle (see [OnInterrupt]), the temporary file is removed too.
// Writes to w stop with ctx's error once ctx is done.
//
// A symlink at path is followed: the file it points to is replaced and the
// link stays. An existing file keeps its permission bits (and its owner,
// where the process may set it); a new one gets 0666 minus the umask. A
// file the process could not write in place, such as a read-only one, is
// refused with PERMISSION_DENIED, as is one in a directory where the
// process cannot create the temporary file.
//
// The error is ctx's error, an error write returned as an [*Error], or an
// [*Error] for "writing file" from [FileError], whose fallback codes are
// OPEN_FAILED before the first write and WRITE_FAILED after it. A missing
// parent directory is OPEN_FAILED.
func WriteFileAtomic(ctx context.Context, path string, write func(w io.Writer) error) error {
	const op = "writing file"
	openFailed := func(err error) error {
		e := FileError("OPEN_FAILED", op, path, err)
		if e.Code == "FILE_NOT_FOUND" { // a missing directory: the file need not exist
			e.Code = "OPEN_FAILED"
		}
		return e
	}
	target, err := resolveLinks(path)
	if err != nil {
		return openFailed(err)
	}
	perm := fs.FileMode(0o666) // the umask applies when the file is created
	info, err := os.Stat(target)
	switch {
	case err == nil && info.IsDir():
		return openFailed(syscall.EISDIR)
	case err == nil && !info.Mode().IsRegular():
		// Renaming over a device or a pipe would replace it with a file.
		return Errorf("OPEN_FAILED", "Error: %s '%s': not a regular file", op, path)
	case err == nil:
		if err := syscall.Access(target, 2 /* W_OK */); err != nil {
			return openFailed(err)
		}
		perm = info.Mode().Perm()
	case !errors.Is(err, fs.ErrNotExist):
		return openFailed(err)
	}

	tmp, err := createTemp(target, perm)
	if err != nil {
		return openFailed(err)
	}
	unregister := OnInterrupt(func() { os.Remove(tmp.Name()) })
	defer unregister()
	committed := false
	defer func() {
		if !committed {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if info != nil {
		keepOwner(tmp, info)
		if err := tmp.Chmod(perm); err != nil { // the umask may have cleared bits
			return openFailed(err)
		}
	}

	w := bufio.NewWriterSize(ctxWriter{ctx, tmp}, 1<<20)
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = tmp.Sync()
	}
	if err == nil {
		err = tmp.Close()
	}
	if err == nil {
		err = ctx.Err() // the last moment to back out
	}
	if err == nil {
		err = os.Rename(tmp.Name(), target)
	}
	var opErr *Error
	switch {
	case err == nil:
	case errors.As(err, &opErr), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	default:
		return FileError("WRITE_FAILED", op, path, err)
	}
	committed = true
	syncDir(filepath.Dir(target))
	return nil
}

// resolveLinks follows symlinks at the end of path, even a dangling one, to
// the name of the file that a write through path would change.
func resolveLinks(path string) (string, error) {
	for range 40 { // Linux's own limit on links followed in one lookup
		target, err := os.Readlink(path)
		if err != nil {
			// Not a link, or nothing there: the file itself. Any other
			// problem shows when the file is opened.
			return path, nil
		}
		if !filepath.IsAbs(target) {
			// Not filepath.Join: cleaning "dir/../x" is wrong when dir is a link.
			target = filepath.Dir(path) + "/" + target
		}
		path = target
	}
	return "", syscall.ELOOP
}

// createTemp creates a new file beside target, named after it so a file
// left behind by a crash says where it came from.
func createTemp(target string, perm fs.FileMode) (*os.File, error) {
	dir, base := filepath.Split(target)
	base = base[:min(len(base), 128)] // leaves room for the suffix within NAME_MAX
	for {
		name := fmt.Sprintf("%s.%s.ikigai-%08x.tmp", dir, base, rand.Uint32())
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
}

// keepOwner gives f the owner and group of the file it replaces, where the
// process may: root can, anyone else can at most change the group.
func keepOwner(f *os.File, old fs.FileInfo) {
	st, ok := old.Sys().(*syscall.Stat_t)
	if ok && (int(st.Uid) != os.Geteuid() || int(st.Gid) != os.Getegid()) {
		f.Chown(int(st.Uid), int(st.Gid))
	}
}

// syncDir makes a rename in dir durable. Some file systems cannot sync a
// directory; the rename has happened either way, so errors are ignored.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}

// ctxWriter stops writing once ctx is done, checking between chunks so
// that even one huge write stops soon.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	const chunk = 1 << 20
	n := 0
	for len(p) > 0 {
		if err := c.ctx.Err(); err != nil {
			return n, err
		}
		m, err := c.w.Write(p[:min(len(p), chunk)])
		n += m
		if err != nil {
			return n, err
		}
		p = p[m:]
	}
	return n, nil
}
