package execute

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// useTestCgroup makes the trees of the test start in cgroups made in a
// cgroup of the test's own, as they would in a delegated one, or skips
// the test where it cannot make one (not root, no cgroup v2).
func useTestCgroup(t *testing.T) string {
	t.Helper()
	own := ownCgroup()
	if own == "" {
		t.Skip("no cgroup v2 hierarchy")
	}
	parent := filepath.Join(own, "ikigai-test-"+strconv.Itoa(os.Getpid()))
	if err := os.Mkdir(parent, 0o755); err != nil {
		t.Skipf("cannot make a cgroup to test in: %v", err)
	}
	t.Cleanup(func() {
		data, _ := os.ReadFile(filepath.Join(parent, "cgroup.procs"))
		for _, f := range strings.Fields(string(data)) {
			pid, _ := strconv.Atoi(f)
			killAtEnd(t, pid)
		}
		os.WriteFile(filepath.Join(parent, "cgroup.kill"), []byte("1"), 0)
		for deadline := time.Now().Add(5 * time.Second); os.Remove(parent) != nil && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
	})
	if !canStartIn(parent) {
		t.Skip("the kernel cannot start a process in a cgroup (clone3)")
	}
	saved := cgroupParent
	cgroupParent = func() string { return parent }
	t.Cleanup(func() { cgroupParent = saved })
	return parent
}

// callCgroups lists the cgroups of calls left in parent.
func callCgroups(t *testing.T, parent string) []string {
	t.Helper()
	entries, err := os.ReadDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, e.Name())
		}
	}
	return dirs
}

// With a cgroup, a timeout kills everything the tool started, however it
// left (setsid, or forking without end), and the cgroup is removed.
func TestCgroupKillsEverything(t *testing.T) {
	parent := useTestCgroup(t)
	dir := t.TempDir()
	p := Program{Name: "t", Path: script(t, `cat /proc/self/cgroup > `+dir+`/cgroup; setsid sleep 313 & echo $! > `+dir+`/pid; while :; do setsid sleep 314 & sleep 0.01; done`)}
	got := p.Run(context.Background(), json.RawMessage(`{}`), 300*time.Millisecond)
	if got.Code != ToolTimeout {
		t.Errorf("got %s", got.JSON())
	}
	pid := pidIn(t, filepath.Join(dir, "pid"))
	killAtEnd(t, pid)
	gone(t, pid)
	if cg, _ := os.ReadFile(filepath.Join(dir, "cgroup")); !strings.Contains(string(cg), filepath.Base(parent)+"/ikigai-") {
		t.Errorf("the tool ran in %q, not a cgroup of its own", cg)
	}
	if dirs := callCgroups(t, parent); len(dirs) != 0 {
		t.Errorf("cgroups left: %v", dirs)
	}
	if data, _ := os.ReadFile(filepath.Join(parent, "cgroup.procs")); len(data) != 0 {
		t.Errorf("processes left: %s", data)
	}
}

// With a cgroup, a process a tool started to outlive it survives the
// tool's exit, in the agent's cgroup, and the call's cgroup is removed.
func TestCgroupSurvivorMoves(t *testing.T) {
	parent := useTestCgroup(t)
	dir := t.TempDir()
	p := Program{Name: "t", Path: script(t, `setsid sh -c 'echo $$ > `+dir+`/pid; exec sleep 30' >/dev/null 2>&1 & while [ ! -s `+dir+`/pid ]; do sleep 0.01; done; echo '{}'`)}
	if got := p.Run(context.Background(), json.RawMessage(`{}`), 10*time.Second); !got.Success {
		t.Errorf("got %s", got.JSON())
	}
	pid := pidIn(t, filepath.Join(dir, "pid"))
	killAtEnd(t, pid)
	cg, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	if err != nil || !strings.HasSuffix(strings.TrimSpace(string(cg)), "/"+filepath.Base(parent)) {
		t.Errorf("the survivor's cgroup: %q, %v", cg, err)
	}
	if dirs := callCgroups(t, parent); len(dirs) != 0 {
		t.Errorf("cgroups left: %v", dirs)
	}
}
