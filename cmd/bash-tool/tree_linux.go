package main

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
)

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER for prctl(2).
const prSetChildSubreaper = 36

// adoptOrphans makes bash-tool the subreaper of the command's processes:
// one whose parent exits (a daemon's double fork, setsid -f) becomes
// bash-tool's child rather than init's, so killTree still finds it.
func adoptOrphans() {
	syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
}

// killTree sends sig to every descendant of bash-tool, whatever process
// group or session it moved to, and with SIGKILL repeats until none is
// left, reaping those that became bash-tool's children. bash-tool runs one
// command, so its descendants are that command's processes. Each process
// is signalled through a pidfd opened before checking that it is still a
// descendant, so a pid reused meanwhile is never signalled.
func killTree(sig syscall.Signal) {
	self := os.Getpid()
	for range 100 { // a fork bomb outruns any number of rounds; the group kill still applies
		pids := descendants(self)
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			p, err := os.FindProcess(pid) // holds a pidfd on Linux
			if err != nil {
				continue
			}
			if isDescendant(pid, self) {
				p.Signal(sig)
			}
			p.Release()
		}
		if sig != syscall.SIGKILL {
			return
		}
		reap()
	}
}

// reap collects the exit status of bash-tool's children that have
// exited: processes it adopted, once the command itself has been waited for.
func reap() {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		if pid <= 0 || errors.Is(err, syscall.ECHILD) {
			return
		}
	}
}

// descendants returns the live descendants of the process root, from the
// parent of every process in /proc. Zombies are dead already.
func descendants(root int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, state, ok := stat(pid); ok && state != 'Z' {
			children[ppid] = append(children[ppid], pid)
		}
	}
	var found []int
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		found = append(found, children[pid]...)
		queue = append(queue, children[pid]...)
	}
	return found
}

// isDescendant reports whether the process pid is a live descendant of
// root now.
func isDescendant(pid, root int) bool {
	if _, state, ok := stat(pid); !ok || state == 'Z' {
		return false
	}
	for range 1 << 22 { // no chain of parents is longer than pid_max
		ppid, _, ok := stat(pid)
		switch {
		case !ok || ppid <= 1:
			return false
		case ppid == root:
			return true
		}
		pid = ppid
	}
	return false
}

// stat reads the parent and the state of process pid from /proc/PID/stat.
func stat(pid int) (ppid int, state byte, ok bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// pid (comm) state ppid ...; comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, 0, false
	}
	fields := bytes.Fields(data[i+1:])
	if len(fields) < 2 || len(fields[0]) != 1 {
		return 0, 0, false
	}
	ppid, err = strconv.Atoi(string(fields[1]))
	return ppid, fields[0][0], err == nil
}
