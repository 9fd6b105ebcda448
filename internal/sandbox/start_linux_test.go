package sandbox

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
)

// needLandlock skips a test on a kernel without Landlock, saying so.
func needLandlock(t *testing.T, abi int) {
	t.Helper()
	if s := Detect(); s.ABI < abi {
		t.Skipf("the kernel has Landlock ABI %d (%s); this test needs %d", s.ABI, s.Missing, abi)
	}
}

// run runs script with sh -c confined by c and returns its combined
// output and exit status.
func run(t *testing.T, c *Confinement, script string, attr *syscall.SysProcAttr) (string, int) {
	t.Helper()
	cmd := exec.Command("/bin/sh", "-c", script)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Env = append(os.Environ(), append(c.Env(), "LC_ALL=C")...)
	cmd.SysProcAttr = attr
	if err := Start(cmd, c); err != nil {
		t.Fatalf("Start: %v", err)
	}
	err := cmd.Wait()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("Wait: %v", err)
	}
	return strings.TrimSpace(out.String()), cmd.ProcessState.ExitCode()
}

func TestStartConfinesWrites(t *testing.T) {
	needLandlock(t, 1)
	inside, outside := t.TempDir(), t.TempDir()
	c, done, err := (&Confinement{Mode: WorkspaceWrite, Write: []string{inside, filepath.Join(inside, "missing")}, Network: true}).WithTempDir("test")
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	script := fmt.Sprintf(`
		echo a > %[1]s/a && echo wrote inside
		echo b > "$TMPDIR/b" && echo wrote temp
		echo c > %[2]s/c || echo outside denied
		sh -c 'echo d > %[2]s/d' || echo grandchild denied
		echo e > /dev/null && echo wrote /dev/null
		rm %[1]s/a && echo removed inside
		mkdir %[2]s/dir || echo mkdir denied
		grep NoNewPrivs /proc/self/status
	`, inside, outside)
	out, code := run(t, c, script, nil)
	want := strings.Join([]string{
		"wrote inside", "wrote temp",
		"/bin/sh: 4: cannot create " + outside + "/c: Permission denied", "outside denied",
		"sh: 1: cannot create " + outside + "/d: Permission denied", "grandchild denied",
		"wrote /dev/null", "removed inside",
		"mkdir: cannot create directory '" + outside + "/dir': Permission denied", "mkdir denied",
		"NoNewPrivs:\t1",
	}, "\n")
	if out != want || code != 0 {
		t.Errorf("got exit %d, output:\n%s\nwant exit 0, output:\n%s", code, out, want)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("%s holds %v, want nothing", outside, entries)
	}
	// The host is not confined.
	if err := os.WriteFile(filepath.Join(outside, "host"), nil, 0o644); err != nil {
		t.Errorf("the host cannot write: %v", err)
	}
}

// A read-only confinement writes only its temporary directory, and a
// truncation counts as a write.
func TestStartReadOnly(t *testing.T) {
	needLandlock(t, 3)
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	os.WriteFile(file, []byte("keep"), 0o644)
	c, done, err := (&Confinement{Mode: ReadOnly, Network: true}).WithTempDir("test")
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	out, _ := run(t, c, fmt.Sprintf(`cat %[1]s; echo; true > %[1]s || echo truncate denied; echo x > "$TMPDIR/x" && echo temp ok`, file), nil)
	want := "keep\n/bin/sh: 1: cannot create " + file + ": Permission denied\ntruncate denied\ntemp ok"
	if out != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
	if b, _ := os.ReadFile(file); string(b) != "keep" {
		t.Errorf("the file holds %q", b)
	}
}

// listen returns the address of a loopback listener that accepts and
// closes connections until the test ends.
func listen(t *testing.T) *net.TCPAddr {
	t.Helper()
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	return l.Addr().(*net.TCPAddr)
}

