// Command spawn runs commands for the bench and reports their wall time and
// peak memory. It exists because a child's peak RSS, as the kernel reports
// it, starts at its parent's: launched straight from the bench process,
// every command would seem to use at least the bench's own memory. spawn
// stays small, so what it reports is the command's.
//
// Each command runs in a process group of its own. When it exits, whatever
// it left behind (a background worker, a telemetry flush) is killed with
// the group and reaped: spawn is a child subreaper, so orphans come back
// to it rather than to init. A descendant that left the group as well is
// killed too, and counted.
//
// It reads one JSON request per line on stdin and answers each with one
// JSON line on stdout.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type request struct {
	Argv   []string `json:"argv"`
	Dir    string   `json:"dir"`
	Env    []string `json:"env"` // the whole environment
	Stdin  string   `json:"stdin"`
	Stdout string   `json:"stdout"`
	// SampleMS, if positive, samples the memory of the command's whole
	// process tree every so many milliseconds while it runs (and every
	// millisecond at first).
	SampleMS int `json:"sample_ms,omitempty"`
	// TimeoutMS, if positive, kills the command's process group after so
	// many milliseconds.
	TimeoutMS int `json:"timeout_ms,omitempty"`
}

type reply struct {
	Start  int64 `json:"start_unix_nano"` // wall clock, just before the process started
	Nanos  int64 `json:"nanos"`
	MaxRSS int64 `json:"maxrss_kib"`
	// TreePeak is the largest sum of the proportional set sizes (PSS) of
	// the command and all its descendants seen while sampling, in KiB.
	TreePeak int64  `json:"tree_peak_kib,omitempty"`
	Strays   int    `json:"strays,omitempty"` // descendants that had left the process group
	TimedOut bool   `json:"timed_out,omitempty"`
	Exit     int    `json:"exit"`
	Error    string `json:"error,omitempty"`
	Stderr   string `json:"stderr,omitempty"`
}

func main() {
	// Every command's peak starts at this process's own: keep it low.
	debug.SetGCPercent(5)
	syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 64<<20)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req request
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			out.Encode(reply{Error: err.Error()})
			continue
		}
		out.Encode(run(req))
	}
}

const prSetChildSubreaper = 36

// stderrLimit is how much of a command's standard error a reply carries:
// the end of it, where the reason for a failure usually is.
const stderrLimit = 16 << 10

func run(req request) reply {
	stdin, err := os.Open(req.Stdin)
	if err != nil {
		return reply{Error: err.Error()}
	}
	defer stdin.Close()
	stdout, err := os.Create(req.Stdout)
	if err != nil {
		return reply{Error: err.Error()}
	}
	defer stdout.Close()
	// Standard error goes to a file, not a pipe, so that the wait ends when
	// the command does, not when the last process holding the pipe does.
	stderr, err := os.CreateTemp("", "spawn-stderr-")
	if err != nil {
		return reply{Error: err.Error()}
	}
	defer os.Remove(stderr.Name())
	defer stderr.Close()
	ctx := context.Background()
	if req.TimeoutMS > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(req.TimeoutMS)*time.Millisecond)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, req.Argv[0], req.Argv[1:]...)
	cmd.Dir, cmd.Env = req.Dir, req.Env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var r reply
	start := time.Now()
	r.Start = start.UnixNano()
	if err := cmd.Start(); err != nil {
		r.Error = err.Error()
		return r
	}
	peak := make(chan int64, 1)
	stop := make(chan struct{})
	if req.SampleMS > 0 {
		go sample(time.Duration(req.SampleMS)*time.Millisecond, stop, peak)
	}
	err = cmd.Wait()
	r.Nanos = int64(time.Since(start))
	// Killed, and the deadline passed: the command did not end by itself.
	r.TimedOut = ctx.Err() != nil && cmd.ProcessState != nil && !cmd.ProcessState.Exited()
	if req.SampleMS > 0 {
		close(stop)
		r.TreePeak = <-peak
	}
	r.Strays = cleanUp(cmd.Process.Pid)
	r.Stderr = tail(stderr)
	if cmd.ProcessState == nil {
		r.Error = err.Error()
		return r
	}
	r.Exit = cmd.ProcessState.ExitCode()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.MaxRSS = ru.Maxrss
	}
	return r
}

// cleanUp kills the process group led by pid and reaps its members, which
// come back to this process as their parents die; then it does the same
// for any other descendant still alive, and returns how many of those
// there were.
func cleanUp(pid int) int {
	reapGroup(pid)
	strays := 0
	for _, child := range children(os.Getpid()) {
		strays++
		syscall.Kill(-child, syscall.SIGKILL) // in case it leads a group of its own
		syscall.Kill(child, syscall.SIGKILL)
		reapGroup(child)
		var ws syscall.WaitStatus
		syscall.Wait4(child, &ws, 0, nil)
	}
	return strays
}

// reapGroup kills process group pgid and waits, for up to five seconds,
// until none of its members is left.
func reapGroup(pgid int) {
	syscall.Kill(-pgid, syscall.SIGKILL)
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		var ws syscall.WaitStatus
		for {
			if p, _ := syscall.Wait4(-pgid, &ws, syscall.WNOHANG, nil); p <= 0 {
				break
			}
		}
		if syscall.Kill(-pgid, 0) == syscall.ESRCH {
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// sample adds up the PSS of this process's descendants until stop closes,
// and then sends the largest sum seen: every millisecond for the first
// 50 ms, so that a short run is seen too, then every interval.
func sample(interval time.Duration, stop <-chan struct{}, peak chan<- int64) {
	var most int64
	start := time.Now()
	self := os.Getpid()
	for {
		var sum int64
		for _, pid := range descendants(self) {
			sum += pss(pid)
		}
		most = max(most, sum)
		wait := interval
		if time.Since(start) < 50*time.Millisecond {
			wait = time.Millisecond
		}
		select {
		case <-stop:
			peak <- most
			return
		case <-time.After(wait):
		}
	}
}

// children returns the processes whose parent is pid, from the children
// file of each of its threads.
func children(pid int) []int {
	var out []int
	tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	for _, f := range tasks {
		data, _ := os.ReadFile(f)
		for _, field := range strings.Fields(string(data)) {
			if c, err := strconv.Atoi(field); err == nil {
				out = append(out, c)
			}
		}
	}
	return out
}

func descendants(pid int) []int {
	var out []int
	queue := children(pid)
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		out = append(out, p)
		queue = append(queue, children(p)...)
	}
	return out
}

// pss returns a process's proportional set size in KiB, or 0 if it has
// gone.
func pss(pid int) int64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	if err != nil {
		return 0
	}
	for line := range bytes.Lines(data) {
		if rest, ok := bytes.CutPrefix(line, []byte("Pss:")); ok {
			kib, _ := strconv.ParseInt(string(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte(" kB"))), 10, 64)
			return kib
		}
	}
	return 0
}

func tail(f *os.File) string {
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return ""
	}
	from := max(0, size-stderrLimit)
	buf := make([]byte, size-from)
	n, _ := f.ReadAt(buf, from)
	return string(buf[:n])
}
