package hostapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ikigai-tools/ikigai/internal/approval"
	"github.com/ikigai-tools/ikigai/internal/sandbox"
	"github.com/ikigai-tools/ikigai/toolsdk"
	"github.com/ikigai-tools/ikigai/toolsdk/host"
)

const (
	// JobNotFound is the error for a job id the session does not have.
	JobNotFound = "JOB_NOT_FOUND"
	// JobNotKept is job.start's error for keep where nothing can be kept.
	JobNotKept = "CANNOT_KEEP"
	// RingSize is how much of a job's output is kept for reading: the
	// latest bytes.
	RingSize = 256 << 10
	// defaultRead is the most one read returns unless it asks otherwise:
	// what fits in a tool's output.
	defaultRead = 32 << 10
	// jobGrace is how long a job has between SIGTERM and SIGKILL.
	jobGrace = 2 * time.Second
)

// Statuses of a job.
const (
	exited = "exited"
)

// jobs are the session's background jobs.
type jobs struct {
	s    *Server
	mu   sync.Mutex
	list []*job
	next int
}

// A job is a shell command running in a process group of its own, outside
// any call. Its output goes to a ring (or, for a job kept past the
// session, a file), read a piece at a time.
type job struct {
	id, command string
	pid         int
	keep        bool
	log, record string // a kept job's output file and record

	mu     sync.Mutex
	ring   ring
	read   int64 // how far reads have gone in the output
	status string
	exit   *int
	done   chan struct{} // closed when the process exited
}

// record is what is written down of a kept job, for the next session.
type record struct {
	ID      string    `json:"id"`
	PID     int       `json:"pid"`
	Start   uint64    `json:"start"` // the process's start time, in clock ticks after boot: its identity
	Command string    `json:"command"`
	Dir     string    `json:"dir"`
	Log     string    `json:"log"`
	Started time.Time `json:"started"`
}

func newJobs(s *Server) *jobs {
	j := &jobs{s: s}
	j.adopt()
	return j
}

func (js *jobs) keepDir() string {
	if js.s.opts.JobState == "" {
		return ""
	}
	return filepath.Join(js.s.opts.JobState, "jobs")
}

// adopt takes on the jobs an earlier session in the same directory kept:
// those still running can be read and killed as this session's own, and
// are kept again; those that ended are listed once.
func (js *jobs) adopt() {
	dir := js.keepDir()
	if dir == "" {
		return
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(path)
		var r record
		if err != nil || json.Unmarshal(data, &r) != nil || r.Dir != js.s.opts.Dir {
			continue
		}
		js.next++
		j := &job{id: fmt.Sprintf("job-%d", js.next), command: r.Command, pid: r.PID, keep: true, log: r.Log, record: path, status: running}
		if start, ok := processStart(r.PID); !ok || start != r.Start {
			j.status = exited
		}
		r.ID = j.id
		if data, err := json.Marshal(r); err == nil {
			os.WriteFile(path, data, 0o600)
		}
		js.list = append(js.list, j)
	}
}

// processStart returns when the process pid started, in clock ticks after
// boot, and whether it is alive.
func processStart(pid int) (uint64, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The command's name, in parentheses, may hold anything.
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 20 || fields[0] == "Z" {
		return 0, false
	}
	start, err := strconv.ParseUint(fields[19], 10, 64)
	return start, err == nil
}