func TestStartNetwork(t *testing.T) {
	needLandlock(t, 1)
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash (for /dev/tcp) is not installed")
	}
	addr := listen(t)
	// The connection's outcome, and the network devices there are.
	connect := fmt.Sprintf(`bash -c 'exec 3<>/dev/tcp/127.0.0.1/%d && echo connected' 2>&1 | sed 's/.*: //' | head -1
		tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | grep -c .`, addr.Port)
	devices, err := os.ReadFile("/proc/net/dev")
	if err != nil {
		t.Fatal(err)
	}
	all := fmt.Sprint(bytes.Count(devices, []byte("\n")) - 2)
	s := Detect()
	s.DetectNetNS()
	for _, r := range []struct {
		name string
		c    Confinement
		abi  int
		want string
	}{
		{name: "on", c: Confinement{Mode: ReadOnly, Network: true}, abi: 1, want: "connected\n" + all},
		{name: "off by Landlock", c: Confinement{Mode: ReadOnly}, abi: 4, want: "Permission denied\n" + all},
		// Landlock refuses the connection before the namespace would.
		{name: "off by a namespace too", c: Confinement{Mode: ReadOnly, NetNS: true}, abi: 4, want: "Permission denied\n1"},
		// Landlock without TCP rules, as on an older kernel.
		{name: "off by a namespace", c: Confinement{Mode: ReadOnly, NetNS: true, Network: true}, abi: 1, want: "Network is unreachable\n1"},
	} {
		t.Run(r.name, func(t *testing.T) {
			needLandlock(t, r.abi)
			if r.c.NetNS && !s.NetNS {
				t.Skipf("no network namespace: %s", s.NetNSMissing)
			}
			if out, _ := run(t, &r.c, connect, nil); out != r.want {
				t.Errorf("got %q, want %q", out, r.want)
			}
		})
	}
}

// The process may not signal processes outside its confinement (ikigai
// among them), but may signal its own.
func TestStartScopesSignals(t *testing.T) {
	needLandlock(t, 6)
	out, _ := run(t, &Confinement{Mode: ReadOnly, Network: true}, `
		kill -0 $PPID 2>/dev/null || echo parent denied
		sleep 10 & kill $! && echo child killed`, nil)
	if want := "parent denied\nchild killed"; out != want {
		t.Errorf("got:\n%s\nwant:\n%s", out, want)
	}
}

// The thread that started the process lives until the process exits, so
// a parent-death signal does not kill it when Start returns.
func TestStartParentDeathSignal(t *testing.T) {
	needLandlock(t, 1)
	out, code := run(t, &Confinement{Mode: ReadOnly, Network: true}, `sleep 0.2; echo survived`,
		&syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL})
	if out != "survived" || code != 0 {
		t.Errorf("got exit %d, %q", code, out)
	}
}

func TestStartRefused(t *testing.T) {
	cmd := exec.Command("/bin/true")
	err := Start(cmd, &Confinement{Refused: "Landlock is not available (x) and sandbox_fallback is require"})
	if !IsError(err) || err.Error() != "sandbox: Landlock is not available (x) and sandbox_fallback is require" {
		t.Errorf("Start = %v, want a sandbox error", err)
	}
	if cmd.Process != nil {
		t.Error("the process was started")
	}
}

// As root, the tests of Start and Check run again as an unprivileged user
// (nobody, through setpriv), for whom a network namespace needs a user
// namespace too.
func TestStartUnprivileged(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("not root: the tests ran unprivileged already")
	}
	if os.Getenv("IKIGAI_SANDBOX_TEST_UNPRIVILEGED") != "" {
		t.Skip("running unprivileged")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("setpriv (util-linux) is not installed")
	}
	// A copy nobody can run: the test binary's directory is root's.
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "sandbox.test")
	data, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", bin, "-test.run", "^(TestStart|TestCheck)", "-test.v")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "IKIGAI_SANDBOX_TEST_UNPRIVILEGED=1", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("\nPASS\n")) {
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("--- PASS: TestStartConfinesWrites")) {
		t.Errorf("as nobody, the tests did not run:\n%s", out)
	}
	for _, skip := range regexpSkips.FindAll(out, -1) {
		t.Logf("as nobody: %s", skip)
	}
}

var regexpSkips = regexp.MustCompile(`--- SKIP: .*`)
