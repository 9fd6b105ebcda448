package ikigai_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/hinshun/vt10x"
	"github.com/ikigai-tools/ikigai/internal/provider/providertest"
)

// These tests run ikigai's terminal UI in a pseudo-terminal, read what a
// user would see through a terminal emulator, and type at it. They wait
// for what should appear, with generous deadlines, and never for a time.

// patience bounds every wait for the screen: far more than anything takes
// on a quiet machine, so a busy one does not fail the tests.
const patience = 60 * time.Second

// terminal is ikigai running in a pseudo-terminal.
type terminal struct {
	t      *testing.T
	pty    *os.File
	cmd    *exec.Cmd
	exited chan struct{}
	err    error // how the process ended, once exited is closed

	mu  sync.Mutex
	vt  vt10x.Terminal
	raw bytes.Buffer // everything ikigai wrote, for failure messages
}

const rows, cols = 60, 120

// session is a place to run ikigai: a home, a working directory, and the
// fake model API answering from replies.
type session struct {
	t    *testing.T
	home string
	dir  string
	srv  *providertest.Server
	env  []string
}

func newSession(t *testing.T, replies ...providertest.Reply) *session {
	t.Helper()
	root := t.TempDir()
	s := &session{t: t, home: filepath.Join(root, "home"), dir: filepath.Join(root, "work")}
	for _, d := range []string{s.home, s.dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	s.srv = providertest.NewServer(providertest.Transcript{Replies: replies})
	t.Cleanup(s.srv.Close)
	s.env = []string{
		"HOME=" + s.home,
		"PATH=" + filepath.Join(layout, "bin") + string(os.PathListSeparator) + os.Getenv("PATH"),
		"TERM=xterm-256color",
		"LANG=C.UTF-8",
		"IKIGAI_PROVIDER=anthropic",
		"IKIGAI_BASE_URL=" + s.srv.AnthropicURL(),
		"ANTHROPIC_API_KEY=sk-ant-test",
		"IKIGAI_SCHEMA_TIMEOUT_SECONDS=10",
	}
	return s
}

// file writes a file under the session's root (home or work), making
// directories as needed.
func (s *session) file(path, content string, mode os.FileMode) {
	s.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		s.t.Fatal(err)
	}
}

