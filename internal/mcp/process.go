package mcp

import (
	"io"
	"maps"
	"os"
	"os/exec"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/ikigai-tools/ikigai/internal/config"
	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/sandbox"
	"github.com/ikigai-tools/ikigai/toolsdk/output" // as internal/execute keeps a tool's stderr
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

// process is a stdio MCP server's process: an execute.Tree, in a session
// of its own, so a Ctrl-C at the terminal does not reach it, it has no
// controlling terminal, and it can be stopped with everything it started.
type process struct {
	cmd    *exec.Cmd
	tree   execute.Tree
	stdin  *os.File // the write end of the server's stdin
	stdout *os.File // the read end of the server's stdout

	mu     sync.Mutex
	stderr *output.HeadTail

	exited chan struct{} // closed once the process has exited
}

// startProcess starts the server's command with the agent's working
// directory, env's environment, and the server's own env entries, which
// apply whatever env leaves out.
func startProcess(cfg config.MCPServer, env execute.Env) (*process, error) {
	p := &process{stderr: output.NewHeadTail(stderrKept), exited: make(chan struct{})}
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
	var own []string
	for _, k := range slices.Sorted(maps.Keys(cfg.Env)) {
		own = append(own, k+"="+cfg.Env[k])
	}
	p.cmd.Env = env.Environ(own...)
	p.cmd.Dir = cfg.Cwd
	// Files, not readers and writers: Wait then returns when the server
	// exits, not when whatever holds its pipes lets go of them.
	p.cmd.Stdin, p.cmd.Stdout, p.cmd.Stderr = inR, outW, errW
	box, cleanup, err := confinement(cfg)
	if err == nil {
		p.cmd.Env = append(p.cmd.Env, box.Env()...)
		err = p.tree.Start(p.cmd, box)
	}
	inR.Close()
	outW.Close()
	errW.Close()
	if err != nil {
		cleanup()
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
		p.tree.KillGroup()
		p.stdout.SetReadDeadline(time.Now().Add(drain))
		errR.SetReadDeadline(time.Now().Add(drain))
		<-stderrDone // so that stderrText is all of it once exited
		p.tree.Close()
		cleanup()
		close(p.exited)
	}()
	return p, nil
}

// confinement returns the confinement of the server's process, with a
// temporary directory of its own that done removes; nil when it runs
// unconfined.
func confinement(cfg config.MCPServer) (box *sandbox.Confinement, done func(), err error) {
	box = cfg.Confinement
	if box == nil || box.Refused != "" {
		return box, func() {}, nil
	}
	return box.WithTempDir("mcp")
}

// stop ends the server as the MCP specification asks: its stdin is
// closed, then it gets SIGTERM, then SIGKILL, with everything it started.
func (p *process) stop() {
	p.stdin.Close()
	if p.waitExit(exitWait) {
		return
	}
	p.tree.Signal(syscall.SIGTERM)
	if p.waitExit(execute.Grace) {
		return
	}
	p.kill()
}

// kill ends the server, and everything it started, at once.
func (p *process) kill() {
	p.tree.Kill()
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
