package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// Start starts cmd confined by c, or as cmd.Start does when c is nil.
//
// The confinement is made on an operating system thread of ikigai's own,
// which then starts the process: Landlock restricts that thread and
// no_new_privs is set on it, and the process inherits both from the
// thread that forks it, and passes them on to everything it starts.
// Nothing else of ikigai runs on that thread (the Go runtime starts no
// thread from a locked one either), and it ends once the process has
// exited, so a parent-death signal set on the process does not fire early.
// This costs no process of its own, where a helper program that confines
// itself and then executes the tool would cost its start-up (a Go program
// takes over a millisecond to start).
//
// A process that could not be confined is not started, and the error is
// an *Error.
func Start(cmd *exec.Cmd, c *Confinement) error {
	if c == nil {
		return cmd.Start()
	}
	if c.Refused != "" {
		return &Error{Err: errors.New(c.Refused)}
	}
	if c.NetNS {
		inNetNS(cmd)
	}
	started := make(chan error, 1)
	go func() {
		// Never unlocked: the thread, restricted for good, ends with
		// this goroutine.
		runtime.LockOSThread()
		if err := confineThread(c); err != nil {
			started <- &Error{Err: err}
			return
		}
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		// Opened before Start returns, so before anyone can Wait for the
		// process and its pid be reused.
		pidfd, err := unix.PidfdOpen(cmd.Process.Pid, 0)
		started <- nil
		if err == nil {
			waitExit(pidfd)
			unix.Close(pidfd)
		}
	}()
	return <-started
}

// inNetNS makes cmd start in a network namespace of its own, holding only
// a loopback device that is down: as root a new network namespace; as
// anyone else inside a new user namespace too, with the user's own uid and
// gid mapped, so that files keep their owner.
func inNetNS(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	a := cmd.SysProcAttr
	a.Cloneflags |= syscall.CLONE_NEWNET
	if os.Geteuid() != 0 {
		a.Cloneflags |= syscall.CLONE_NEWUSER
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: os.Geteuid(), HostID: os.Geteuid(), Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: os.Getegid(), HostID: os.Getegid(), Size: 1}}
		a.GidMappingsEnableSetgroups = false
	}
}

// onConfinedThread runs f on a thread confined by c, which ends with it.
func onConfinedThread(c *Confinement, f func() error) error {
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		if err := confineThread(c); err != nil {
			done <- &Error{Err: err}
			return
		}
		done <- f()
	}()
	return <-done
}

// waitExit returns once the process of pidfd has exited.
func waitExit(pidfd int) {
	fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
	for {
		if _, err := unix.Poll(fds, -1); err != unix.EINTR {
			return
		}
	}
}

// Landlock's access rights, as far as this package uses them.
const (
	readAccess = ll.AccessFSExecute | ll.AccessFSReadFile | ll.AccessFSReadDir
	// fileAccess is what a rule on a single file may grant.
	fileAccess = ll.AccessFSExecute | ll.AccessFSWriteFile | ll.AccessFSReadFile | ll.AccessFSTruncate | ll.AccessFSIoctlDev
	// deviceAccess is what the harmless devices allow: programs write to
	// /dev/null (a redirection opens it with O_TRUNC), read /dev/zero.
	deviceAccess = ll.AccessFSReadFile | ll.AccessFSWriteFile | ll.AccessFSTruncate | ll.AccessFSIoctlDev
)

// devices are the device files every confined process may write.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full"}

// handledFS returns the file system access rights Landlock ABI abi
// handles: every right is denied unless a rule grants it. Rights newer
// than ABI 8 are left alone, unhandled, until they can be tried here.
func handledFS(abi int) uint64 {
	switch {
	case abi <= 0:
		return 0
	case abi == 1:
		return 1<<13 - 1 // up to making symbolic links
	case abi == 2:
		return 1<<14 - 1 // and moving files between directories (refer)
	case abi <= 4:
		return 1<<15 - 1 // and truncating
	}
	return 1<<16 - 1 // and ioctl on devices
}

