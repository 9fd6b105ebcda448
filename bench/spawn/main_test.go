package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	// As main does: orphans come back to the test process.
	syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	os.Exit(m.Run())
}

// spawnSh runs a shell script through run and returns the reply and its
// standard output.
func spawnSh(t *testing.T, script string, timeoutMS int) (reply, string) {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "stdout")
	r := run(request{Argv: []string{"sh", "-c", script}, Dir: dir, Env: os.Environ(), Stdin: os.DevNull, Stdout: out, TimeoutMS: timeoutMS})
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return r, string(data)
}

// alive reports whether pid is a live process (not a zombie).
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(data), ") ")
	return !strings.HasPrefix(rest, "Z")
}

func pids(t *testing.T, out string) []int {
	t.Helper()
	var ps []int
	for _, f := range strings.Fields(out) {
		p, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("output %q: %v", out, err)
		}
		ps = append(ps, p)
	}
	return ps
}

func TestLeftoversAreKilled(t *testing.T) {
	for _, tc := range []struct {
		name   string
		script string
		strays int
	}{
		// A background process in the command's group, holding standard
		// error open, as a Node.js worker or a telemetry flush would.
		{"in the group", `sleep 30 & echo $!`, 0},
		// One that left the group, and one of its children.
		{"in a group of its own", `setsid sh -c 'sleep 31 & sleep 32' & sleep 0.2; echo $!`, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			r, out := spawnSh(t, tc.script, 0)
			if r.Error != "" || r.Exit != 0 {
				t.Fatalf("reply %+v", r)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("run took %v: it waited for the leftovers", d)
			}
			for _, p := range pids(t, out) {
				if alive(p) {
					syscall.Kill(p, syscall.SIGKILL)
					t.Errorf("process %d left behind", p)
				}
			}
			if r.Strays != tc.strays {
				t.Errorf("strays %d, want %d", r.Strays, tc.strays)
			}
			if kids := children(os.Getpid()); len(kids) > 0 {
				t.Errorf("children left: %v", kids)
			}
		})
	}
}

func TestTimeoutKillsTheGroup(t *testing.T) {
	r, _ := spawnSh(t, `sleep 30 & sleep 30`, 200)
	if !r.TimedOut {
		t.Errorf("reply %+v: not timed out", r)
	}
	if time.Duration(r.Nanos) > 10*time.Second {
		t.Errorf("ran %v", time.Duration(r.Nanos))
	}
	if kids := children(os.Getpid()); len(kids) > 0 {
		t.Errorf("children left: %v", kids)
	}
}

func TestSampleSeesTheWholeTree(t *testing.T) {
	dir := t.TempDir()
	// Two processes, each holding a 32 MiB string for a while.
	hold := `awk 'BEGIN { s = "x"; for (i = 0; i < 25; i++) s = s s; system("sleep 0.5") }'`
	r := run(request{Argv: []string{"sh", "-c", hold + " & " + hold + "; wait"}, Dir: dir, Env: os.Environ(),
		Stdin: os.DevNull, Stdout: filepath.Join(dir, "stdout"), SampleMS: 5})
	if r.Error != "" || r.Exit != 0 {
		t.Fatalf("reply %+v", r)
	}
	if r.TreePeak < 2*32<<10 || r.TreePeak <= r.MaxRSS {
		t.Errorf("tree peak %d KiB, largest process %d KiB: want the tree at least 64 MiB, and more than the largest process", r.TreePeak, r.MaxRSS)
	}
}
