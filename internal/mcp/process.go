package mcp

import (
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/ikigai-tools/ikigai/internal/config"
	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/toolsdk"
)

const (
	// stderrKept caps the server's stderr kept for failure envelopes, as
	// head and tail: how it started, and what it said last.
	stderrKept = 4 << 10
	// exitWait is how long a server has to exit once its stdin is closed
	// before it gets SIGTERM, and then Grace before SIGKILL.
	exitWait = 500 * time.Millisecond
	// drain is how long the server's output is still read once it has
	// exited, from a process that left its group holding the pipe.
	drain = time.Second
)

// process is a stdio MCP server's process. It runs in its own process
// group, so a Ctrl-C at the terminal does not reach it and it can be
// stopped with everything it started.
type process struct {
	cmd    *exec.Cmd
	stdin  *os.File // the write end of the server's stdin
	stdout *os.File // the read end of the server's stdout

	mu     sync.Mutex
	stderr *toolsdk.HeadTail

	exited chan struct{} // closed once the process has exited
}

// startProcess starts the server's command with the agent's working
// directory and environment plus the server's env.
func startProcess(cfg config.MCPServer) (*process, error) {
	p := &process{stderr: toolsdk.NewHeadTail(stderrKept), exited: make(chan struct{})}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, err
	}
	p.cmd = exec.Command(cfg.Command, cfg.Args...)
	p.cmd.Env = p.cmd.Environ()
	for k, v := range cfg.Env {
		p.cmd.Env = append(p.cmd.Env, k+"="+v)
	}
	// Files, not readers and writers: Wait then returns when the server
	// exits, not when whatever holds its pipes lets go of them.
	p.cmd.Stdin, p.cmd.Stdout, p.cmd.Stderr = inR, outW, errW
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = p.cmd.Start()
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, err
	}
	p.stdin, p.stdout = inW, outR
	stderrDone := make(chan struct{})
	go func() {
		io.Copy(lockedWriter{&p.mu, p.stderr}, errR)
		errR.Close()
		close(stderrDone)
	}()
	go func() {
		p.cmd.Wait()
		// The group lives as long as the server; what it leaves behind
		// cannot hold the pipes open for long either.
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		p.stdout.SetReadDeadline(time.Now().Add(drain))
		errR.SetReadDeadline(time.Now().Add(drain))
		<-stderrDone // so that stderrText is all of it once exited
		close(p.exited)
	}()
	return p, nil
}

// stop ends the server as the MCP specification asks: its stdin is
// closed, then it gets SIGTERM, then SIGKILL.
func (p *process) stop() {
	p.stdin.Close()
	if p.waitExit(exitWait) {
		return
	}
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	if p.waitExit(execute.Grace) {
		return
	}
	p.kill()
}

// kill ends the server at once.
func (p *process) kill() {
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.exited
}

// waitExit reports whether the server exits within d.
func (p *process) waitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

// exit describes how the server ended ("exit code 3", "signal SIGSEGV")
// and its exit code as a shell reports it, once it has exited; ok is
// false while it runs.
func (p *process) exit() (how string, code int, ok bool) {
	select {
	case <-p.exited:
	default:
		return "", 0, false
	}
	how, code = execute.Outcome{State: p.cmd.ProcessState}.Exit()
	return how, code, true
}

// stderrText returns what the server wrote on stderr, head and tail.
func (p *process) stderrText() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}
