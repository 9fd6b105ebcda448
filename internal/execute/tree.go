package execute

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/ikigai-tools/ikigai/internal/sandbox"
	"golang.org/x/sys/unix"
)

// A Tree is a process ikigai starts for a tool (an executable, an MCP
// server), and every process it starts in turn, wherever they go: into
// another process group, into a session of their own with setsid, or to
// ikigai when their parent exits. Its zero value is ready for Start.
//
// A Tree is started in a new session, so that it has no controlling
// terminal (nothing it runs can write to the user's terminal behind the
// display's back, or read from it) and leads its own process group. It
// gets SIGTERM if ikigai dies (a parent death signal), as it would at a
// timeout, so that it can stop what it started. Where ikigai has a
// delegated cgroup (v2), the process starts in a cgroup of its own, which
// holds everything it starts; elsewhere ikigai is the subreaper of
// whatever the tree leaves behind, and finds its members through /proc.
type Tree struct {
	mu     sync.Mutex // held from the start of Start to its end
	pid    int
	cgroup *cgroup // nil without one
	// members are the processes found in the tree (the process itself
	// first), pinned by pidfds so that a pid reused later is never
	// signalled.
	members map[int]member
}

type member struct {
	fd    int
	start uint64 // the start time /proc gives, which tells a reused pid
}

// Start starts cmd as the tree's process, confined by box (nil for not at
// all, as sandbox.Start does): in a new session, with the parent death
// signal, in the tree's cgroup if there is one, and with Env{}.Environ()
// as its environment if cmd.Env is nil. It replaces cmd.SysProcAttr. The
// caller waits for cmd, then calls Close.
//
// The parent death signal is sent when the thread that started the
// process exits, not the process (go.dev/issue/27505). That is safe here:
// the Go runtime ends a thread only when a goroutine locked to it (with
// runtime.LockOSThread) exits without unlocking, and no goroutine that
// starts tools locks its thread; a confined process is started from a
// locked thread that sandbox.Start keeps until the process has exited.
func (t *Tree) Start(cmd *exec.Cmd, box *sandbox.Confinement) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	becomeSubreaper()
	if cmd.Env == nil {
		cmd.Env = Env{}.Environ()
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGTERM}
	if cg := newCgroup(); cg != nil {
		cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, cg.fd
		err := startChild(cmd, box)
		cg.closeFD()
		if err != nil {
			cg.release()
			return err
		}
		t.cgroup = cg
	} else if err := startChild(cmd, box); err != nil {
		return err
	}
	t.started(cmd.Process.Pid)
	return nil
}

// started records the process that was started, with t.mu held.
func (t *Tree) started(pid int) {
	t.pid = pid
	t.members = map[int]member{}
	// Not yet waited for, so the pid cannot be another's.
	if st, err := readStat(pid); err == nil {
		if fd, err := unix.PidfdOpen(pid, 0); err == nil {
			t.members[pid] = member{fd: fd, start: st.start}
		}
	}
}

// Signal sends sig to every process of the tree: its process group, and
// every member. With a cgroup the members are its processes; without,
// the processes of its session and their descendants, found through /proc
// while the tree is stopped (SIGSTOP to each member, and to each process
// as it is found, until no new one appears), so that none can fork or
// exit out of sight; they are continued after sig. The processes found
// stay members, and get later signals, even once they have left the
// tree's parentage.
func (t *Tree) Signal(sig syscall.Signal) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pid == 0 {
		return
	}
	if t.cgroup != nil {
		syscall.Kill(-t.pid, sig)
		t.cgroup.signal(sig)
		return
	}
	t.each(syscall.SIGSTOP)
	t.collect()
	syscall.Kill(-t.pid, sig)
	t.each(sig)
	if sig != syscall.SIGKILL {
		t.each(syscall.SIGCONT)
	}
}

// Kill sends SIGKILL to every process of the tree.
func (t *Tree) Kill() { t.Signal(syscall.SIGKILL) }

// KillGroup sends SIGKILL to the tree's process group only: what a tool
// leaves in its group when it exits goes with it, while what it started on
// purpose in a group or session of its own (a server) stays.
func (t *Tree) KillGroup() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pid != 0 {
		syscall.Kill(-t.pid, syscall.SIGKILL)
	}
}

// Close releases the tree once its process has been waited for: the
// pidfds, and the cgroup, whose remaining processes (those that survive
// their tool on purpose) move to ikigai's own cgroup.
func (t *Tree) Close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.pid == 0 {
		return
	}
	for _, m := range t.members {
		unix.Close(m.fd)
	}
	t.members = nil
	if t.cgroup != nil {
		t.cgroup.release()
		t.cgroup = nil
	}
	children.Lock()
	children.ours[t.pid]--
	if children.ours[t.pid] <= 0 {
		delete(children.ours, t.pid)
	}
	children.Unlock()
	t.pid = 0
}

// each sends sig to every member.
func (t *Tree) each(sig syscall.Signal) {
	for _, m := range t.members {
		unix.PidfdSendSignal(m.fd, sig, nil, 0)
	}
}

// maxRounds bounds the scans of /proc for members: each round stops what
// it finds, so only a process forked between a scan and its parent's stop
// needs another.
const maxRounds = 16

