package ikigai_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ikigai-tools/ikigai/internal/provider/providertest"
	"github.com/rogpeppe/go-internal/testscript"
)

// layout is a build tree made once per test run: bin/ikigai and
// libexec/ikigai/*-tool and the Markdown helper, as make builds them.
var layout string

// goEnv holds the Go build and module caches, which scripts that run go or
// make share with the test run instead of filling empty ones in $HOME, and
// without the network.
var goEnv []string

// update rewrites the scripts' expected output from what the commands
// printed (go test -run TestScripts -update), to be read in the diff.
var update = flag.Bool("update", false, "update the scripts' expected files from what the commands printed")

func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "nolandlock" {
		os.Exit(noLandlock(os.Args[1:]))
	}
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "ikigai-scripts-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	// Scripts run some steps as another user (setpriv), to test permission
	// errors even as root; that user must be able to run the tools.
	if err := os.Chmod(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := build(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := linkNoLandlock(dir); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	layout = dir
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "go env:", err)
		return 1
	}
	caches := strings.Fields(string(out))
	goEnv = []string{"GOCACHE=" + caches[0], "GOMODCACHE=" + caches[1], "GOPROXY=off", "GOTOOLCHAIN=local"}
	return m.Run()
}

// build compiles every command into dir's bin and libexec directories, and
// makes an empty system skills directory, so that no skill installed on
// the machine shows in a test.
func build(dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, "share", "ikigai", "skills"), 0o755); err != nil {
		return err
	}
	// toolsdk's source, where make install puts it, for Go tools that
	// ikigai tools new writes.
	repo, err := os.Getwd()
	if err != nil {
		return err
	}
	if err := os.Symlink(filepath.Join(repo, "toolsdk"), filepath.Join(dir, "share", "ikigai", "toolsdk")); err != nil {
		return err
	}
	tools, err := filepath.Glob("cmd/*-tool")
	if err != nil {
		return err
	}
	for _, b := range []struct {
		out  string
		pkgs []string
	}{
		{filepath.Join(dir, "bin") + "/", []string{"./cmd/ikigai"}},
		{filepath.Join(dir, "libexec", "ikigai") + "/", prefixAll("./", append(tools, "cmd/ikigai-markdown"))},
	} {
		if err := os.MkdirAll(b.out, 0o755); err != nil {
			return err
		}
		// As the Makefile builds them, so that make install in a script
		// reuses the compiled packages.
		cmd := exec.Command("go", append([]string{"build", "-trimpath", "-tags", "urfave_cli_no_docs", "-o", b.out}, b.pkgs...)...)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %v: %v\n%s", b.pkgs, err, out)
		}
	}
	return nil
}

func prefixAll(prefix string, list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = prefix + s
	}
	return out
}

func TestScripts(t *testing.T) {
	repo, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/scripts",
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, "home")
			env.Setenv("HOME", home)
			env.Setenv("REPO", repo)
			env.Setenv("LIBEXEC", filepath.Join(layout, "libexec", "ikigai"))
			// The machines tests run on are shared and often busy: outside
			// the scripts about the --schema time limit, which unset this,
			// a tool gets more than the default second to answer.
			env.Setenv("IKIGAI_SCHEMA_TIMEOUT_SECONDS", "10")
			for _, kv := range goEnv {
				k, v, _ := strings.Cut(kv, "=")
				env.Setenv(k, v)
			}
			env.Setenv("PATH", strings.Join([]string{
				filepath.Join(layout, "bin"),
				filepath.Join(layout, "libexec", "ikigai"),
				filepath.Join(layout, "test"),
				os.Getenv("PATH"),
			}, string(os.PathListSeparator)))
			// ...and to reach the files the script makes.
			if err := os.Chmod(filepath.Dir(env.WorkDir), 0o755); err != nil {
				return err
			}
			return os.MkdirAll(home, 0o755)
		},
		Condition: condition,
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"noproc":       noproc,
			"tree":         tree,
			"jsonline":     jsonline,
			"waitfile":     waitfile,
			"fakeprovider": fakeProvider,
			"jsonget":      jsonget,
			"unprivileged": unprivileged,
			"httpserve":    httpserve,
			"tcplisten":    tcplisten,
			"npmpkgs":      npmpkgs,
			"freeport":     freeport,
			"waitport":     waitport,
		},
		RequireExplicitExec: true,
		UpdateScripts:       *update,
	})
}

