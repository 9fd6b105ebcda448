package ikigai_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// npmPackages are the npm packages the MCP scripts run against, pinned:
// the reference server and the official inspector's command line.
var npmPackages = map[string]string{
	"@modelcontextprotocol/server-everything": "2026.8.31",
	"@modelcontextprotocol/inspector":         "2.12.0",
}

var (
	npmOnce sync.Once
	npmBin  string // node_modules/.bin of the installed packages
	npmSkip string // why the scripts that need them are skipped
)

// npmReady is the condition [npm]: npmPackages are installed (once, in
// ~/.cache/ikigai-test/npm). Without npm, Node 20 or the registry it is
// false, and why is printed once for the scripts' skip to point at.
func npmReady() bool {
	npmOnce.Do(func() {
		installNPM()
		if npmSkip != "" {
			fmt.Fprintln(os.Stderr, "MCP scripts against the npm packages are skipped:", npmSkip)
		}
	})
	return npmSkip == ""
}

// npmpkgs sets NPM_BIN to the bin directory of npmPackages; [npm] first.
func npmpkgs(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 || !npmReady() {
		ts.Fatalf("usage: [npm] npmpkgs")
	}
	ts.Setenv("NPM_BIN", npmBin)
}

func installNPM() {
	if _, err := exec.LookPath("npm"); err != nil {
		npmSkip = "npm is not installed (.ci/run installs it with apt-get)"
		return
	}
	out, err := exec.Command("node", "--version").Output()
	major, _ := strconv.Atoi(strings.SplitN(strings.TrimPrefix(strings.TrimSpace(string(out)), "v"), ".", 2)[0])
	if err != nil || major < 20 {
		npmSkip = fmt.Sprintf("the MCP reference packages want Node 20 or later; node --version says %q", strings.TrimSpace(string(out)))
		return
	}
	home, err := os.UserHomeDir()
	if err != nil {
		npmSkip = "no home directory to install the npm packages in"
		return
	}
	dir := filepath.Join(home, ".cache", "ikigai-test", "npm")
	npmBin = filepath.Join(dir, "node_modules", ".bin")
	var missing []string
	for pkg, version := range npmPackages {
		var p struct{ Version string }
		data, err := os.ReadFile(filepath.Join(dir, "node_modules", pkg, "package.json"))
		if err != nil || json.Unmarshal(data, &p) != nil || p.Version != version {
			missing = append(missing, pkg+"@"+version)
		}
	}
	if len(missing) == 0 {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		npmSkip = err.Error()
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", append([]string{"install", "--no-audit", "--no-fund", "--prefix", dir}, missing...)...)
	if out, err := cmd.CombinedOutput(); err != nil {
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		npmSkip = fmt.Sprintf("npm could not install %s (no registry?): %v: %s", strings.Join(missing, " "), err, lines[len(lines)-1])
	}
}

// freeport VAR sets VAR to a loopback port nothing listens on.
func freeport(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: freeport VAR")
	}
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	ts.Check(err)
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	ts.Setenv(args[0], strconv.Itoa(port))
}

// waitport PORT waits, a minute at most, until something listens on the
// loopback PORT: a server started in the background is ready.
func waitport(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitport PORT")
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		c, err := net.Dial("tcp4", "127.0.0.1:"+args[0])
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			ts.Fatalf("nothing listens on port %s: %v", args[0], err)
		}
	}
}
