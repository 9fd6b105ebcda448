package repl_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ikigai-tools/ikigai/internal/commands"
	"github.com/ikigai-tools/ikigai/internal/provider/providertest"
)

// Tab completes commands, their arguments and @paths; in a repository,
// what .gitignore ignores is not offered.
func TestComplete(t *testing.T) {
	f := newFixture(t)
	srv := providertest.NewServer(providertest.Transcript{Models: []string{"claude-opus-9", "claude-haiku-9", "other"}})
	t.Cleanup(srv.Close)
	f.be.srv = srv
	cmds := t.TempDir()
	os.WriteFile(filepath.Join(cmds, "review.md"), []byte("Review $ARGUMENTS.\n"), 0o644)
	f.shell.Commands = commands.Dirs{User: cmds}

	repo := t.TempDir()
	for name, content := range map[string]string{
		"README.md": "# r\n", "README.old": "", "src/main.go": "package main\n", "src/util.go": "", "secret.env": "", ".gitignore": "*.env\n",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(repo, name)), 0o755)
		os.WriteFile(filepath.Join(repo, name), []byte(content), 0o644)
	}
	if out, err := exec.Command("git", "-C", repo, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	f.shell.Dir = repo

	tests := []struct {
		line      string
		start     int
		items     []string
		cursorEnd int // the cursor, when not at the end
	}{
		{line: "/to", items: []string{"/tool "}},
		{line: "/c", items: []string{"/clear ", "/context ", "/compact "}},
		{line: "/rev", items: []string{"/review "}},
		{line: "/tool e", start: 6, items: []string{"echo"}},
		{line: "/load ", start: 6, items: []string{"go"}},
		{line: "/approval r", start: 10, items: []string{"read-only"}},
		{line: "/reasoning m", start: 11, items: []string{"medium"}},
		{line: "/reasoning ", start: 11, items: []string{"off", "low", "medium", "high"}},
		{line: "/model claude-", start: 7, items: []string{"claude-opus-9", "claude-haiku-9"}},
		{line: "look at @READ", start: 9, items: []string{"README.md", "README.old"}},
		{line: "@READ and more", start: 1, items: []string{"README.md", "README.old"}, cursorEnd: 5},
		{line: "@s", start: 1, items: []string{"src/"}}, // secret.env is ignored
		{line: "@src/m", start: 1, items: []string{"src/main.go"}},
		{line: "plain words", start: 6},
		{line: "/tool echo x", start: 11},
	}
	for _, tt := range tests {
		cursor := len(tt.line)
		if tt.cursorEnd > 0 {
			cursor = tt.cursorEnd
		}
		start, items := f.shell.Complete(tt.line, cursor)
		if start != tt.start || !cmp.Equal(items, tt.items) {
			t.Errorf("Complete(%q, %d) = %d, %q; want %d, %q", tt.line, cursor, start, items, tt.start, tt.items)
		}
	}

	// Outside a repository every file is offered.
	plain := t.TempDir()
	os.WriteFile(filepath.Join(plain, "notes.env"), nil, 0o644)
	f.shell.Dir = plain
	if _, items := f.shell.Complete("@no", 3); !cmp.Equal(items, []string{"notes.env"}) {
		t.Errorf("outside a repository: %q", items)
	}
}

// /model without a name lists the provider's models.
func TestModelList(t *testing.T) {
	f := newFixture(t)
	srv := providertest.NewServer(providertest.Transcript{Models: []string{"claude-opus-9", "claude-haiku-9"}})
	t.Cleanup(srv.Close)
	f.be.srv = srv
	want := "Model: claude-test (anthropic, the test says so)\nModels (/model NAME switches; Tab completes the name):\n  claude-opus-9\n  claude-haiku-9"
	if got := f.run(t, "/model").Output; got != want {
		t.Errorf("/model:\n%s\nwant\n%s", got, want)
	}
}