// condition evaluates the conditions scripts add to testscript's own:
// [root] when the tests run as root, which setpriv needs to drop to
// another user; [userns] when a step can have a private user and mount
// namespace (unshare), as it may not in a container.
func condition(cond string) (bool, error) {
	switch cond {
	case "root":
		return os.Geteuid() == 0, nil
	case "npm":
		return npmReady(), nil
	case "userns":
		return exec.Command("unshare", "--user", "--map-root-user", "--mount", "true").Run() == nil, nil
	}
	return false, fmt.Errorf("unknown condition %q", cond)
}

// noproc [-wait] PATTERN fails if a live process started by this script
// (one whose environment has the script's WORK) has PATTERN in its command
// line: the check that a tool left nothing running. With -wait it gives
// such processes ten seconds to go, for a kill that takes its time (a
// signal passed on by a dying parent). Scripts run in parallel, so the
// environment tells this script's processes from the others'.
func noproc(ts *testscript.TestScript, neg bool, args []string) {
	wait := len(args) == 2 && args[0] == "-wait"
	if wait {
		args = args[1:]
	}
	if neg || len(args) != 1 {
		ts.Fatalf("usage: noproc [-wait] PATTERN")
	}
	if runtime.GOOS != "linux" {
		ts.Fatalf("noproc reads /proc")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		pid, line := liveProcess(ts, args[0])
		if pid == 0 {
			return
		}
		if !wait || time.Now().After(deadline) {
			ts.Fatalf("process %d is still running: %s", pid, line)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// liveProcess returns a live process of this script with pattern in its
// command line, or 0.
func liveProcess(ts *testscript.TestScript, pattern string) (int, string) {
	mine := "WORK=" + ts.Getenv("WORK")
	entries, err := os.ReadDir("/proc")
	ts.Check(err)
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil || len(cmdline) == 0 { // gone, or a zombie
			continue
		}
		line := strings.ReplaceAll(strings.TrimRight(string(cmdline), "\x00"), "\x00", " ")
		if !strings.Contains(line, pattern) {
			continue
		}
		environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err != nil || !slices.Contains(strings.Split(string(environ), "\x00"), mine) {
			continue
		}
		return pid, line
	}
	return 0, ""
}

// waitfile FILE waits up to ten seconds for FILE to exist: how a script
// knows a background command got far enough.
func waitfile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitfile FILE")
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(ts.MkAbs(args[0])); err == nil {
			return
		}
	}
	ts.Fatalf("%s did not appear within ten seconds", args[0])
}

// jsonline [-max N] FILE checks that FILE holds exactly one JSON document
// of valid UTF-8 on one line ending in a newline, and at most N bytes.
func jsonline(ts *testscript.TestScript, neg bool, args []string) {
	max := -1
	if len(args) == 3 && args[0] == "-max" {
		n, err := strconv.Atoi(args[1])
		ts.Check(err)
		max, args = n, args[2:]
	}
	if neg || len(args) != 1 {
		ts.Fatalf("usage: jsonline [-max N] FILE")
	}
	data := ts.ReadFile(args[0])
	switch {
	case !strings.HasSuffix(data, "\n") || strings.Count(data, "\n") != 1:
		ts.Fatalf("%s is not one line ending in a newline", args[0])
	case !utf8.ValidString(data):
		ts.Fatalf("%s is not valid UTF-8", args[0])
	case !json.Valid([]byte(data)):
		ts.Fatalf("%s is not valid JSON", args[0])
	case max >= 0 && len(data) > max:
		ts.Fatalf("%s is %d bytes, more than %d", args[0], len(data), max)
	}
}

// tree DIR prints every file and symlink under DIR, one per line, as
// "MODE PATH" with PATH relative to DIR, in lexical order.
func tree(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: tree DIR")
	}
	root := ts.MkAbs(args[0])
	var lines []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		lines = append(lines, fmt.Sprintf("%v %s", info.Mode(), rel))
		return nil
	})
	ts.Check(err)
	for _, l := range lines {
		fmt.Fprintln(ts.Stdout(), l)
	}
}

// fakeServers holds each script's fake model API.
var fakeServers sync.Map // *testscript.TestScript -> *providertest.Server

