// Command spawn runs commands for the bench and reports their wall time and
// peak memory. It exists because a child's peak RSS, as the kernel reports
// it, starts at its parent's: launched straight from the bench process,
// every command would seem to use at least the bench's own memory. spawn
// stays small, so what it reports is the command's.
//
// It reads one JSON request per line on stdin and answers each with one
// JSON line on stdout.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"runtime/debug"
	"syscall"
	"time"
)

type request struct {
	Argv   []string `json:"argv"`
	Dir    string   `json:"dir"`
	Env    []string `json:"env"` // the whole environment
	Stdin  string   `json:"stdin"`
	Stdout string   `json:"stdout"`
}

type reply struct {
	Nanos  int64  `json:"nanos"`
	MaxRSS int64  `json:"maxrss_kib"`
	Exit   int    `json:"exit"`
	Error  string `json:"error,omitempty"`
	Stderr string `json:"stderr,omitempty"`
}

func main() {
	// Every command's peak starts at this process's own: keep it low.
	debug.SetGCPercent(5)
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
	var stderr bytes.Buffer
	cmd := exec.Command(req.Argv[0], req.Argv[1:]...)
	cmd.Dir, cmd.Env = req.Dir, req.Env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	r := reply{Nanos: int64(time.Since(start)), Stderr: stderr.String()}
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
