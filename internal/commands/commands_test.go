package commands

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestList(t *testing.T) {
	user, project := t.TempDir(), t.TempDir()
	review := write(t, user, "review.md", "---\ndescription: Review a file\nargument-hint: FILE\nmodel: claude-opus-4-1\nallowed-tools: Bash(git diff:*), file_read\n---\nReview $ARGUMENTS for bugs.\n")
	write(t, user, "fix-issue.md", "# Fix an issue\n\nFix issue #$1, then say $2.\n")
	write(t, user, "notes.txt", "not a command")
	write(t, user, "9lives.md", "a bad name")
	write(t, user, "deploy.md", "from the user")
	deploy := write(t, project, "deploy.md", "---\nallowed_tools:\n  - bash(make deploy)\n  - \"file_*\"\n---\nDeploy to staging.")
	empty := write(t, project, "empty.md", "---\ndescription: nothing here\n---\n")
	open := write(t, project, "open.md", "---\ndescription: never closed\nDo it.")
	if err := os.Mkdir(filepath.Join(project, "dir.md"), 0o755); err != nil {
		t.Fatal(err)
	}

	got := List(Dirs{User: user, Project: project})
	want := []Command{
		{Name: "deploy", Source: Project, Path: deploy, Description: "Deploy to staging.", AllowedTools: []string{"bash(make deploy)", "file_*"}, Body: "Deploy to staging."},
		{Name: "dir", Source: Project, Path: filepath.Join(project, "dir.md"), Description: "cannot be used: a directory, not a file"},
		{Name: "empty", Source: Project, Path: empty, Description: "cannot be used: the file holds no prompt"},
		{Name: "fix-issue", Source: User, Path: filepath.Join(user, "fix-issue.md"), Description: "Fix an issue", Body: "# Fix an issue\n\nFix issue #$1, then say $2."},
		{Name: "open", Source: Project, Path: open, Description: "cannot be used: the front matter has no closing ---", Body: "---\ndescription: never closed\nDo it."},
		{Name: "review", Source: User, Path: review, Description: "Review a file", ArgumentHint: "FILE", Model: "claude-opus-4-1",
			AllowedTools: []string{"Bash(git diff:*)", "file_read"}, Body: "Review $ARGUMENTS for bugs."},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(Command{}, "Err")); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
	errs := map[string]string{}
	for _, c := range got {
		if c.Err != nil {
			errs[c.Name] = c.Err.Error()
		}
	}
	wantErrs := map[string]string{"dir": "a directory, not a file", "empty": "the file holds no prompt", "open": "the front matter has no closing ---"}
	if diff := cmp.Diff(wantErrs, errs); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	if _, ok := Find(Dirs{User: user}, "deploy"); !ok {
		t.Error("the user's deploy is missing without the project")
	}
}

func TestExpand(t *testing.T) {
	for _, tt := range []struct {
		body, args, want string
	}{
		{"Review $ARGUMENTS for bugs.", "src/x.go", "Review src/x.go for bugs."},
		{"Review $ARGUMENTS.", "  a.go   b.go ", "Review a.go   b.go."},
		{"Fix issue #$1 with priority $2.", `123 "very high"`, "Fix issue #123 with priority very high."},
		{"Fix issue #$1 ($3).", "123", "Fix issue #123 ()."},
		{"Costs $5 or $ARGUMENTS$", "x", "Costs  or x$"},
		{"Summarise the diff.", "", "Summarise the diff."},
		{"Summarise the diff.", "briefly", "Summarise the diff.\n\nARGUMENTS: briefly"},
		{"$ARGUMENTS and $ARGUMENTS", "a", "a and a"},
	} {
		if got := (Command{Body: tt.body}).Expand(tt.args); got != tt.want {
			t.Errorf("Expand(%q, %q) = %q, want %q", tt.body, tt.args, got, tt.want)
		}
	}
}

func TestValidName(t *testing.T) {
	for name, want := range map[string]bool{"review": true, "fix-issue": true, "a_b2": true, "": false, "9x": false, "-x": false, "a.b": false, "a b": false} {
		if got := ValidName(name); got != want {
			t.Errorf("ValidName(%q) = %v", name, got)
		}
	}
}