// fakeprovider start anthropic|openai|google|all TRANSCRIPT starts a fake model API
// answering from the transcript file and points ikigai at it through the
// environment; it stops when the script ends.
// fakeprovider requests FILE writes the requests it got, as JSON.
// fakeprovider done fails unless every reply of the transcript was used.
func fakeProvider(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: fakeprovider start anthropic|openai|google|all TRANSCRIPT | requests FILE | done")
	}
	server := func() *providertest.Server {
		srv, ok := fakeServers.Load(ts)
		if !ok {
			ts.Fatalf("fakeprovider: no server started")
		}
		return srv.(*providertest.Server)
	}
	switch {
	case args[0] == "start" && len(args) == 3:
		tr, err := providertest.ReadTranscript(ts.MkAbs(args[2]))
		ts.Check(err)
		srv := providertest.NewServer(tr)
		fakeServers.Store(ts, srv)
		ts.Defer(func() { srv.Close(); fakeServers.Delete(ts) })
		switch args[1] {
		case "anthropic":
			ts.Setenv("IKIGAI_BASE_URL", srv.AnthropicURL())
			ts.Setenv("ANTHROPIC_API_KEY", "sk-ant-test")
		case "openai":
			ts.Setenv("IKIGAI_BASE_URL", srv.OpenAIURL())
			ts.Setenv("OPENAI_API_KEY", "sk-test")
		case "google":
			ts.Setenv("IKIGAI_BASE_URL", srv.GeminiURL())
			ts.Setenv("GEMINI_API_KEY", "gemini-test")
		case "all":
			// Every vendor's API at once, each at its own variable, for a
			// conversation that moves between them with /model.
			ts.Setenv("ANTHROPIC_BASE_URL", srv.AnthropicURL())
			ts.Setenv("ANTHROPIC_API_KEY", "sk-ant-test")
			ts.Setenv("OPENAI_BASE_URL", srv.OpenAIURL())
			ts.Setenv("OPENAI_API_KEY", "sk-test")
			ts.Setenv("GOOGLE_GEMINI_BASE_URL", srv.GeminiURL())
			ts.Setenv("GEMINI_API_KEY", "gemini-test")
			return
		default:
			ts.Fatalf("fakeprovider: unknown provider %q", args[1])
		}
		ts.Setenv("IKIGAI_PROVIDER", args[1])
	case args[0] == "requests" && len(args) == 2:
		ts.Check(server().WriteRequests(ts.MkAbs(args[1])))
	case args[0] == "done" && len(args) == 1:
		if n := server().Pending(); n > 0 {
			ts.Fatalf("fakeprovider: %d replies of the transcript were not used", n)
		}
	default:
		ts.Fatalf("usage: fakeprovider start anthropic|openai|google|all TRANSCRIPT | requests FILE | done")
	}
}

// jsonget FILE PATH prints the value at PATH in the JSON document in FILE:
// PATH is dot-separated object keys and array indexes (0.body.messages.1),
// a string prints as its text and anything else as compact JSON.
func jsonget(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: jsonget FILE PATH")
	}
	var v any
	ts.Check(json.Unmarshal([]byte(ts.ReadFile(args[0])), &v))
	for _, key := range strings.Split(args[1], ".") {
		switch node := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = node[key]; !ok {
				ts.Fatalf("jsonget: no key %q in %s", key, args[1])
			}
		case []any:
			i, err := strconv.Atoi(key)
			if i < 0 {
				i += len(node) // -1 is the last
			}
			if err != nil || i < 0 || i >= len(node) {
				ts.Fatalf("jsonget: no index %q (of %d) in %s", key, len(node), args[1])
			}
			v = node[i]
		default:
			ts.Fatalf("jsonget: %q is not inside an object or array in %s", key, args[1])
		}
	}
	if str, ok := v.(string); ok {
		fmt.Fprintln(ts.Stdout(), str)
		return
	}
	b, err := json.Marshal(v)
	ts.Check(err)
	fmt.Fprintln(ts.Stdout(), string(b))
}

// unprivileged CMD ARGS... runs a command as a user without privileges, for
// the checks of what such a user may not do: as root, through setpriv as
// nobody; as anyone else, as that user, who is unprivileged already.
// Files the check denies must be denied to their owner too (mode 0000,
// 0555 for a directory), since the script's own user owns them.
func unprivileged(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) == 0 {
		ts.Fatalf("usage: unprivileged CMD [ARGS...]")
	}
	if os.Geteuid() == 0 {
		args = append([]string{"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"}, args...)
	}
	err := ts.Exec(args[0], args[1:]...)
	switch {
	case err != nil && !neg:
		ts.Fatalf("unexpected failure: %v", err)
	case err == nil && neg:
		ts.Fatalf("unexpected success")
	}
}

// httpserve VAR DIR serves the files in DIR on a loopback address (as
// http.FileServer does: a file's type from its extension, else sniffed)
// and sets VAR to the server's URL; it stops when the script ends.
func httpserve(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: httpserve VAR DIR")
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(ts.MkAbs(args[1]))))
	ts.Defer(srv.Close)
	ts.Setenv(args[0], srv.URL)
}