// confineThread restricts the calling thread, which must be locked to its
// goroutine, as c says: read everywhere, write in c.Write, c.TempDir and
// the harmless devices; no TCP, no abstract unix sockets when the network
// is off; no signals to processes outside the confinement.
func confineThread(c *Confinement) error {
	abi, missing := landlockABI()
	if abi == 0 {
		return fmt.Errorf("no Landlock: %s", missing)
	}
	fs := handledFS(abi)
	attr := ll.RulesetAttr{HandledAccessFS: fs}
	if !c.Network && abi >= 4 {
		attr.HandledAccessNet = ll.AccessNetBindTCP | ll.AccessNetConnectTCP
	}
	if abi >= 6 {
		attr.Scoped = ll.ScopeSignal
		if !c.Network {
			attr.Scoped |= ll.ScopeAbstractUnixSocket
		}
	}
	ruleset, err := ll.LandlockCreateRuleset(&attr, 0)
	if err != nil {
		return fmt.Errorf("landlock_create_ruleset: %w", err)
	}
	defer unix.Close(ruleset)
	if err := allow(ruleset, "/", readAccess&fs, false); err != nil {
		return err
	}
	for _, d := range devices {
		if err := allow(ruleset, d, deviceAccess&fs, true); err != nil {
			return err
		}
	}
	writable := c.Write
	if c.TempDir != "" {
		writable = append(writable[:len(writable):len(writable)], c.TempDir)
	}
	for _, w := range writable {
		if err := allow(ruleset, w, fs, true); err != nil {
			return err
		}
	}
	if c.NetNS && os.Geteuid() != 0 {
		// The process is started in a user namespace of its own, whose
		// uid and gid maps are written to /proc/PID from this thread: an
		// unprivileged user can write there only about their own
		// processes, and Landlock keeps those outside the confinement
		// from being traced (which /proc/PID/mem and the like require).
		if err := allow(ruleset, "/proc", (readAccess|ll.AccessFSWriteFile)&fs, false); err != nil {
			return err
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("setting no_new_privs: %w", err)
	}
	if err := ll.LandlockRestrictSelf(ruleset, 0); err != nil {
		return fmt.Errorf("landlock_restrict_self: %w", err)
	}
	return nil
}

// allow grants access beneath path (or to path, a file). A path that does
// not exist is skipped when optional, since there is nothing there to
// write to yet.
func allow(ruleset int, path string, access uint64, optional bool) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		if optional && errors.Is(err, unix.ENOENT) {
			return nil
		}
		return fmt.Errorf("opening %s: %w", path, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		access &= fileAccess
	}
	err = ll.LandlockAddPathBeneathRule(ruleset, &ll.PathBeneathAttr{AllowedAccess: access, ParentFd: fd}, 0)
	if err != nil {
		return fmt.Errorf("landlock_add_rule %s: %w", path, err)
	}
	return nil
}

// landlockABI returns the kernel's Landlock ABI version, or 0 and why
// there is none.
func landlockABI() (int, string) {
	abi, err := ll.LandlockGetABIVersion()
	switch {
	case errors.Is(err, unix.ENOSYS):
		return 0, "this kernel has none; Linux 5.13 or later built with CONFIG_SECURITY_LANDLOCK has it"
	case errors.Is(err, unix.EOPNOTSUPP):
		return 0, "this kernel has it but did not enable it; add landlock to its lsm= boot parameter"
	case err != nil:
		return 0, err.Error()
	case abi <= 0:
		return 0, fmt.Sprintf("the kernel reports ABI version %d", abi)
	}
	return abi, ""
}

// probeNetNS starts a process in a network namespace of its own, to see
// whether that can be done; the process is asked to execute a path that
// cannot exist, so nothing runs once the namespace is made.
func probeNetNS() error {
	cmd := exec.Command("/dev/null/ikigai-netns-probe")
	inNetNS(cmd)
	err := cmd.Start()
	switch {
	case errors.Is(err, unix.ENOTDIR):
		return nil // the namespace was made, and only the execution failed
	case err == nil:
		cmd.Wait()
		return nil
	case errors.Is(err, unix.EPERM), errors.Is(err, unix.EACCES):
		return errors.New("not permitted to make one")
	case errors.Is(err, unix.ENOSPC):
		return errors.New("user namespaces are disabled (user.max_user_namespaces is 0)")
	case errors.Is(err, unix.EINVAL):
		return errors.New("the kernel has no network or user namespaces")
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return err
}
