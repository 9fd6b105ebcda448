package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestList(t *testing.T) {
	root := t.TempDir()
	d := Dirs{
		System:  filepath.Join(root, "system"),
		User:    filepath.Join(root, "user"),
		Project: filepath.Join(root, "project"),
	}
	write(t, filepath.Join(d.System, "review.md"), "# Reviewing code\n\nLook hard.\n")
	write(t, filepath.Join(d.System, "tools.md"), "How to write tools.\n")
	write(t, filepath.Join(d.User, "review.md"), "\n\n## My review\n")
	write(t, filepath.Join(d.User, "db", "SKILL.md"), "---\nname: db\ndescription: \"The database\"\n---\n# Database\n")
	write(t, filepath.Join(d.User, "plain", "SKILL.md"), "---\nname: plain\n---\n\nPlain skill\n")
	write(t, filepath.Join(d.User, "notes.txt"), "not a skill")
	write(t, filepath.Join(d.User, ".hidden.md"), "hidden")
	write(t, filepath.Join(d.User, "two words.md"), "cannot be typed after /load")
	write(t, filepath.Join(d.User, "empty", "README.md"), "a directory without SKILL.md")
	write(t, filepath.Join(d.Project, "tools.md"), "Our tools.\n")

	var got []string
	for _, s := range List(d) {
		rel, _ := filepath.Rel(root, s.Path)
		got = append(got, strings.Join([]string{s.Name, string(s.Source), rel, s.Description}, " | "))
	}
	want := []string{
		"db | user | user/db/SKILL.md | The database",
		"plain | user | user/plain/SKILL.md | Plain skill",
		"review | user | user/review.md | My review",
		"tools | project | project/tools.md | Our tools.",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}

	s, ok := Find(d, "review")
	if !ok {
		t.Fatal("review not found")
	}
	if text, err := s.Read(); err != nil || text != "\n\n## My review\n" {
		t.Errorf("Read = %q, %v", text, err)
	}
	if _, ok := Find(d, "nosuch"); ok {
		t.Error("found a skill that does not exist")
	}
}

func TestMissingDirectories(t *testing.T) {
	if got := List(Dirs{System: "/nonexistent", User: ""}); len(got) != 0 {
		t.Errorf("List = %v", got)
	}
}

func TestTooLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.md")
	write(t, path, "# Big\n"+strings.Repeat("x", MaxSize))
	_, err := Skill{Name: "big", Path: path}.Read()
	if err == nil || err.Error() != "skill 'big' is larger than 256 KiB" {
		t.Errorf("Read = %v", err)
	}
}

func TestInvalidUTF8(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "bad.md"), "# Caf\xe9\n")
	list := List(Dirs{User: dir})
	if len(list) != 1 || list[0].Description != "Caf\uFFFD" {
		t.Fatalf("List = %+v", list)
	}
	if text, _ := list[0].Read(); text != "# Caf\uFFFD\n" {
		t.Errorf("Read = %q", text)
	}
}

// A skill's front matter names the tools of its domain, as a flow list or
// a block list.
func TestTools(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "db.md"), "---\ndescription: The database\ntools: [db_query, \"db_migrate\"]\n---\n# Database\n")
	write(t, filepath.Join(dir, "deploy.md"), "---\ntools:\n  - deploy_start\n  - 'deploy_status'\nname: deploy\n---\nDeploying\n")
	write(t, filepath.Join(dir, "plain.md"), "---\ndescription: none\n---\ntools: [not, front, matter]\n")
	var got [][]string
	for _, s := range List(Dirs{User: dir}) {
		got = append(got, append([]string{s.Name, s.Description}, s.Tools...))
	}
	want := [][]string{
		{"db", "The database", "db_query", "db_migrate"},
		{"deploy", "Deploying", "deploy_start", "deploy_status"},
		{"plain", "none"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
}
