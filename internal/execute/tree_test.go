package execute

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// gone waits up to ten seconds for the process pid to be gone: dead and
// reaped, not a zombie.
func gone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
			return
		}
	}
	st, _ := readStat(pid)
	t.Errorf("process %d is still there (state %c)", pid, st.state)
}

// pidIn reads the pid a script wrote to file, waiting for it.
func pidIn(t *testing.T, file string) int {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		data, err := os.ReadFile(file)
		if pid, err2 := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && err2 == nil {
			return pid
		}
	}
	t.Fatalf("no pid in %s", file)
	return 0
}

// killAtEnd kills the process pid when the test ends, whatever happened.
func killAtEnd(t *testing.T, pid int) {
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
}

// The tool gets the agent's environment less the providers' variables and
// what Exclude names, plus its own.
func TestRunEnvironment(t *testing.T) {
	for k, v := range map[string]string{
		"ANTHROPIC_API_KEY": "sk-ant-x", "OPENAI_API_KEY": "sk-x", "ANTHROPIC_BASE_URL": "http://a", "OPENAI_BASE_URL": "http://o",
		"AWS_SECRET_ACCESS_KEY": "aws", "GITHUB_TOKEN": "gh", "KEEP_ME": "kept",
	} {
		t.Setenv(k, v)
	}
	p := Program{Name: "t", Path: script(t, `env | grep -E '^(ANTHROPIC_API_KEY|OPENAI_API_KEY|ANTHROPIC_BASE_URL|OPENAI_BASE_URL|AWS_SECRET_ACCESS_KEY|GITHUB_TOKEN|KEEP_ME|IKIGAI_TOOL_NAME|IKIGAI_TOOL_TIMEOUT_MS)=' | sort | sed 's/.*/"&"/' | paste -sd, | sed 's/.*/{"env":[&]}/'`),
		Env: Env{Exclude: []string{"AWS_*", "*_TOKEN"}}}
	got := p.Run(context.Background(), json.RawMessage(`{}`), time.Second)
	want := Succeeded(json.RawMessage(`{"env":["IKIGAI_TOOL_NAME=t","IKIGAI_TOOL_TIMEOUT_MS=1000","KEEP_ME=kept"]}`))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("envelope (-want +got):\n%s", diff)
	}
}

// A tool leads a session of its own, so it has no controlling terminal.
func TestRunNewSession(t *testing.T) {
	p := Program{Name: "t", Path: script(t, `set -- $(cat /proc/$$/stat); echo "{\"pid\":$1,\"sid\":$6,\"tty\":$7}"`)}
	got := p.Run(context.Background(), json.RawMessage(`{}`), 0)
	var ids struct{ Pid, Sid, Tty int }
	if err := json.Unmarshal(got.Result, &ids); err != nil || ids.Sid != ids.Pid || ids.Tty != 0 {
		t.Errorf("got %s", got.JSON())
	}
}

// A process that left the tool's session with setsid is killed with the
// tool on timeout and on cancellation, and reaped.
func TestRunKillsWhatLeftTheSession(t *testing.T) {
	for _, cancelled := range []bool{false, true} {
		t.Run(fmt.Sprintf("cancelled=%v", cancelled), func(t *testing.T) {
			dir := t.TempDir()
			p := Program{Name: "t", Path: script(t, `setsid sleep 313 & echo $! > `+dir+`/pid; sleep 100`)}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			timeout := 300 * time.Millisecond
			if cancelled {
				timeout = time.Minute
				go func() {
					pidIn(t, filepath.Join(dir, "pid"))
					cancel()
				}()
			}
			got := p.Run(ctx, json.RawMessage(`{}`), timeout)
			pid := pidIn(t, filepath.Join(dir, "pid"))
			killAtEnd(t, pid)
			if code := map[bool]string{false: ToolTimeout, true: ToolCancelled}[cancelled]; got.Code != code {
				t.Errorf("got %s", got.JSON())
			}
			gone(t, pid)
		})
	}
}

// A process a tool started to outlive it (a server, in a session of its
// own) is left running when the tool exits by itself; once it exits, it
// is reaped, and the reaping takes no exit status from os/exec: many
// calls at once, each leaving an orphan behind, and other children of the
// agent, all end as they should.
func TestRunOrphansReapedSafely(t *testing.T) {
	dir := t.TempDir()
	// The orphan writes its pid once it is in a session of its own, so
	// that the tool's group is not killed with it still inside.
	p := Program{Name: "t", Path: script(t, `setsid sh -c 'echo $$ > `+dir+`/'$$'; exec sleep 0.2' & while [ ! -s `+dir+`/$$ ]; do sleep 0.01; done; echo '{}'`)}
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if got := p.Run(context.Background(), json.RawMessage(`{}`), 10*time.Second); !got.Success {
				t.Errorf("call: %s", got.JSON())
			}
		})
		wg.Go(func() {
			if err := exec.Command("sh", "-c", "exit 3").Run(); err == nil || err.(*exec.ExitError).ExitCode() != 3 {
				t.Errorf("another child: %v", err)
			}
		})
	}
	wg.Wait()
	entries, _ := os.ReadDir(dir)
	if len(entries) != 20 {
		t.Fatalf("%d orphans started", len(entries))
	}
	for _, e := range entries {
		pid := pidIn(t, filepath.Join(dir, e.Name()))
		killAtEnd(t, pid)
		gone(t, pid)
	}
}

// A process that left the group and holds both pipes costs one
// WaitDelay, not one per pipe.
func TestRunPipesWaitedAtOnce(t *testing.T) {
	dir := t.TempDir()
	argv := []string{script(t, `setsid sh -c 'echo $$ > `+dir+`/pid; exec sleep 30' & while [ ! -s `+dir+`/pid ]; do sleep 0.01; done; echo '{}'`)}
	start := time.Now()
	o := RunProcess(context.Background(), argv, nil, nil, Limits{Timeout: 10 * time.Second, MaxStdout: 100, MaxStderr: 100, Stop: syscall.SIGTERM, WaitDelay: time.Second})
	elapsed := time.Since(start)
	killAtEnd(t, pidIn(t, filepath.Join(dir, "pid")))
	if string(o.Stdout) != "{}\n" || o.Stopped != nil {
		t.Errorf("outcome %+v", o)
	}
	// One second of waiting for the pipes, and the run's own time; two
	// seconds when the pipes were waited for one after the other.
	if elapsed < time.Second || elapsed >= 1800*time.Millisecond {
		t.Errorf("took %v", elapsed)
	}
}
