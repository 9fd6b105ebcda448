package repl_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ikigai-tools/ikigai/internal/approval"
	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/provider/providertest"
	"github.com/ikigai-tools/ikigai/internal/repl"
)

// changeTool changes the files of the working directory as a model's
// edits and commands would: one file changed, one removed, one added.
const changeTool = `#!/bin/sh
if [ "$1" = --schema ]; then echo '{"name":"change","description":"Changes files"}'; exit 0; fi
cat >/dev/null
cd "$1" || exit 1
echo changed >> a.txt; rm -f b.txt; echo new > c.txt
echo '{"ok":true}'
`

func rewindFixture(t *testing.T, replies ...providertest.Reply) (*fixture, string) {
	t.Helper()
	return rewindFixtureIn(t, t.TempDir(), replies...)
}

// rewindFixtureIn is rewindFixture working in the directory work.
func rewindFixtureIn(t *testing.T, work string, replies ...providertest.Reply) (*fixture, string) {
	t.Helper()
	f := newFixture(t, replies...)
	os.MkdirAll(work, 0o755)
	// The tool runs in the process's directory: it is told where to go.
	os.WriteFile(filepath.Join(f.tools, "change-tool"), []byte(strings.Replace(changeTool, "#!/bin/sh\n", "#!/bin/sh\nset -- \"${1:-"+work+"}\"\n", 1)), 0o755)
	f.be.Refresh(context.Background())
	os.WriteFile(filepath.Join(work, "a.txt"), []byte("a\n"), 0o644)
	os.WriteFile(filepath.Join(work, "b.txt"), []byte("b\n"), 0o644)
	f.shell.Dir, f.shell.Home, f.shell.Checkpoints = work, "/nonexistent", filepath.Join(t.TempDir(), "checkpoints")
	f.shell.Asker = approval.AskerFunc(func(context.Context, approval.Request) (approval.Answer, error) {
		return approval.Answer{Yes: true}, nil
	})
	return f, work
}

func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		got[e.Name()] = string(data)
	}
	return got
}

// A turn's changes, made by a tool whatever it is, are shown by /diff and
// undone by /rewind, which takes the conversation back too and hands the
// prompt back.
func TestRewind(t *testing.T) {
	f, work := rewindFixture(t,
		providertest.Reply{ToolCalls: []providertest.Call{{ID: "c1", Name: "change", Arguments: json.RawMessage(`{}`)}}},
		providertest.Reply{Text: "Changed."},
		providertest.Reply{Text: "Nothing to do."},
	)
	if got := f.run(t, "/rewind").Output; got != "Nothing to rewind yet." {
		t.Errorf("/rewind at first: %q", got)
	}
	if got := f.run(t, "/diff").Output; got != "No files changed in this session yet." {
		t.Errorf("/diff at first: %q", got)
	}
	before := tree(t, work)
	f.run(t, "change the files\nplease")
	f.run(t, "and now?")
	want := "Turns (/rewind N goes back to before turn N; /rewind N files or /rewind N conversation, to one of them):\n" +
		"  1  change the files  (changed files)\n" +
		"  2  and now?"
	if got := f.run(t, "/rewind").Output; got != want {
		t.Errorf("/rewind:\n%s\nwant\n%s", got, want)
	}
	res := f.run(t, "/diff")
	if !res.Diff || !strings.Contains(res.Output, " a.txt | 1 +\n") || !strings.Contains(res.Output, "+changed\n") || !strings.Contains(res.Output, "-b\n") {
		t.Errorf("/diff:\n%s", res.Output)
	}
	if turns := f.shell.Turns(); len(turns) != 2 || turns[0].Prompt != "change the files\nplease" || turns[0].Before == "" || turns[1].Before != "" {
		t.Errorf("turns: %+v", turns)
	}
	if _, items := f.shell.Complete("/rewind ", 8); !cmp.Equal(items, []string{"1", "2"}) {
		t.Errorf("completing /rewind: %q", items)
	}

	res = f.run(t, "/rewind 1")
	want = "Files restored to before turn 1 (3 changed: a.txt, b.txt, c.txt).\nThe conversation is back to before turn 1; its prompt is back at the prompt."
	if res.Output != want || res.Prompt != "change the files\nplease" {
		t.Errorf("/rewind 1: %+v", res)
	}
	if d := cmp.Diff(before, tree(t, work)); d != "" {
		t.Errorf("files after /rewind 1 (-want +got):\n%s", d)
	}
	if n := len(f.shell.Conversation()); n != 0 {
		t.Errorf("%d messages left", n)
	}
	saved, err := f.store.Open(f.shell.SessionID())
	if err == nil && (len(saved.Messages) != 0 || len(saved.Turns) != 0) {
		t.Errorf("saved after the rewind: %d messages, turns %+v", len(saved.Messages), saved.Turns)
	}
	if got := f.run(t, "/rewind").Output; got != "Nothing to rewind yet." {
		t.Errorf("/rewind after: %q", got)
	}
}

