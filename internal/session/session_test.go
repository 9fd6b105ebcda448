package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ikigai-tools/ikigai/internal/provider"
)

// conversation has every kind of part, arguments that are not JSON, and
// text that is not valid UTF-8.
var conversation = []provider.Message{
	{Role: provider.User, Parts: []provider.Part{provider.Text("List the files\nplease"), provider.Image{Name: "a.png", MediaType: "image/png", Data: []byte("\x89PNG")}}},
	{Role: provider.Assistant, Parts: []provider.Part{
		provider.Thinking{Provider: "anthropic", Text: "Listing first.", Signature: "EqQB"},
		provider.Thinking{Provider: "anthropic", Redacted: "EmwKAhgB"},
		provider.Text("Looking."),
		provider.ToolCall{ID: "call_1", Name: "bash", Arguments: json.RawMessage(`{"command": "ls"}`), Signature: "c2lnbmF0dXJl"},
		provider.ToolCall{ID: "call_2", Name: "glob", Arguments: json.RawMessage(`{"pattern": "*.go"`)},
	}},
	{Role: provider.User, Parts: []provider.Part{
		provider.ToolResult{CallID: "call_1", Content: `{"tool_success":true,"result":{"output":"a.go","exit_code":0}}`,
			Images: []provider.Image{{Name: "bash", MediaType: "image/gif", Data: []byte("GIF89a")}}},
		provider.ToolResult{CallID: "call_2", Content: `{"tool_success":false}`, IsError: true},
	}},
	{Role: provider.Assistant, Parts: []provider.Part{provider.Text("One file: a.go")}},
}

func meta(id, dir string) Meta {
	return Meta{ID: id, Dir: dir, Started: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC), Provider: "anthropic", Model: "claude-x"}
}