// start runs ikigai with args in the session's working directory.
func (s *session) start(args ...string) *terminal {
	s.t.Helper()
	cmd := exec.Command(filepath.Join(layout, "bin", "ikigai"), args...)
	cmd.Dir, cmd.Env = s.dir, s.env
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: rows, Cols: cols})
	if err != nil {
		s.t.Fatal(err)
	}
	tm := &terminal{t: s.t, pty: f, cmd: cmd, exited: make(chan struct{})}
	tm.vt = vt10x.New(vt10x.WithSize(cols, rows), vt10x.WithWriter(f))
	go func() {
		buf := make([]byte, 32<<10)
		var held []byte
		for {
			n, err := f.Read(buf)
			tm.mu.Lock()
			tm.raw.Write(buf[:n])
			var ready []byte
			ready, held = completeSequences(append(held, buf[:n]...))
			tm.vt.Write(kittyKeyboard.ReplaceAll(ready, nil))
			tm.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	go func() {
		tm.err = cmd.Wait()
		close(tm.exited)
	}()
	s.t.Cleanup(func() {
		select {
		case <-tm.exited:
		default:
			cmd.Process.Kill()
			<-tm.exited
		}
		f.Close()
	})
	return tm
}

// kittyKeyboard matches the kitty keyboard protocol's sequences, which
// vt10x takes for "restore the cursor" (CSI u): they are left out of what
// it reads. A terminal that does not know them ignores them.
var kittyKeyboard = regexp.MustCompile(`\x1b\[[<>?=][0-9;]*u`)

// completeSequences splits data before an escape sequence cut off at its
// end, which is held back until the rest arrives.
func completeSequences(data []byte) (ready, held []byte) {
	i := bytes.LastIndexByte(data, 0x1b)
	if i < 0 {
		return data, nil
	}
	tail := data[i:]
	if len(tail) > 1 && tail[1] != '[' {
		return data, nil
	}
	for _, c := range tail[min(len(tail), 2):] {
		if c >= 0x40 && c <= 0x7e {
			return data, nil
		}
	}
	return data[:i], slices.Clone(tail)
}

// screen returns what the terminal shows, trailing blanks trimmed.
func (tm *terminal) screen() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	var lines []string
	for _, l := range strings.Split(tm.vt.String(), "\n") {
		lines = append(lines, strings.TrimRight(l, " "))
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

// waitFor waits until the screen shows every one of texts.
func (tm *terminal) waitFor(texts ...string) {
	tm.t.Helper()
	deadline := time.Now().Add(patience)
	for {
		screen := tm.screen()
		missing := ""
		for _, text := range texts {
			if !strings.Contains(screen, text) {
				missing = text
				break
			}
		}
		if missing == "" {
			return
		}
		if time.Now().After(deadline) {
			tm.mu.Lock()
			raw := tm.raw.String()
			tm.mu.Unlock()
			tm.t.Fatalf("the screen does not show %q:\n%s\n\n(raw output: %q)", missing, screen, raw)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// typ types text.
func (tm *terminal) typ(text string) {
	tm.t.Helper()
	if _, err := tm.pty.Write([]byte(text)); err != nil {
		tm.t.Fatal(err)
	}
}

// exit waits for ikigai to end and returns its exit code.
func (tm *terminal) exit() int {
	tm.t.Helper()
	select {
	case <-tm.exited:
	case <-time.After(patience):
		tm.t.Fatalf("ikigai did not exit; the screen shows:\n%s", tm.screen())
	}
	var ee *exec.ExitError
	if errors.As(tm.err, &ee) {
		return ee.ExitCode()
	}
	if tm.err != nil {
		tm.t.Fatal(tm.err)
	}
	return 0
}

// waitFile waits for path to exist.
func waitFile(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(patience); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
	}
	t.Fatalf("%s did not appear", path)
}

// processes returns the live processes whose command line contains pattern.
func processes(pattern string) []string {
	entries, _ := os.ReadDir("/proc")
	var found []string
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || len(cmdline) == 0 {
			continue
		}
		if line := string(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})); strings.Contains(line, pattern) {
			found = append(found, e.Name()+": "+line)
		}
	}
	return found
}

func toolCall(id, name string, args any) providertest.Call {
	data, _ := json.Marshal(args)
	return providertest.Call{ID: id, Name: name, Arguments: data}
}

// A prompt, its answer streaming in, a tool call approved with a key, the
// tool's result, the final answer; Ctrl-D quits.
func TestTerminalPromptAndApproval(t *testing.T) {
	s := newSession(t,
		providertest.Reply{Text: "I will write the greeting.", ToolCalls: []providertest.Call{
			toolCall("toolu_1", "file_write", map[string]string{"file_path": "greeting.txt", "content": "Hello\nWorld\n"}),
		}},
		providertest.Reply{Text: "Done: greeting.txt says hello."},
	)
	tm := s.start()
	tm.waitFor("/help for commands")
	tm.typ("Put a greeting in greeting.txt\r")
	tm.waitFor("> Put a greeting in greeting.txt", "I will write the greeting.",
		`→ file_write: content="Hello\nWorld\n" file_path="greeting.txt"`,
		"→ file_write: greeting.txt\n+ Hello\n+ World\nAllow this call? y yes · n no · a always, for this session")
	if _, err := os.Stat(filepath.Join(s.dir, "greeting.txt")); err == nil {
		t.Fatal("the file was written before the call was approved")
	}
	tm.typ("y")
	tm.waitFor("← file_write: Wrote 12 bytes to greeting.txt", "Done: greeting.txt says hello.")
	if data, err := os.ReadFile(filepath.Join(s.dir, "greeting.txt")); err != nil || string(data) != "Hello\nWorld\n" {
		t.Errorf("greeting.txt: %q, %v", data, err)
	}
	tm.waitFor("claude-sonnet") // the default model, in the status line
	tm.typ("\x04")
	if code := tm.exit(); code != 0 {
		t.Errorf("exit code %d", code)
	}
}

// Ctrl-C while a tool runs stops it and everything it started, and the
// prompt comes back for the next question.
func TestTerminalCancelTool(t *testing.T) {
	s := newSession(t,
		providertest.Reply{ToolCalls: []providertest.Call{
			toolCall("toolu_1", "bash", map[string]string{"command": "echo started > mark; sleep 311"}),
		}},
		providertest.Reply{Text: "Back again."},
	)
	tm := s.start("--yes")
	tm.waitFor("/help for commands")
	tm.typ("Wait a long time\r")
	waitFile(t, filepath.Join(s.dir, "mark"))
	tm.waitFor("Running bash…")
	tm.typ("\x03")
	tm.waitFor("← bash: TOOL_CANCELLED", "Cancelled.")
	if p := processes("sleep 311"); len(p) > 0 {
		t.Errorf("left running: %v", p)
	}
	tm.typ("Are you there?\r")
	tm.waitFor("Back again.")
	tm.typ("/exit\r")
	if code := tm.exit(); code != 0 {
		t.Errorf("exit code %d", code)
	}
}

// A tool that hangs on --schema is reported in the scrollback; /tool and
// /tool NAME show what the reference implementation showed; /refresh finds
// a tool added since.
func TestTerminalToolCommands(t *testing.T) {
	s := newSession(t)
	tools := filepath.Join(s.home, ".ikigai", "tools")
	s.file(filepath.Join(tools, "hang-tool"), "#!/bin/sh\nexec sleep 312\n", 0o755)
	s.env = append(s.env, "IKIGAI_SCHEMA_TIMEOUT_SECONDS=2")
	tm := s.start()
	tm.waitFor("Debug: tool 'hang' schema failed (timeout)")
	tm.typ("/tool\r")
	tm.waitFor("Available tools:\n  bash (" + filepath.Join(layout, "libexec", "ikigai", "bash-tool") + ")\n  file_edit (")

	s.file(filepath.Join(tools, "lines-tool"), "#!/bin/sh\necho '{\"name\":\"lines\",\"description\":\"Count lines\"}'\n", 0o755)
	tm.typ("/refresh\r")
	tm.waitFor("Tool registry refreshed: 7 tools loaded")
	tm.typ("/tool lines\r")
	tm.waitFor("Tool: lines\nPath: " + filepath.Join(tools, "lines-tool") + "\nSchema:\n{\n  \"name\": \"lines\",")
	tm.typ("/nosuch\r")
	tm.waitFor("Unknown command: /nosuch\nCommands: /help /tool /refresh /model /clear /skills /load /stats /exit")
	tm.typ("\x04")
	tm.exit()
	if p := processes("sleep 312"); len(p) > 0 {
		t.Errorf("left running: %v", p)
	}
}

// A project's own tools do not run until the user trusts the directory,
// which is asked once and remembered.
func TestTerminalTrustQuestion(t *testing.T) {
	s := newSession(t)
	mark := filepath.Join(s.dir, "schema-ran")
	s.file(filepath.Join(s.dir, ".ikigai", "tools", "lines-tool"),
		"#!/bin/sh\ntouch "+mark+"\necho '{\"name\":\"lines\",\"description\":\"Count lines\"}'\n", 0o755)
	tm := s.start()
	tm.waitFor("Trust this directory?", "y yes, and remember · o only this time · n no")
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("a project tool ran before the directory was trusted")
	}
	tm.typ("y")
	tm.waitFor("→ yes, and remember", "/help for commands")
	tm.typ("/tool lines\r")
	tm.waitFor("Tool: lines")
	tm.typ("/exit\r")
	tm.exit()
	data, err := os.ReadFile(filepath.Join(s.home, ".ikigai", "trusted.json"))
	if dir, _ := filepath.EvalSymlinks(s.dir); err != nil || !strings.Contains(string(data), fmt.Sprintf("%q", dir)) {
		t.Errorf("trusted.json: %s, %v", data, err)
	}

	// Asked once: the next start goes straight to the prompt.
	tm = s.start()
	tm.waitFor("/help for commands")
	tm.typ("/tool lines\r")
	tm.waitFor("Tool: lines")
	if strings.Contains(tm.screen(), "Trust this directory?") {
		t.Error("asked again")
	}
	tm.typ("\x04")
	tm.exit()
}

// Declining is remembered too, and the project's tools stay unrun.
func TestTerminalTrustDeclined(t *testing.T) {
	s := newSession(t)
	s.file(filepath.Join(s.dir, ".ikigai", "tools", "lines-tool"), "#!/bin/sh\necho '{\"name\":\"lines\",\"description\":\"d\"}'\n", 0o755)
	tm := s.start()
	tm.waitFor("Trust this directory?")
	tm.typ("n")
	tm.waitFor("Not running the project's tools (lines): this directory is not trusted (ikigai trust)")
	tm.typ("\x04")
	tm.exit()
	tm = s.start()
	tm.waitFor("Not running the project's tools (lines)")
	if strings.Contains(tm.screen(), "Trust this directory?") {
		t.Error("asked again after no")
	}
	tm.typ("\x04")
	tm.exit()
}