// A resumed session can be rewound; after a compaction, only its files.
func TestRewindResumed(t *testing.T) {
	f, work := rewindFixture(t,
		providertest.Reply{ToolCalls: []providertest.Call{{ID: "c1", Name: "change", Arguments: json.RawMessage(`{}`)}}},
		providertest.Reply{Text: "Changed."},
	)
	before := tree(t, work)
	f.run(t, "change the files")
	id := f.shell.SessionID()
	f.shell.Close()
	sess, err := f.store.Open(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(sess.Turns) != 1 || sess.Turns[0].Before == "" || sess.Turns[0].After == "" {
		t.Fatalf("turns saved: %+v", sess.Turns)
	}

	// The next session compacts it.
	w, err := f.store.Continue(sess)
	if err != nil {
		t.Fatal(err)
	}
	w.Compact([]provider.Message{provider.UserText("summary"), {Role: provider.Assistant, Parts: []provider.Part{provider.Text("ok")}}})
	w.Close()
	sess, _ = f.store.Open(id)

	again := &repl.Shell{Backend: f.be, Dir: work, Home: "/nonexistent", Sessions: f.store, Checkpoints: f.shell.Checkpoints}
	if err := again.Resume(sess); err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	res, _ := again.Handle(context.Background(), "/rewind 1 conversation")
	if res.Output != "The conversation was compacted since turn 1: only its files can be rewound (/rewind 1 files)." {
		t.Errorf("/rewind 1 conversation: %q", res.Output)
	}
	res, _ = again.Handle(context.Background(), "/rewind 1")
	want := "The conversation was compacted since turn 1: only the files are rewound.\nFiles restored to before turn 1 (3 changed: a.txt, b.txt, c.txt)."
	if res.Output != want || res.Prompt != "" {
		t.Errorf("/rewind 1: %+v", res)
	}
	if d := cmp.Diff(before, tree(t, work)); d != "" {
		t.Errorf("files (-want +got):\n%s", d)
	}
	if n := len(again.Conversation()); n != 2 {
		t.Errorf("the conversation changed: %d messages", n)
	}
}

// No checkpoints in a home directory as a whole, nor past the cap: said
// once, and the turn goes on.
func TestCheckpointsOff(t *testing.T) {
	f, work := rewindFixture(t,
		providertest.Reply{ToolCalls: []providertest.Call{{ID: "c1", Name: "change", Arguments: json.RawMessage(`{}`)}}},
		providertest.Reply{Text: "Changed."},
		providertest.Reply{ToolCalls: []providertest.Call{{ID: "c2", Name: "change", Arguments: json.RawMessage(`{}`)}}},
		providertest.Reply{Text: "Changed again."},
	)
	f.shell.Home = work
	res := f.run(t, "change the files")
	if d := cmp.Diff([]string{"Warning: checkpoints are off for this session (the working directory is your whole home directory): /rewind cannot restore files changed from now on."}, res.Warnings); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
	if res := f.run(t, "again"); len(res.Warnings) != 0 || res.Outcome.Text != "Changed again." {
		t.Errorf("the second turn: %+v", res)
	}
	if got := f.run(t, "/diff").Output; got != "No changes to show: checkpoints are off for this session." {
		t.Errorf("/diff: %q", got)
	}
	if entries, _ := os.ReadDir(f.shell.Checkpoints); len(entries) != 0 {
		t.Errorf("checkpoints made: %v", entries)
	}

	g, _ := rewindFixture(t,
		providertest.Reply{ToolCalls: []providertest.Call{{ID: "c1", Name: "change", Arguments: json.RawMessage(`{}`)}}},
		providertest.Reply{Text: "Changed."},
	)
	g.shell.CheckpointMax = 2 // bytes: a.txt and b.txt are 4
	res = g.run(t, "change the files")
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "over checkpoint_max_mb") {
		t.Errorf("warnings: %q", res.Warnings)
	}
	if entries, _ := os.ReadDir(g.shell.Checkpoints); len(entries) != 0 {
		t.Errorf("an empty checkpoint repository was left: %v", entries)
	}
}

