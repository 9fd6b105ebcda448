package files

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"syscall"

	"github.com/ikigai-tools/ikigai/toolsdk"
)

// WriteFileAtomic replaces the file at path with what write writes to w,
// so that whoever opens path, whenever, and however the process ends, finds
// either the old content or the new, never a mix and never no file.
//
// write writes to a temporary file in the same directory, which is synced
// to disk and renamed over path only if write and every step after it
// succeed; on any failure, and when ctx is done, the temporary file is
// removed and path is left as it was. If the process is stopped by a signal
// in the middle (see [toolsdk.OnInterrupt]), the temporary file is removed too.
// Writes to w stop with ctx's error once ctx is done.
//
// A symlink at path is followed: the file it points to is replaced and the
// link stays. As the kernel does with fs.protected_symlinks, a link in a
// sticky world-writable directory (/tmp) is followed only if it belongs to
// the process's user or to the directory's owner; another's is refused with
// PERMISSION_DENIED. An existing file keeps its permission bits (and its owner,
// where the process may set it); a new one gets 0666 minus the umask. A
// file the process could not write in place, such as a read-only one, is
// refused with PERMISSION_DENIED, as is one in a directory where the
// process cannot create the temporary file.
//
// The error is ctx's error, an error write returned as a [*toolsdk.Error],
// or one for "writing file" from [Error], whose fallback codes are
// OPEN_FAILED before the first write and WRITE_FAILED after it. A missing
// parent directory is OPEN_FAILED.
func WriteFileAtomic(ctx context.Context, path string, write func(w io.Writer) error) error {
	return writeFileAtomic(ctx, path, nil, write)
}

// EditFileAtomic is WriteFileAtomic for a file that was read to make its
// new content: read describes the file as it was read, as OpenRegular
// returns it. Just before the new content replaces the file, the file must
// still be that one, with the same size and modification and change times;
// if another process wrote it, replaced it or removed it meanwhile, nothing
// is written, what the other process wrote stays, and the error is
// FILE_CHANGED: read the file again and redo the change. (The check and
// the rename are two steps: a write between them, microseconds apart, is
// still lost.)
func EditFileAtomic(ctx context.Context, path string, read fs.FileInfo, write func(w io.Writer) error) error {
	return writeFileAtomic(ctx, path, read, write)
}

func writeFileAtomic(ctx context.Context, path string, read fs.FileInfo, write func(w io.Writer) error) error {
	const op = "writing file"
	openFailed := func(err error) error {
		e := Error(CodeOpenFailed, op, path, err)
		if e.Code == CodeFileNotFound { // a missing directory: the file need not exist
			e.Code = CodeOpenFailed
		}
		return e
	}
	target, err := resolveLinks(path)
	switch {
	case errors.Is(err, errProtectedLink):
		return &toolsdk.Error{Code: CodePermissionDenied, Op: op, Path: path, Reason: "Permission denied (" + err.Error() + ")"}
	case err != nil:
		return openFailed(err)
	}
	perm := fs.FileMode(0o666) // the umask applies when the file is created
	info, err := os.Stat(target)
	switch {
	case err == nil && info.IsDir():
		return openFailed(syscall.EISDIR)
	case err == nil && !info.Mode().IsRegular():
		// Renaming over a device or a pipe would replace it with a file.
		return &toolsdk.Error{Code: CodeOpenFailed, Op: op, Path: path, Reason: "not a regular file"}
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
	unregister := toolsdk.OnInterrupt(func() { os.Remove(tmp.Name()) })
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
	if err == nil && read != nil {
		err = checkUnchanged(op, path, target, read)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), target)
	}
	var opErr *toolsdk.Error
	switch {
	case err == nil:
	case errors.As(err, &opErr), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	default:
		return Error(CodeWriteFailed, op, path, err)
	}
	committed = true
	syncDir(filepath.Dir(target))
	return nil
}

// checkUnchanged returns FILE_CHANGED unless the file at target is the
// one read describes, unchanged: the same file, size, modification time and
// change time (which a write moves even where the clock is coarse, or
// someone set the modification time back).
func checkUnchanged(op, path, target string, read fs.FileInfo) error {
	now, err := os.Stat(target)
	if err == nil && os.SameFile(now, read) && now.Size() == read.Size() && now.ModTime().Equal(read.ModTime()) &&
		ctime(now) == ctime(read) {
		return nil
	}
	return &toolsdk.Error{Code: CodeFileChanged, Op: op, Path: path,
		Reason: "the file changed after it was read, so nothing was written; read it again"}
}

func ctime(info fs.FileInfo) syscall.Timespec {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return st.Ctim
	}
	return syscall.Timespec{}
}

// resolveLinks follows symlinks at the end of path, even a dangling one, to
// the name of the file that a write through path would change. It follows
// them as the kernel would with fs.protected_symlinks set (see mayFollow),
// since the rename that replaces the file does not follow links itself.
func resolveLinks(path string) (string, error) {
	for range 40 { // Linux's own limit on links followed in one lookup
		info, err := os.Lstat(path)
		if err != nil || info.Mode()&fs.ModeSymlink == 0 {
			// Not a link, or nothing there: the file itself. Any other
			// problem shows when the file is opened.
			return path, nil
		}
		if err := mayFollow(path, info); err != nil {
			return "", err
		}
		target, err := os.Readlink(path)
		if err != nil {
			return path, nil // gone meanwhile: the rename makes a file there
		}
		if !filepath.IsAbs(target) {
			// Not filepath.Join: cleaning "dir/../x" is wrong when dir is a link.
			target = filepath.Dir(path) + "/" + target
		}
		path = target
	}
	return "", syscall.ELOOP
}

// errProtectedLink is why mayFollow refuses a link.
var errProtectedLink = errors.New("a symlink in a sticky world-writable directory is followed only if it is yours or the directory owner's")

// mayFollow applies the kernel's rule for following the symlink link, whose
// Lstat is info (fs.protected_symlinks, which Linux distributions set): in
// a sticky world-writable directory such as /tmp, a link is followed only
// if it belongs to the caller or to the directory's owner. Anyone can plant
// a link there; followed by root, it would overwrite, or create, any file.
// Whoever planted the link cannot replace one that passed: the sticky bit
// keeps other users' links in place.
func mayFollow(link string, info fs.FileInfo) error {
	dir, err := os.Stat(filepath.Dir(link))
	if err != nil || dir.Mode()&fs.ModeSticky == 0 || dir.Mode().Perm()&0o002 == 0 {
		return nil
	}
	owner := info.Sys().(*syscall.Stat_t).Uid
	if int(owner) == os.Geteuid() || owner == dir.Sys().(*syscall.Stat_t).Uid {
		return nil
	}
	return errProtectedLink
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
