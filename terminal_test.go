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

	"github.com/charmbracelet/x/ansi"
	"github.com/creack/pty"
	"github.com/google/go-cmp/cmp"
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

	mu       sync.Mutex
	vt       vt10x.Terminal
	rows     int
	scrolled []string     // the lines scrolled off the top, which vt10x forgets
	raw      bytes.Buffer // everything ikigai wrote, for failure messages
}

// The terminal's size, unless a test sets session.cols and session.rows.
const rows, cols = 60, 120

// session is a place to run ikigai: a home, a working directory, and the
// fake model API answering from replies.
type session struct {
	t    *testing.T
	home string
	dir  string
	srv  *providertest.Server
	env  []string

	cols, rows int // the terminal's size
}

func newSession(t *testing.T, replies ...providertest.Reply) *session {
	t.Helper()
	root := t.TempDir()
	s := &session{t: t, home: filepath.Join(root, "home"), dir: filepath.Join(root, "work"), cols: cols, rows: rows}
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
		// The model's text as it wrote it: what most tests check. The
		// Markdown tests take this out.
		"NO_COLOR=1",
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
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: uint16(s.rows), Cols: uint16(s.cols)})
	if err != nil {
		s.t.Fatal(err)
	}
	tm := &terminal{t: s.t, pty: f, cmd: cmd, exited: make(chan struct{}), rows: s.rows}
	tm.vt = vt10x.New(vt10x.WithSize(s.cols, s.rows), vt10x.WithWriter(f))
	go func() {
		buf := make([]byte, 32<<10)
		var held []byte
		for {
			n, err := f.Read(buf)
			tm.mu.Lock()
			tm.raw.Write(buf[:n])
			var ready []byte
			ready, held = completeSequences(append(held, buf[:n]...))
			tm.feed(kittyKeyboard.ReplaceAll(ready, nil))
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

// feed passes what ikigai wrote to the terminal emulator, keeping each line
// that a line feed at the bottom scrolls off the top, as a terminal's
// scrollback does. ikigai's output scrolls only that way: it never writes
// into the last column, where a character would wrap onto a new line. The
// caller holds tm.mu.
func (tm *terminal) feed(data []byte) {
	for {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			tm.vt.Write(data)
			return
		}
		tm.vt.Write(data[:i])
		if tm.vt.Cursor().Y == tm.rows-1 {
			tm.scrolled = append(tm.scrolled, tm.lines()[0])
		}
		tm.vt.Write(data[i : i+1])
		data = data[i+1:]
	}
}

// lines returns the rows of the screen, trailing blanks trimmed. The caller
// holds tm.mu.
func (tm *terminal) lines() []string {
	var lines []string
	for _, l := range strings.Split(tm.vt.String(), "\n") {
		lines = append(lines, strings.TrimRight(l, " "))
	}
	return lines
}

// screen returns what the terminal shows, trailing blank lines trimmed.
func (tm *terminal) screen() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return strings.TrimRight(strings.Join(tm.lines(), "\n"), "\n")
}

// history returns the scrollback and the screen below it, as one text:
// everything a user could scroll through.
func (tm *terminal) history() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return strings.TrimRight(strings.Join(append(slices.Clone(tm.scrolled), tm.lines()...), "\n"), "\n")
}

// resize changes the terminal's size, as a user dragging its window would.
// Like xterm, it does not reflow lines; rows that no longer fit above the
// cursor go to the scrollback.
func (tm *terminal) resize(cols, rows int) {
	tm.t.Helper()
	tm.mu.Lock()
	if slide := tm.vt.Cursor().Y - rows + 1; slide > 0 {
		tm.scrolled = append(tm.scrolled, tm.lines()[:slide]...)
	}
	tm.vt.Resize(cols, rows)
	tm.rows = rows
	tm.mu.Unlock()
	if err := pty.Setsize(tm.pty, &pty.Winsize{Rows: uint16(rows), Cols: uint16(cols)}); err != nil {
		tm.t.Fatal(err)
	}
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

// waitIdle waits until the turn is over: no busy line under the
// scrollback.
func (tm *terminal) waitIdle() {
	tm.t.Helper()
	for deadline := time.Now().Add(patience); strings.Contains(tm.screen(), "Ctrl-C to cancel"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			tm.t.Fatalf("still busy:\n%s", tm.screen())
		}
	}
}