// collect adds to the members, with t.mu held, the processes of the tree
// that are not members yet, stopping each one: the processes of the
// tree's session (the session cannot be joined, and its id cannot be
// reused while it has a process) and the children of members, the
// children of the children, and so on.
func (t *Tree) collect() {
	for range maxRounds {
		procs := scanProcs()
		byParent := map[int][]procStat{}
		alive := map[int]bool{}
		var queue []int
		for _, p := range procs {
			byParent[p.ppid] = append(byParent[p.ppid], p)
			if m, ok := t.members[p.pid]; ok && m.start == p.start {
				alive[p.pid] = true
				queue = append(queue, p.pid)
			}
		}
		var found []procStat
		seen := map[int]bool{}
		add := func(p procStat) {
			if !seen[p.pid] && !alive[p.pid] && p.state != 'Z' {
				seen[p.pid] = true
				found = append(found, p)
				queue = append(queue, p.pid)
			}
		}
		for _, p := range procs {
			if p.sid == t.pid {
				add(p)
			}
		}
		for len(queue) > 0 {
			pid := queue[0]
			queue = queue[1:]
			for _, c := range byParent[pid] {
				add(c)
			}
		}
		if len(found) == 0 {
			return
		}
		for _, p := range found {
			fd, err := unix.PidfdOpen(p.pid, 0)
			if err != nil {
				continue // gone
			}
			// The pid might have been reused between the scan and the
			// open: the start time tells.
			if st, err := readStat(p.pid); err != nil || st.start != p.start {
				unix.Close(fd)
				continue
			}
			unix.PidfdSendSignal(fd, syscall.SIGSTOP, nil, 0)
			if old, ok := t.members[p.pid]; ok {
				unix.Close(old.fd)
			}
			t.members[p.pid] = member{fd: fd, start: p.start}
		}
	}
}

// procStat is what /proc/PID/stat says of a process.
type procStat struct {
	pid, ppid, sid int
	state          byte
	start          uint64
}

// readStat reads /proc/PID/stat.
func readStat(pid int) (procStat, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, err
	}
	// The command name, in parentheses, may hold spaces and parentheses:
	// the fields that follow are after the last ')'.
	i := strings.LastIndexByte(string(data), ')')
	if i < 0 || i+2 > len(data) {
		return procStat{}, errors.New("malformed stat")
	}
	f := strings.Fields(string(data[i+2:]))
	if len(f) < 20 {
		return procStat{}, errors.New("malformed stat")
	}
	p := procStat{pid: pid, state: f[0][0]}
	p.ppid, _ = strconv.Atoi(f[1])
	p.sid, _ = strconv.Atoi(f[3])
	p.start, _ = strconv.ParseUint(f[19], 10, 64)
	return p, nil
}

// scanProcs reads the stat of every process in /proc.
func scanProcs() []procStat {
	entries, _ := os.ReadDir("/proc")
	var procs []procStat
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, err := readStat(pid); err == nil {
			procs = append(procs, p)
		}
	}
	return procs
}

// children are the processes started with Start and not closed yet: the
// reaper leaves them to os/exec, which waits for them.
var children struct {
	sync.Mutex
	ours map[int]int // pid: starts not yet closed
}

// startChild starts cmd, confined by box, and records it as one of ours,
// as one step, so that the reaper cannot take it first.
func startChild(cmd *exec.Cmd, box *sandbox.Confinement) error {
	children.Lock()
	defer children.Unlock()
	if err := sandbox.Start(cmd, box); err != nil {
		return err
	}
	if children.ours == nil {
		children.ours = map[int]int{}
	}
	children.ours[cmd.Process.Pid]++
	return nil
}

var subreaper sync.Once

// becomeSubreaper makes ikigai the subreaper of the processes its tools
// leave behind (PR_SET_CHILD_SUBREAPER): they become its children instead
// of init's, so they stay in reach of Signal, and ikigai must reap them
// when they exit. It reaps them on SIGCHLD.
func becomeSubreaper() {
	subreaper.Do(func() {
		if unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != nil {
			return
		}
		sigchld := make(chan os.Signal, 1)
		signal.Notify(sigchld, syscall.SIGCHLD)
		session, _ := unix.Getsid(0)
		go func() {
			for range sigchld {
				reapOrphans(session)
			}
		}()
	})
}

// reapOrphans reaps the processes ikigai adopted as a subreaper that have
// exited. It leaves alone its own children: those started with Start,
// which os/exec waits for, and those other code started in ikigai's own
// session, which their starters wait for. An adopted process comes from a
// tool's session, or from a session of its own.
func reapOrphans(session int) {
	// Most of the time the child that exited was one of ours, which
	// os/exec has reaped already: when no child is waitable, there is no
	// need to look further.
	var info unix.Siginfo
	if unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil) != nil || info.Signo == 0 {
		return
	}
	children.Lock()
	defer children.Unlock()
	for _, pid := range childPids() {
		if children.ours[pid] > 0 {
			continue
		}
		if sid, err := unix.Getsid(pid); err != nil || sid == session {
			continue
		}
		var ws unix.WaitStatus
		unix.Wait4(pid, &ws, unix.WNOHANG, nil)
	}
}

// childPids returns the pids of ikigai's children, from each thread's
// children file, else from a scan of /proc.
func childPids() []int {
	var pids []int
	if tasks, err := os.ReadDir("/proc/self/task"); err == nil {
		complete := true
		for _, task := range tasks {
			data, err := os.ReadFile("/proc/self/task/" + task.Name() + "/children")
			if errors.Is(err, fs.ErrNotExist) {
				// A thread that has just exited, or a kernel without
				// the children files: the scan is certain.
				complete = false
				break
			}
			for _, f := range strings.Fields(string(data)) {
				if pid, err := strconv.Atoi(f); err == nil {
					pids = append(pids, pid)
				}
			}
		}
		if complete {
			return pids
		}
	}
	self := os.Getpid()
	pids = pids[:0]
	for _, p := range scanProcs() {
		if p.ppid == self {
			pids = append(pids, p.pid)
		}
	}
	return pids
}
