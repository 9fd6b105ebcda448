package execute

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// A cgroup is the cgroup (v2) of one Tree, made inside ikigai's own.
type cgroup struct {
	dir, parent string
	fd          int // the directory, open for clone3 until the start
}

// cgroupParent returns the directory to make the trees' cgroups in, or ""
// when there is none to use. A variable, so that a test can give its own.
var cgroupParent = sync.OnceValue(func() string {
	dir := ownCgroup()
	if dir == "" || !delegated(dir) || !canStartIn(dir) {
		return ""
	}
	return dir
})

// cgroupCount numbers the cgroups of this process.
var cgroupCount atomic.Int64

// newCgroup makes a cgroup for a tree, or returns nil when there is none
// to use.
func newCgroup() *cgroup {
	parent := cgroupParent()
	if parent == "" {
		return nil
	}
	dir := filepath.Join(parent, fmt.Sprintf("ikigai-%d-%d", os.Getpid(), cgroupCount.Add(1)))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil
	}
	fd, err := unix.Open(dir, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		unix.Rmdir(dir)
		return nil
	}
	return &cgroup{dir: dir, parent: parent, fd: fd}
}

func (c *cgroup) closeFD() {
	unix.Close(c.fd)
	c.fd = -1
}

// signal sends sig to every process in the cgroup; SIGKILL through
// cgroup.kill, which no fork escapes.
func (c *cgroup) signal(sig syscall.Signal) {
	if sig == syscall.SIGKILL && os.WriteFile(filepath.Join(c.dir, "cgroup.kill"), []byte("1"), 0) == nil {
		return
	}
	for _, pid := range c.procs() {
		syscall.Kill(pid, sig)
	}
}

// procs returns the processes in the cgroup.
func (c *cgroup) procs() []int {
	data, _ := os.ReadFile(filepath.Join(c.dir, "cgroup.procs"))
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		if pid, err := strconv.Atoi(f); err == nil {
			pids = append(pids, pid)
		}
	}
	return pids
}

// release removes the cgroup. The processes still in it (those a tool
// started to outlive it) move to ikigai's cgroup, where they would have
// been without one; a cgroup whose processes are still dying is waited
// for, briefly.
func (c *cgroup) release() {
	if c.fd >= 0 {
		c.closeFD()
	}
	for range 100 {
		err := unix.Rmdir(c.dir)
		if err == nil || !errors.Is(err, unix.EBUSY) {
			return
		}
		moved := false
		for _, pid := range c.procs() {
			os.WriteFile(filepath.Join(c.parent, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0)
			moved = true
		}
		if !moved {
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// ownCgroup returns the directory of ikigai's cgroup in the cgroup v2
// hierarchy, or "" when there is none (cgroup v1 only, no /proc).
func ownCgroup() string {
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return ""
	}
	path := ""
	for line := range strings.Lines(string(data)) {
		if p, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), "0::"); ok {
			path = p
		}
	}
	if path == "" {
		return ""
	}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// ID PARENT MAJOR:MINOR ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS
		before, after, ok := strings.Cut(sc.Text(), " - ")
		fields := strings.Fields(before)
		if !ok || len(fields) < 5 || !strings.HasPrefix(after, "cgroup2 ") {
			continue
		}
		root, mount := unescape(fields[3]), unescape(fields[4])
		rel, err := filepath.Rel(root, path)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		return filepath.Join(mount, rel)
	}
	return ""
}

// unescape undoes mountinfo's octal escapes (\040 for a space).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// delegated reports whether the cgroup at dir is ikigai's to divide: the
// user's service manager made it for the user (it belongs to the user),
// or a service manager marked it or one above it as delegated (systemd's
// user.delegate or trusted.delegate). A cgroup merely writable, such as
// root's own in a container, is left alone.
func delegated(dir string) bool {
	var st unix.Stat_t
	if euid := os.Geteuid(); euid != 0 && unix.Stat(dir, &st) == nil && int(st.Uid) == euid {
		return true
	}
	for d := dir; ; d = filepath.Dir(d) {
		for _, attr := range []string{"user.delegate", "trusted.delegate"} {
			buf := make([]byte, 8)
			if n, err := unix.Getxattr(d, attr, buf); err == nil && string(buf[:n]) == "1" {
				return true
			}
		}
		var fs unix.Statfs_t
		if d == "/" || unix.Statfs(filepath.Dir(d), &fs) != nil || fs.Type != unix.CGROUP2_SUPER_MAGIC {
			return false
		}
	}
}

// canStartIn reports whether a process can be started in a new cgroup
// inside dir (clone3 with CLONE_INTO_CGROUP, Linux 5.7): a start of a
// program that does not exist fails in the child, after the clone, with
// ENOENT; a clone the kernel refuses fails with another error.
func canStartIn(dir string) bool {
	c := &cgroup{dir: filepath.Join(dir, fmt.Sprintf("ikigai-%d-probe", os.Getpid())), parent: dir}
	if os.Mkdir(c.dir, 0o755) != nil {
		return false
	}
	defer c.release()
	fd, err := unix.Open(c.dir, unix.O_DIRECTORY|unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	c.fd = fd
	_, err = os.StartProcess("/nonexistent/ikigai-cgroup-probe", []string{"probe"}, &os.ProcAttr{
		Sys: &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd},
	})
	return errors.Is(err, syscall.ENOENT)
}