// gone fails the test unless no process whose command line holds pattern
// is left within a second: one killed may take a moment to go.
func gone(t *testing.T, pattern string) {
	t.Helper()
	for deadline := time.Now().Add(time.Second); ; time.Sleep(20 * time.Millisecond) {
		p := processes(pattern)
		if len(p) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("left running: %v", p)
			return
		}
	}
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
		"→ file_write: greeting.txt (a new file)\n@@ -0,0 +1,2 @@\n+ 1 │ Hello\n+ 2 │ World\nAllow this call? y yes · n no · a always, for this session")
	if _, err := os.Stat(filepath.Join(s.dir, "greeting.txt")); err == nil {
		t.Fatal("the file was written before the call was approved")
	}
	tm.typ("y")
	tm.waitFor("← file_write: ok: Wrote 12 bytes to greeting.txt", "Done: greeting.txt says hello.")
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
	tm.waitFor("Back again.\n> Ask anything") // the run is over: the busy line is gone
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
	s.cols = 160 // the list of commands on one line
	tm := s.start()
	tm.waitFor("Debug: tool 'hang' schema failed (timeout)")
	tm.typ("/tool\r")
	tm.waitFor("Available tools:\n  agent (" + filepath.Join(layout, "libexec", "ikigai", "agent-tool") + ")\n  bash (")

	s.file(filepath.Join(tools, "lines-tool"), "#!/bin/sh\necho '{\"name\":\"lines\",\"description\":\"Count lines\"}'\n", 0o755)
	tm.typ("/refresh\r")
	tm.waitFor("Tool registry refreshed: 13 tools loaded")
	tm.typ("/tool lines\r")
	tm.waitFor("Tool: lines\nPath: " + filepath.Join(tools, "lines-tool") + "\nSchema:\n{\n  \"name\": \"lines\",")
	tm.typ("/nosuch\r")
	tm.waitFor("Unknown command: /nosuch\nCommands: /help /tool /refresh /model", "/diff /exit")
	tm.typ("\x04")
	tm.exit()
	if p := processes("sleep 312"); len(p) > 0 {
		t.Errorf("left running: %v", p)
	}
}