func save(t *testing.T, s *Store, m Meta, msgs []provider.Message) {
	t.Helper()
	w := s.Create(m)
	defer w.Close()
	for _, msg := range msgs {
		if err := w.Append(msg); err != nil {
			t.Fatal(err)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	s := At(t.TempDir())
	save(t, s, meta("a", "/proj"), conversation)
	got, err := s.Open("a")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(meta("a", "/proj"), got.Meta); diff != "" {
		t.Errorf("meta (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(conversation, got.Messages); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if got.Torn {
		t.Error("Torn is true for a whole file")
	}
}

func TestInvalidUTF8IsReplaced(t *testing.T) {
	s := At(t.TempDir())
	save(t, s, meta("a", "/proj"), []provider.Message{provider.UserText("bad \xff\xfe byte")})
	got, err := s.Open("a")
	if err != nil {
		t.Fatal(err)
	}
	if text := got.Messages[0].Text(); text != "bad \ufffd\ufffd byte" {
		t.Errorf("text = %q", text)
	}
}

func TestNoFileWithoutMessages(t *testing.T) {
	dir := t.TempDir()
	At(dir).Create(meta("a", "/proj"))
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a session without messages left %d files", len(entries))
	}
}

func TestFileIsPrivate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "sessions")
	save(t, At(dir), meta("a", "/proj"), conversation[:1])
	info, err := os.Stat(filepath.Join(dir, "a.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Errorf("session file mode %v, want 0600", perm)
	}
}

// A crash in the middle of a write leaves part of a line: it is skipped,
// and the session continues on a line of its own.
func TestTornLastLine(t *testing.T) {
	dir := t.TempDir()
	s := At(dir)
	save(t, s, meta("a", "/proj"), conversation[:2])
	path := filepath.Join(dir, "a.jsonl")
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"role":"user","parts":[{"tool_res`)
	f.Close()

	sess, err := s.Open("a")
	if err != nil {
		t.Fatal(err)
	}
	if !sess.Torn {
		t.Error("Torn is false")
	}
	if diff := cmp.Diff(conversation[:2], sess.Messages); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	w, err := s.Continue(sess)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range conversation[2:] {
		if err := w.Append(m); err != nil {
			t.Fatal(err)
		}
	}
	sess, err = s.Open("a")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(conversation, sess.Messages); diff != "" {
		t.Errorf("after continuing (-want +got):\n%s", diff)
	}
}

// A failed run is cut out of the file as it is out of the conversation;
// cut back to nothing, a new session leaves no file.
func TestCut(t *testing.T) {
	dir := t.TempDir()
	s := At(dir)
	w := s.Create(meta("a", "/proj"))
	read := func() []provider.Message {
		t.Helper()
		sess, err := s.Open("a")
		if err != nil {
			t.Fatal(err)
		}
		return sess.Messages
	}
	for _, m := range conversation {
		if err := w.Append(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Cut(1); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(conversation[:1], read()); diff != "" {
		t.Errorf("cut to 1 (-want +got):\n%s", diff)
	}
	if err := w.Cut(3); err != nil { // nothing past 3 to cut
		t.Fatal(err)
	}
	w.Append(conversation[3])
	if diff := cmp.Diff([]provider.Message{conversation[0], conversation[3]}, read()); diff != "" {
		t.Errorf("appended after the cut (-want +got):\n%s", diff)
	}
	if err := os.MkdirAll(s.Results("a"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := w.Cut(0); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "a.results")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("a session cut to nothing is still there: %v", err)
		}
	}
	w.Append(conversation[0])
	if diff := cmp.Diff(conversation[:1], read()); diff != "" {
		t.Errorf("started again (-want +got):\n%s", diff)
	}

	// A continued session is cut at the lines it was read with, a torn
	// one cut off too; cut to nothing, it keeps its first line.
	save(t, s, meta("b", "/proj"), conversation[:3])
	f, _ := os.OpenFile(filepath.Join(dir, "b.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"role":"assis`)
	f.Close()
	sess, err := s.Open("b")
	if err != nil {
		t.Fatal(err)
	}
	if w, err = s.Continue(sess); err != nil {
		t.Fatal(err)
	}
	if err := w.Cut(2); err != nil {
		t.Fatal(err)
	}
	if sess, err = s.Open("b"); err != nil || sess.Torn || len(sess.Messages) != 2 {
		t.Fatalf("cut to 2: %+v, %v", sess, err)
	}
	if err := w.Cut(0); err != nil {
		t.Fatal(err)
	}
	if sess, err = s.Open("b"); err != nil || len(sess.Messages) != 0 || sess.Meta.ID != "b" {
		t.Fatalf("cut to 0: %+v, %v", sess, err)
	}
}

// One session has one writer at a time: another that would continue it
// is told which process holds it, until that one closes its writer.
func TestInUse(t *testing.T) {
	s := At(t.TempDir())
	w := s.Create(meta("a", "/proj"))
	if err := w.Append(conversation[0]); err != nil {
		t.Fatal(err)
	}
	sess, err := s.Open("a")
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Continue(sess)
	var inUse *InUseError
	if !errors.As(err, &inUse) || inUse.PID != os.Getpid() {
		t.Fatalf("Continue of a session in use: %v", err)
	}
	want := fmt.Sprintf("in use by pid %d (another ikigai is adding to it); wait for it to end, or start a new conversation", os.Getpid())
	if err.Error() != want {
		t.Errorf("error %q\nwant %q", err, want)
	}

	// What the first writer adds before it lets go is read again by the
	// next, which goes on from there.
	w.Append(conversation[1])
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	next, err := s.Continue(sess)
	if err != nil {
		t.Fatal(err)
	}
	defer next.Close()
	if diff := cmp.Diff(conversation[:2], sess.Messages); diff != "" {
		t.Errorf("the session as continued (-want +got):\n%s", diff)
	}
	for _, m := range conversation[2:] {
		if err := next.Append(m); err != nil {
			t.Fatal(err)
		}
	}
	if again, err := s.Open("a"); err != nil || !cmp.Equal(conversation, again.Messages) {
		t.Errorf("read back: %v, %v", again, err)
	}
	if _, err := s.Continue(sess); !errors.As(err, &inUse) {
		t.Errorf("a second Continue: %v", err)
	}
}

func TestBadFiles(t *testing.T) {
	for _, tc := range []struct{ name, data, err string }{
		{"empty", "", "empty session file"},
		{"only a torn line", `{"id":"a"`, "empty session file"},
		{"no id", `{"dir":"/"}` + "\n", "first line: no session id"},
		{"not json", "hello\n", "first line: invalid character"},
		{"bad middle line", `{"id":"a"}` + "\nnot json\n" + `{"role":"user","parts":[]}` + "\n", "line 2: invalid character"},
		{"unknown role", `{"id":"a"}` + "\n" + `{"role":"system","parts":[]}` + "\n", `line 2: unknown role "system"`},
		{"two kinds in a part", `{"id":"a"}` + "\n" + `{"role":"user","parts":[{"text":"a","tool_result":{}}]}` + "\n", "line 2: part 1: want one of"},
		{"empty part", `{"id":"a"}` + "\n" + `{"role":"user","parts":[{}]}` + "\n", "line 2: part 1: want one of"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.data))
			if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
				t.Errorf("error %v, want it to start %q", err, tc.err)
			}
		})
	}
}

func TestOpenRejectsPaths(t *testing.T) {
	s := At(t.TempDir())
	for _, id := range []string{"", "../x", "a/b", ".hidden", ".."} {
		if _, err := s.Open(id); err == nil {
			t.Errorf("Open(%q) succeeded", id)
		}
	}
	if _, err := s.Open("missing"); err == nil || !strings.Contains(err.Error(), "ikigai sessions lists them") {
		t.Errorf("Open(missing) = %v", err)
	}
}

func TestListAndLatest(t *testing.T) {
	dir := t.TempDir()
	s := At(dir)
	save(t, s, meta("20260101-000000-aaaaaa", "/one"), conversation)
	save(t, s, meta("20260102-000000-bbbbbb", "/two"), conversation[:1])
	save(t, s, meta("20260103-000000-cccccc", "/one"), []provider.Message{provider.UserText("  \nSecond\nthird")})
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a session"), 0o644)
	os.WriteFile(filepath.Join(dir, "broken.jsonl"), []byte("garbage\n"), 0o644)

	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sum := range list {
		got = append(got, fmt.Sprintf("%s %s %s %d", sum.ID, sum.Dir, sum.Title, sum.Messages))
	}
	want := []string{
		"20260103-000000-cccccc /one Second 1",
		"20260102-000000-bbbbbb /two List the files 1",
		"20260101-000000-aaaaaa /one List the files 4",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}

	for dir, want := range map[string]string{"/one": "20260103-000000-cccccc", "/two": "20260102-000000-bbbbbb", "/three": ""} {
		if id, err := s.Latest(dir); err != nil || id != want {
			t.Errorf("Latest(%s) = %q, %v; want %q", dir, id, err, want)
		}
	}
}

func TestNewIDSortsByTime(t *testing.T) {
	a := NewID(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	b := NewID(time.Date(2026, 1, 2, 3, 4, 6, 0, time.UTC))
	if !strings.HasPrefix(a, "20260102-030405-") || len(a) != len("20260102-030405-")+6 || a >= b {
		t.Errorf("ids %q, %q", a, b)
	}
}

// FuzzParse checks that no file makes Parse panic, and that whatever it
// accepts survives being written again.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"id":"a","dir":"/"}` + "\n" + `{"role":"user","parts":[{"text":"hi"}]}` + "\n"))
	f.Add([]byte(`{"id":"a"}` + "\n" + `{"role":"assistant","parts":[{"tool_call":{"id":"1","name":"b","arguments":"{"}}]}` + "\n" + `{"role":"us`))
	f.Add([]byte(`{"id":"a"}` + "\n" + `{"role":"user","parts":[{"tool_result":{"call_id":"1","content":"x","is_error":true}}]}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sess, err := Parse(data)
		if err != nil {
			return
		}
		dir := t.TempDir()
		save(t, At(dir), sess.Meta, sess.Messages)
		if len(sess.Messages) == 0 {
			return
		}
		again, err := At(dir).Open(sess.Meta.ID)
		if err != nil {
			t.Fatalf("a parsed session does not read back: %v", err)
		}
		if len(again.Messages) != len(sess.Messages) {
			t.Fatalf("%d messages read back, want %d", len(again.Messages), len(sess.Messages))
		}
	})
}

// A sub-agent's messages are saved between the conversation's, read back
// apart from it, and cut with the run they came in; the conversation's own
// lines are still found where they end, and continuing the session
// appends after the last line, whoever wrote it.
func TestAgentMessages(t *testing.T) {
	s := At(t.TempDir())
	w := s.Create(meta("a", "/proj"))
	sub := []provider.Message{provider.UserText("Count the files"), {Role: provider.Assistant, Parts: []provider.Part{provider.Text("Two.")}}}
	steps := []func() error{
		func() error { return w.Append(conversation[0]) },
		func() error { return w.Append(conversation[1]) },
		func() error { return w.AppendAgent("agent-1", sub[0]) },
		func() error { return w.AppendAgent("agent-1", sub[1]) },
		func() error { return w.Append(conversation[2]) },
		func() error { return w.Append(conversation[3]) },
		func() error { return w.AppendAgent("agent-2", sub[0]) },
		func() error { return w.Cut(3) }, // the last answer, and agent-2's line after it, go
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	w.Close()
	got, err := s.Open("a")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(conversation[:3], got.Messages); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	want := []AgentMessage{{"agent-1", sub[0]}, {"agent-1", sub[1]}}
	if diff := cmp.Diff(want, got.Agents); diff != "" {
		t.Errorf("agents (-want +got):\n%s", diff)
	}

	w, err = s.Continue(got)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append(conversation[3]); err != nil {
		t.Fatal(err)
	}
	if err := w.Cut(4); err != nil { // nothing past it: a no-op
		t.Fatal(err)
	}
	w.Close()
	got, err = s.Open("a")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(conversation, got.Messages); diff != "" {
		t.Errorf("messages after continuing (-want +got):\n%s", diff)
	}
}

// Turns are recorded after their messages and read back; cutting the
// conversation back to a turn's start keeps the turns before it, and a
// compaction leaves the earlier turns to their files.
func TestTurns(t *testing.T) {
	s := At(t.TempDir())
	w := s.Create(meta("t", "/proj"))
	w.Turn(Turn{Prompt: "nothing yet"}) // before any message: not written
	w.Append(conversation[0])
	w.Append(conversation[1])
	w.Append(conversation[2])
	w.Append(conversation[3])
	first := Turn{Prompt: "List the files\nplease", Messages: 0, Before: "c1", After: "c2"}
	if err := w.Turn(first); err != nil {
		t.Fatal(err)
	}
	w.Append(provider.UserText("again"))
	w.Append(provider.Message{Role: provider.Assistant, Parts: []provider.Part{provider.Text("Done.")}})
	second := Turn{Prompt: "again", Messages: 4}
	w.Turn(second)
	sess, err := s.Open("t")
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]Turn{first, second}, sess.Turns); d != "" {
		t.Errorf("turns (-want +got):\n%s", d)
	}
	if len(sess.Messages) != 6 {
		t.Errorf("%d messages", len(sess.Messages))
	}
	// Rewinding the second turn's conversation keeps the first's record.
	if err := w.Cut(4); err != nil {
		t.Fatal(err)
	}
	sess, _ = s.Open("t")
	if d := cmp.Diff([]Turn{first}, sess.Turns); d != "" || len(sess.Messages) != 4 {
		t.Errorf("after the cut, %d messages; turns (-want +got):\n%s", len(sess.Messages), d)
	}
	w.Compact([]provider.Message{provider.UserText("summary"), provider.UserText("go on")})
	w.Compact([]provider.Message{provider.UserText("summary again"), provider.UserText("go on")})
	w.Close()
	sess, _ = s.Open("t")
	first.Compacted = true
	if d := cmp.Diff([]Turn{first}, sess.Turns); d != "" {
		t.Errorf("after a compaction (-want +got):\n%s", d)
	}
}

// Reading a compacted session starts its conversation at the last
// compaction, skimming what came before but for the title, the
// compactions' count and the sub-agents' messages.
func TestCompacted(t *testing.T) {
	s := At(t.TempDir())
	w := s.Create(meta("a", "/proj"))
	summary := func(n string) []provider.Message {
		return []provider.Message{provider.UserText("Summary " + n), conversation[3]}
	}
	sub := provider.UserText("Count the files")
	steps := []func() error{
		func() error { return w.Append(conversation[0]) },
		func() error { return w.Append(conversation[1]) },
		func() error { return w.Append(conversation[2]) },
		func() error { return w.AppendAgent("agent-1", sub) },
		func() error { return w.Compact(summary("1")) },
		func() error { return w.Append(provider.UserText("more")) },
		func() error { return w.Compact(summary("2")) },
		func() error { return w.Append(provider.UserText("after")) },
	}
	for i, step := range steps {
		if err := step(); err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
	}
	w.Close()
	got, err := s.Open("a")
	if err != nil {
		t.Fatal(err)
	}
	want := append(summary("2"), provider.UserText("after"))
	if diff := cmp.Diff(want, got.Messages); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if got.Compactions != 2 || got.Title != "List the files" || len(got.Agents) != 1 {
		t.Errorf("compactions %d, title %q, agents %v", got.Compactions, got.Title, got.Agents)
	}
	// It goes on where it ended, and cuts where its messages end.
	if w, err = s.Continue(got); err != nil {
		t.Fatal(err)
	}
	if err := w.Append(provider.UserText("next")); err != nil {
		t.Fatal(err)
	}
	if err := w.Cut(len(want)); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if got, err = s.Open("a"); err != nil || !cmp.Equal(want, got.Messages) {
		t.Errorf("after continuing and cutting: %v, %v", got.Messages, err)
	}
}