// start runs command in the background, confined by box.
func (js *jobs) start(command string, keep bool, box *sandbox.Confinement) (*job, error) {
	js.mu.Lock()
	js.next++
	j := &job{id: fmt.Sprintf("job-%d", js.next), command: command, keep: keep, status: running, done: make(chan struct{})}
	js.mu.Unlock()

	shell := "/bin/sh"
	if p, err := exec.LookPath("bash"); err == nil {
		shell = p
	}
	cmd := exec.Command(shell, "-c", command)
	cmd.Dir = js.s.opts.Dir
	cleanup := func() {}
	if box != nil && box.Refused == "" {
		var err error
		if box, cleanup, err = box.WithTempDir("job"); err != nil {
			return nil, err
		}
	}
	// A job is no call: it gets no token.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, host.EnvAPI+"=") && !strings.HasPrefix(kv, host.EnvToken+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, box.Env()...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out, rd *os.File
	var err error
	if keep {
		// Output that outlives ikigai goes to a file: a pipe would break.
		j.log = filepath.Join(js.keepDir(), j.id+"-"+randomSuffix()+".log")
		if err = os.MkdirAll(js.keepDir(), 0o700); err == nil {
			out, err = os.OpenFile(j.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND|os.O_EXCL, 0o600)
		}
	} else {
		rd, out, err = os.Pipe()
	}
	if err != nil {
		cleanup()
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = out, out
	err = sandbox.Start(cmd, box)
	out.Close()
	if err != nil {
		cleanup()
		if rd != nil {
			rd.Close()
		}
		if keep {
			os.Remove(j.log)
		}
		return nil, err
	}
	j.pid = cmd.Process.Pid
	if rd != nil {
		js.s.serve.Go(func() {
			io.Copy(&j.ring, rd)
			rd.Close()
		})
	}
	if keep {
		if err := js.writeRecord(j); err != nil {
			j.kill()
			return nil, err
		}
	}
	waiter := js.s.serve.Go
	if keep {
		// ikigai does not wait for a kept job to end before it exits.
		waiter = func(f func()) { go f() }
	}
	waiter(func() {
		cmd.Wait()
		cleanup()
		code := exitCode(cmd.ProcessState)
		j.mu.Lock()
		if j.status == running {
			j.status = exited
		}
		j.exit = &code
		j.mu.Unlock()
		close(j.done)
	})
	js.mu.Lock()
	js.list = append(js.list, j)
	js.mu.Unlock()
	return j, nil
}

func (js *jobs) writeRecord(j *job) error {
	start, _ := processStart(j.pid)
	data, err := json.Marshal(record{ID: j.id, PID: j.pid, Start: start, Command: j.command, Dir: js.s.opts.Dir, Log: j.log, Started: time.Now().UTC()})
	if err != nil {
		return err
	}
	j.record = strings.TrimSuffix(j.log, ".log") + ".json"
	return os.WriteFile(j.record, data, 0o600)
}

func randomSuffix() string {
	var b [4]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func exitCode(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// kill ends the job's whole process group: SIGTERM, and SIGKILL once the
// command has exited or jobGrace has passed.
func (j *job) kill() {
	j.mu.Lock()
	if j.status == running {
		j.status = killed
	}
	j.mu.Unlock()
	syscall.Kill(-j.pid, syscall.SIGTERM)
	if j.done != nil {
		select {
		case <-j.done:
		case <-time.After(jobGrace):
		}
	} else {
		// An adopted job is not our child: watch for it to go.
		for end := time.Now().Add(jobGrace); alive(j.pid) && time.Now().Before(end); {
			time.Sleep(20 * time.Millisecond)
		}
	}
	syscall.Kill(-j.pid, syscall.SIGKILL)
	if j.done != nil {
		<-j.done
	}
	j.forget()
}

func alive(pid int) bool {
	_, ok := processStart(pid)
	return ok
}

// forget removes what was written down of a kept job.
func (j *job) forget() {
	if j.record != "" {
		os.Remove(j.record)
		os.Remove(j.log)
	}
}

// snapshot is the job's state; with output, what it printed since the last
// read, at most max bytes (the latest).
func (j *job) snapshot(output bool, max int) host.Job {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.done == nil && j.status == running && !alive(j.pid) {
		j.status = exited
	}
	st := host.Job{ID: j.id, Command: j.command, PID: j.pid, Status: j.status, ExitCode: j.exit, Kept: j.keep}
	if !output {
		return st
	}
	var data []byte
	var dropped int64
	if j.log != "" {
		data, dropped = j.readLog()
	} else {
		data, dropped, j.read = j.ring.since(j.read)
	}
	if len(data) > max {
		dropped += int64(len(data) - max)
		data = data[len(data)-max:]
	}
	text := strings.ToValidUTF8(string(data), "\uFFFD")
	st.Output, st.Dropped = &text, dropped
	return st
}

// readLog reads a kept job's file from where the last read stopped, at
// most RingSize bytes of it: the latest.
func (j *job) readLog() ([]byte, int64) {
	f, err := os.Open(j.log)
	if err != nil {
		return nil, 0
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0
	}
	from, dropped := j.read, int64(0)
	if fi.Size()-from > RingSize {
		dropped = fi.Size() - RingSize - from
		from = fi.Size() - RingSize
	}
	data := make([]byte, fi.Size()-from)
	n, _ := f.ReadAt(data, from)
	j.read = from + int64(n)
	return data[:n], dropped
}

func (js *jobs) find(id string) (*job, error) {
	js.mu.Lock()
	defer js.mu.Unlock()
	for _, j := range js.list {
		if j.id == id {
			return j, nil
		}
	}
	return nil, toolsdk.Errorf(JobNotFound, "Error: no job '%s' in this session (job.list lists them)", id)
}

func (js *jobs) snapshots() []host.Job {
	js.mu.Lock()
	list := append([]*job(nil), js.list...)
	js.mu.Unlock()
	out := []host.Job{}
	for _, j := range list {
		out = append(out, j.snapshot(false, 0))
	}
	return out
}

// close ends every job that is not kept, all at once; a kept job that
// ended is forgotten.
func (js *jobs) close() {
	js.mu.Lock()
	list := js.list
	js.mu.Unlock()
	var wg sync.WaitGroup
	for _, j := range list {
		st := j.snapshot(false, 0)
		switch {
		case !j.keep:
			wg.Go(j.kill)
		case st.Status != running:
			j.forget()
		}
	}
	wg.Wait()
}

// Jobs returns the session's jobs, for /jobs.
func (s *Server) Jobs() []host.Job { return s.jobs.snapshots() }

func jobStart(s *Server, ctx context.Context, cl *call, op string, args json.RawMessage) (any, error) {
	var a host.JobStart
	if err := decodeArgs(op, args, &a); err != nil {
		return nil, err
	}
	if strings.TrimSpace(a.Command) == "" {
		return nil, badRequest("command is empty")
	}
	if a.Keep && s.jobs.keepDir() == "" {
		return nil, toolsdk.Errorf(JobNotKept, "Error: a job cannot be kept: ikigai has no state directory to record it in")
	}
	// A job runs what it is given, as the calling tool would if it could
	// change things: it is approved as such a call, whatever the tool says
	// of itself.
	if p := cl.Agent.Policy; p != nil {
		ok, reason := p.Decide(ctx, approval.Request{Tool: cl.Name, Args: args})
		if !ok {
			return nil, toolsdk.Errorf(host.Denied, "Error: starting the job was refused: %s", reason)
		}
	}
	j, err := s.jobs.start(a.Command, a.Keep, s.opts.Sandbox.For(cl.Name, false, nil))
	if err != nil {
		if sandbox.IsError(err) {
			return nil, toolsdk.Errorf("SANDBOX_FAILED", "Error: starting the job: %v", err)
		}
		return nil, toolsdk.Errorf("START_FAILED", "Error: starting the job: %v", err)
	}
	return j.snapshot(false, 0), nil
}

func jobRead(s *Server, ctx context.Context, cl *call, op string, args json.RawMessage) (any, error) {
	var a host.JobRead
	if err := decodeArgs(op, args, &a); err != nil {
		return nil, err
	}
	j, err := s.jobs.find(a.ID)
	if err != nil {
		return nil, err
	}
	max := a.MaxBytes
	if max <= 0 {
		max = defaultRead
	}
	return j.snapshot(true, max), nil
}

func jobKill(s *Server, ctx context.Context, cl *call, op string, args json.RawMessage) (any, error) {
	var a host.JobRef
	if err := decodeArgs(op, args, &a); err != nil {
		return nil, err
	}
	j, err := s.jobs.find(a.ID)
	if err != nil {
		return nil, err
	}
	j.kill()
	return j.snapshot(false, 0), nil
}

func jobList(s *Server, ctx context.Context, cl *call, op string, args json.RawMessage) (any, error) {
	if err := decodeArgs(op, args, &struct{}{}); err != nil {
		return nil, err
	}
	return host.JobList{Jobs: s.jobs.snapshots()}, nil
}

// ring keeps the latest RingSize bytes written to it.
type ring struct {
	mu    sync.Mutex
	buf   []byte
	total int64 // bytes ever written
}

// since returns what was written after the first off bytes, how many of
// those bytes are lost (overwritten), and how many were written in all.
func (r *ring) since(off int64) ([]byte, int64, int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	start := max(off, r.total-int64(len(r.buf)))
	out := make([]byte, 0, r.total-start)
	for i := start; i < r.total; i++ {
		out = append(out, r.buf[i%int64(len(r.buf))])
	}
	return out, start - off, r.total
}

func (r *ring) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.buf == nil {
		r.buf = make([]byte, RingSize)
	}
	for _, b := range p {
		r.buf[r.total%RingSize] = b
		r.total++
	}
	return len(p), nil
}