// Enter while the model works queues the line and sends it after; Esc
// cancels a running tool and leaves nothing running; Tab completes a
// command and an @path.
func TestTerminalQueueEscTab(t *testing.T) {
	s := newSession(t,
		providertest.Reply{Text: "First answer.", DelayMS: 1500},
		providertest.Reply{Text: "Second answer."},
		providertest.Reply{ToolCalls: []providertest.Call{
			toolCall("toolu_1", "bash", map[string]string{"command": "echo started > mark; sleep 313"}),
		}},
	)
	s.file(filepath.Join(s.dir, "README.md"), "# read me\n", 0o644)
	tm := s.start("--yes")
	tm.waitFor("/help for commands")
	tm.typ("first\r")
	tm.waitFor("Ctrl-C to cancel")
	tm.typ("second\r")
	tm.waitFor("Queued: second")
	tm.waitFor("First answer.\n\n> second\nSecond answer.")

	tm.typ("wait\r")
	waitFile(t, filepath.Join(s.dir, "mark"))
	tm.waitFor("Running bash…")
	tm.typ("\x1b")
	tm.waitFor("← bash: TOOL_CANCELLED", "Cancelled.")
	gone(t, "sleep 313")

	tm.typ("/to\t")
	tm.waitFor("> /tool")
	tm.typ("\x03@READ\t")
	tm.waitFor("> @README.md")
	tm.typ("\x03\x04")
	if code := tm.exit(); code != 0 {
		t.Errorf("exit code %d", code)
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

// waitHistory waits until the scrollback and the screen hold exactly want
// and then the status line, which names the model.
func (tm *terminal) waitHistory(want ...string) {
	tm.t.Helper()
	deadline := time.Now().Add(patience)
	for {
		got := strings.Split(tm.history(), "\n")
		status := got[len(got)-1]
		got = got[:len(got)-1]
		diff := cmp.Diff(want, got)
		if diff == "" && strings.HasPrefix(status, "claude-") { // the status line, not the busy line
			return
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("the scrollback and screen (-want +got):\n%s\nand the status line %q", diff, status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// wrapped is text as ikigai prints it in a terminal cols wide, each line
// wrapped at spaces to one column less, and as the screen shows it, without
// trailing blanks.
func wrapped(text string, cols int) []string {
	rows := strings.Split(ansi.Wrap(text, cols-1, ""), "\n")
	for i, r := range rows {
		rows[i] = strings.TrimRight(r, " ")
	}
	return rows
}

// Output taller than the window goes into the scrollback whole, in order,
// wrapped, once; the prompt and the status line stay below it, and nothing
// of them is left in the scrollback.
func TestTerminalTallOutput(t *testing.T) {
	s := newSession(t)
	s.cols, s.rows = 100, 30
	show, err := exec.Command(filepath.Join(layout, "bin", "ikigai"), "tools", "show", "bash").Output()
	if err != nil {
		t.Fatal(err)
	}
	out := strings.TrimSuffix(string(show), "\n")
	if n := strings.Count(out, "\n"); n < 40 {
		t.Fatalf("bash's description is %d lines, not taller than the window", n)
	}
	tm := s.start()
	tm.waitFor("/help for commands")
	tm.typ("/tool bash\r")
	tm.waitHistory(slices.Concat([]string{"", "> /tool bash"}, wrapped(out, 100), []string{"> Ask anything, or /help"})...)
	tm.typ("\x04")
	tm.exit()
}

// A streamed line longer than the window holds, and an answer taller than
// the window, are printed once each, whole and in order.
func TestTerminalLongLines(t *testing.T) {
	var long []string
	for i := range 400 {
		long = append(long, fmt.Sprintf("word%04d", i))
	}
	var tall []string
	for i := range 50 {
		tall = append(tall, fmt.Sprintf("line %d", i))
	}
	answer := strings.Join(long, " ") + "\n" + strings.Join(tall, "\n")
	s := newSession(t, providertest.Reply{Text: answer})
	s.cols, s.rows = 100, 30
	tm := s.start()
	tm.waitFor("/help for commands")
	tm.typ("Tell me a lot\r")
	tm.waitHistory(slices.Concat([]string{"", "> Tell me a lot"}, wrapped(answer, 100), []string{"> Ask anything, or /help"})...)
	tm.typ("\x04")
	tm.exit()
}

// After the window is resized, smaller or larger, output is wrapped to the
// new width and the prompt is drawn once, below it. (The screen holds only
// short lines when it shrinks: this terminal, as xterm, cuts the lines on
// the screen to the new width.)
func TestTerminalResize(t *testing.T) {
	var count []string
	for i := range 40 {
		count = append(count, fmt.Sprintf("line %d", i))
	}
	more := strings.Repeat("and so on ", 30) + "\nthe end"
	s := newSession(t, providertest.Reply{Text: strings.Join(count, "\n")}, providertest.Reply{Text: more})
	s.cols, s.rows = 100, 30
	show, err := exec.Command(filepath.Join(layout, "bin", "ikigai"), "tools", "show", "bash").Output()
	if err != nil {
		t.Fatal(err)
	}
	out := strings.TrimSuffix(string(show), "\n")
	tm := s.start()
	tm.waitFor("/help for commands")
	tm.typ("/tool bash\r")
	want := slices.Concat([]string{"", "> /tool bash"}, wrapped(out, 100))
	tm.waitHistory(append(want, "> Ask anything, or /help")...)
	tm.typ("Count\r")
	want = slices.Concat(want, []string{"", "> Count"}, count)
	tm.waitHistory(append(want, "> Ask anything, or /help")...)

	tm.resize(70, 20)
	tm.typ("/tool bash\r")
	want = slices.Concat(want, []string{"", "> /tool bash"}, wrapped(out, 70))
	tm.waitHistory(append(want, "> Ask anything, or /help")...)

	tm.resize(120, 40)
	tm.typ("Go on\r")
	want = slices.Concat(want, []string{"", "> Go on"}, wrapped(more, 120))
	tm.waitHistory(append(want, "> Ask anything, or /help")...)
	tm.typ("\x04")
	tm.exit()
}

// A question about a call taller than the window shows all of it, with
// what would not print escaped, and says where to look; n refuses it.
// Ctrl-C at the next question cancels the run, and the call with it.
func TestTerminalTallQuestion(t *testing.T) {
	command := "echo harmless" + strings.Repeat("\n", 60) + "echo payload \u202eevil\x1b[2J\x00"
	s := newSession(t,
		providertest.Reply{ToolCalls: []providertest.Call{toolCall("toolu_1", "bash", map[string]string{"command": command})}},
		providertest.Reply{Text: "Refused, then."},
		providertest.Reply{ToolCalls: []providertest.Call{toolCall("toolu_2", "bash", map[string]string{"command": "touch mark"})}},
	)
	s.cols, s.rows = 100, 30
	tm := s.start()
	tm.waitFor("/help for commands")
	tm.typ("Run it\r")
	tm.waitFor(`    echo payload \u202eevil\x1b[2J\x00` + "\nThe call above is 61 lines long: scroll back to see all of it.\n" +
		"Allow this call? y yes · n no · a always, for this session")
	// The call's line names the tool; the question does not say it again.
	if h := tm.history(); !strings.Contains(h, "\n  command: echo harmless\n"+strings.Repeat("\n", 59)+`    echo payload`) || strings.Contains(h, "→ bash:\n") {
		t.Errorf("the scrollback does not hold the whole call:\n%s", h)
	}
	tm.typ("n")
	tm.waitFor("← bash: TOOL_DENIED: Tool 'bash' was denied: the user refused this call", "Refused, then.")

	tm.typ("Once more\r")
	tm.waitFor("  command: touch mark\nAllow this call?")
	tm.typ("\x03")
	tm.waitFor("← bash: TOOL_CANCELLED: Tool 'bash' was cancelled before it started\nCancelled.\n> Ask anything")
	if _, err := os.Stat(filepath.Join(s.dir, "mark")); err == nil {
		t.Error("the cancelled call ran")
	}
	tm.typ("\x04")
	if code := tm.exit(); code != 0 {
		t.Errorf("exit code %d", code)
	}
}

// A file_edit is asked about as the diff it would make to the file, with
// line numbers; "t" refuses it with a reason the model gets.
func TestTerminalDiffApproval(t *testing.T) {
	s := newSession(t,
		providertest.Reply{ToolCalls: []providertest.Call{
			toolCall("toolu_1", "file_edit", map[string]string{"file_path": "notes.txt", "old_string": "five", "new_string": "FIVE"}),
		}},
		providertest.Reply{Text: "I will leave it."},
	)
	s.file(filepath.Join(s.dir, "notes.txt"), "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\nnine\n", 0o644)
	tm := s.start()
	tm.waitFor("/help for commands")
	tm.typ("Shout five\r")
	tm.waitFor("→ file_edit: notes.txt\n@@ -2,7 +2,7 @@\n  2 │ two\n  3 │ three\n  4 │ four\n- 5 │ five\n+ 5 │ FIVE\n  6 │ six\n  7 │ seven\n  8 │ eight\n" +
		"Allow this call? y yes · n no · a always, for this session · t no, and tell the model why")
	tm.typ("t")
	tm.waitFor("Tell the model why")
	tm.typ("numbers stay lower case\r")
	tm.waitFor("← file_edit: TOOL_DENIED", "I will leave it.")
	reqs := s.srv.Requests()
	if body := string(reqs[len(reqs)-1].Body); !strings.Contains(body, "the user refused this call and says: numbers stay lower case") {
		t.Errorf("the model was not told why: %s", body)
	}
	if data, _ := os.ReadFile(filepath.Join(s.dir, "notes.txt")); strings.Contains(string(data), "FIVE") {
		t.Error("the refused edit was made")
	}
	tm.typ("\x04")
	if code := tm.exit(); code != 0 {
		t.Errorf("exit code %d", code)
	}
}

// /rewind restores files a turn changed, through bash and through
// file_edit alike, takes the conversation back, and puts the turn's
// prompt back at the prompt; /diff shows the changes first.
func TestTerminalRewind(t *testing.T) {
	s := newSession(t,
		providertest.Reply{ToolCalls: []providertest.Call{
			toolCall("toolu_1", "bash", map[string]string{"command": "echo more >> a.txt"}),
			toolCall("toolu_2", "file_edit", map[string]string{"file_path": "b.txt", "old_string": "beta", "new_string": "BETA"}),
		}},
		providertest.Reply{Text: "Both changed."},
	)
	s.file(filepath.Join(s.dir, "a.txt"), "alpha\n", 0o644)
	s.file(filepath.Join(s.dir, "b.txt"), "beta\n", 0o644)
	tm := s.start("--yes")
	tm.waitFor("/help for commands")
	tm.typ("Change both files\r")
	tm.waitFor("Both changed.\n> Ask anything") // the turn is over: its files are recorded
	tm.typ("/diff\r")
	tm.waitFor("+more\n", "-beta\n+BETA\n")
	tm.typ("/rewind 1\r")
	tm.waitFor("Files restored to before turn 1 (2 changed: a.txt, b.txt).\n" +
		"The conversation is back to before turn 1; its prompt is back at the prompt.\n> Change both files")
	for name, want := range map[string]string{"a.txt": "alpha\n", "b.txt": "beta\n"} {
		if data, err := os.ReadFile(filepath.Join(s.dir, name)); err != nil || string(data) != want {
			t.Errorf("%s: %q, %v", name, data, err)
		}
	}
	tm.typ("\x03\x04") // clear the prompt, then quit
	if code := tm.exit(); code != 0 {
		t.Errorf("exit code %d", code)
	}
}

// Esc twice on an empty prompt opens the turns to rewind to: Enter takes
// one, f its files.
func TestTerminalRewindPicker(t *testing.T) {
	s := newSession(t,
		providertest.Reply{ToolCalls: []providertest.Call{toolCall("toolu_1", "bash", map[string]string{"command": "echo more >> a.txt"})}},
		providertest.Reply{Text: "Changed."},
		providertest.Reply{Text: "Just talk."},
	)
	s.file(filepath.Join(s.dir, "a.txt"), "alpha\n", 0o644)
	tm := s.start("--yes")
	tm.waitFor("/help for commands")
	tm.typ("Change the file\r")
	tm.waitFor("Changed.\n> Ask anything")
	tm.typ("Say something\r")
	tm.waitFor("Just talk.\n> Ask anything")
	tm.typ("\x1b")
	tm.waitFor("Press Esc again to rewind to an earlier turn.")
	tm.typ("\x1b")
	tm.waitFor("  1  Change the file  (changed files)\n> 2  Say something\nRewind: Up and Down choose a turn, Enter takes it, Esc leaves")
	tm.typ("\x1b[A") // Up
	tm.waitFor("> 1  Change the file  (changed files)\n  2  Say something")
	tm.typ("\r")
	tm.waitFor("Rewind to before turn 1? b files and conversation · f files only · c conversation only · Esc back")
	tm.typ("f")
	tm.waitFor("> /rewind 1 files\nFiles restored to before turn 1 (1 changed: a.txt).")
	if data, err := os.ReadFile(filepath.Join(s.dir, "a.txt")); err != nil || string(data) != "alpha\n" {
		t.Errorf("a.txt: %q, %v", data, err)
	}
	tm.typ("\x04")
	if code := tm.exit(); code != 0 {
		t.Errorf("exit code %d", code)
	}
}

// An answer streams in as Markdown, each block rendered once it is whole:
// a heading, emphasis, a list, a code block and a table, at 80 and 120
// columns; nothing of the Markdown's own marks is left, and the text of
// each block is there.
func TestTerminalMarkdown(t *testing.T) {
	answer := "# The plan\n\nSome **bold** and `code` words.\n\n- first item\n- second item\n\n```go\nfunc main() {\n\tprintln(\"hi\")\n}\n```\n\n| name | size |\n|------|------|\n| a.go | 12 |\n\nThe end."
	for _, cols := range []int{80, 120} {
		t.Run(fmt.Sprint(cols), func(t *testing.T) {
			s := newSession(t, providertest.Reply{Text: answer})
			s.env = slices.DeleteFunc(s.env, func(v string) bool { return v == "NO_COLOR=1" })
			s.cols = cols
			tm := s.start()
			tm.waitFor("/help for commands")
			tm.typ("Plan it\r")
			tm.waitFor("The plan", "Some bold and", "• first item", "func main() {", "name", "a.go", "The end.")
			tm.waitIdle()
			screen := tm.history()
			for _, raw := range []string{"**bold**", "# The plan", "```", "|------|"} {
				if strings.Contains(screen, raw) {
					t.Errorf("%q is shown as written:\n%s", raw, screen)
				}
			}
			tm.typ("\x04")
			tm.exit()
		})
	}
}

// A resumed conversation's answers are shown rendered, as they were when
// they streamed, and before anything else.
func TestTerminalResumeMarkdown(t *testing.T) {
	answer := "Some **bold** words.\n\n| name | size |\n|------|------|\n| a.go | 12 |\n\nThe end."
	s := newSession(t, providertest.Reply{Text: answer})
	s.env = slices.DeleteFunc(s.env, func(v string) bool { return v == "NO_COLOR=1" })
	tm := s.start()
	tm.waitFor("/help for commands")
	tm.typ("Plan it\r")
	tm.waitFor("The end.")
	tm.waitIdle()
	tm.typ("\x04")
	tm.exit()

	tm = s.start("--continue")
	tm.waitFor("/help for commands", "Plan it", "Some bold words.", "a.go", "The end.")
	tm.waitIdle()
	screen := tm.history()
	for _, raw := range []string{"**bold**", "|------|"} {
		if strings.Contains(screen, raw) {
			t.Errorf("%q is shown as written:\n%s", raw, screen)
		}
	}
	tm.typ("\x04")
	tm.exit()
}

// A resize while the answer is under way: what was printed stays as it
// was, once; what comes after is rendered to the new width.
func TestTerminalResizeWhileStreaming(t *testing.T) {
	long := strings.Repeat("a sentence that wraps ", 12)
	s := newSession(t,
		providertest.Reply{Text: "# Before\n\n" + long + "\n\n", ToolCalls: []providertest.Call{
			toolCall("toolu_1", "bash", map[string]string{"command": "echo started > mark; sleep 1"}),
		}},
		providertest.Reply{Text: "| file | lines |\n|---|---|\n| main.go | 12 |\n\n" + long + "\n\nAfter."},
	)
	s.env = slices.DeleteFunc(s.env, func(v string) bool { return v == "NO_COLOR=1" })
	s.cols, s.rows = 100, 30
	tm := s.start("--yes")
	tm.waitFor("/help for commands")
	tm.typ("Go\r")
	waitFile(t, filepath.Join(s.dir, "mark"))
	tm.resize(60, 30)
	tm.waitFor("After.")
	tm.waitIdle()
	history := tm.history()
	if n := strings.Count(history, "Before"); n != 1 {
		t.Errorf("the heading shows %d times:\n%s", n, history)
	}
	after := history[strings.Index(history, "← bash"):]
	for _, l := range strings.Split(after, "\n") {
		if w := ansi.StringWidth(l); w >= 60 {
			t.Errorf("a row %d wide after the resize to 60 columns: %q", w, l)
		}
	}
	if !strings.Contains(after, "main.go") || strings.Contains(after, "|---|") {
		t.Errorf("the table after the resize:\n%s", after)
	}
	tm.typ("\x04")
	tm.exit()
}