// In a subdirectory of a repository, the checkpoints cover the repository,
// and its .gitignore files apply.
func TestRewindInRepository(t *testing.T) {
	root := t.TempDir()
	f, work := rewindFixtureIn(t, filepath.Join(root, "sub"),
		providertest.Reply{ToolCalls: []providertest.Call{{ID: "c1", Name: "change", Arguments: json.RawMessage(`{}`)}}},
		providertest.Reply{Text: "Changed."},
	)
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte("*.log\n"), 0o644)
	os.WriteFile(filepath.Join(work, "build.log"), []byte("ignored\n"), 0o644)
	os.WriteFile(filepath.Join(root, "top.txt"), []byte("top\n"), 0o644)
	f.shell.CheckpointRoot = root
	f.run(t, "change the files")
	os.WriteFile(filepath.Join(root, "top.txt"), []byte("changed by hand\n"), 0o644)
	os.WriteFile(filepath.Join(work, "build.log"), []byte("changed too\n"), 0o644)
	res := f.run(t, "/diff")
	base := filepath.Base(work)
	if !strings.Contains(res.Output, "+++ b/"+base+"/c.txt") || !strings.Contains(res.Output, "+++ b/top.txt") || strings.Contains(res.Output, "build.log") {
		t.Errorf("/diff:\n%s", res.Output)
	}
	res = f.run(t, "/rewind 1 files")
	want := "Files restored to before turn 1 (4 changed: " + base + "/a.txt, " + base + "/b.txt, " + base + "/c.txt, top.txt)."
	if res.Output != want {
		t.Errorf("/rewind 1 files:\n%s\nwant\n%s", res.Output, want)
	}
	if data, _ := os.ReadFile(filepath.Join(work, "build.log")); string(data) != "changed too\n" {
		t.Errorf("an ignored file was restored: %q", data)
	}
}

// A turn whose calls could have changed files but changed none (a command
// that only looked) is not listed as one that changed files, and keeps no
// checkpoint.
func TestTurnThatChangedNothing(t *testing.T) {
	f, _ := rewindFixture(t,
		providertest.Reply{ToolCalls: []providertest.Call{{ID: "c1", Name: "look", Arguments: json.RawMessage(`{}`)}}},
		providertest.Reply{Text: "Looked."},
	)
	look := "#!/bin/sh\nif [ \"$1\" = --schema ]; then echo '{\"name\":\"look\",\"description\":\"Looks\"}'; exit 0; fi\ncat >/dev/null\necho '{\"ok\":true}'\n"
	os.WriteFile(filepath.Join(f.tools, "look-tool"), []byte(look), 0o755)
	f.be.Refresh(context.Background())
	f.run(t, "look around")
	want := "Turns (/rewind N goes back to before turn N; /rewind N files or /rewind N conversation, to one of them):\n" +
		"  1  look around"
	if got := f.run(t, "/rewind").Output; got != want {
		t.Errorf("/rewind:\n%s\nwant\n%s", got, want)
	}
	if turns := f.shell.Turns(); len(turns) != 1 || turns[0].Before != "" || turns[0].After != "" {
		t.Errorf("turns %+v, want one without checkpoints", turns)
	}
}
