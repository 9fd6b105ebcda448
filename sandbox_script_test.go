package ikigai_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"time"
	"unsafe"

	"github.com/rogpeppe/go-internal/testscript"
	"golang.org/x/sys/unix"
)

// linkNoLandlock puts the test binary in dir/test as nolandlock, which
// scripts run as a command (see noLandlock).
func linkNoLandlock(dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, "test"), 0o755); err != nil {
		return err
	}
	dst := filepath.Join(dir, "test", "nolandlock")
	if os.Link(os.Args[0], dst) == nil {
		return os.Chmod(dst, 0o755)
	}
	data, err := os.ReadFile(os.Args[0])
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o755)
}

// noLandlock is the command nolandlock CMD [ARGS...]: it runs CMD with the
// Landlock system calls failing with ENOSYS, as on a kernel built without
// Landlock, so that scripts can test the fallback on a kernel that has it.
// A seccomp filter does it, which CMD and everything it starts inherit.
func noLandlock(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: nolandlock CMD [ARGS...]")
		return 2
	}
	path, err := exec.LookPath(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "nolandlock:", err)
		return 127
	}
	// The filter is the calling thread's, which then executes CMD.
	runtime.LockOSThread()
	enosys := unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
	filter := []unix.SockFilter{
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 0}, // the system call's number
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: unix.SYS_LANDLOCK_CREATE_RULESET, Jt: 3},
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: unix.SYS_LANDLOCK_ADD_RULE, Jt: 2},
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, K: unix.SYS_LANDLOCK_RESTRICT_SELF, Jt: 1},
		{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW},
		{Code: unix.BPF_RET | unix.BPF_K, K: enosys},
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		fmt.Fprintln(os.Stderr, "nolandlock: no_new_privs:", err)
		return 1
	}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0); err != nil {
		fmt.Fprintln(os.Stderr, "nolandlock: seccomp:", err)
		return 1
	}
	err = syscall.Exec(path, args, os.Environ())
	fmt.Fprintln(os.Stderr, "nolandlock:", err)
	return 127
}

// tcplisten VAR listens on a loopback port until the script ends, and
// answers every HTTP request with "hello"; VAR is set to the port.
func tcplisten(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: tcplisten VAR")
	}
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	ts.Check(err)
	ts.Defer(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				// The request is read first: closing a connection with
				// unread data resets it.
				c.SetDeadline(time.Now().Add(5 * time.Second))
				if _, err := http.ReadRequest(bufio.NewReader(c)); err == nil {
					io.WriteString(c, "HTTP/1.0 200 OK\r\nContent-Length: 6\r\n\r\nhello\n")
				}
			}()
		}
	}()
	ts.Setenv(args[0], strconv.Itoa(l.Addr().(*net.TCPAddr).Port))
}
