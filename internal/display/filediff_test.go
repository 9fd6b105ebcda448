package display

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

func TestUnified(t *testing.T) {
	twenty := numbered(20)
	tests := []struct {
		name     string
		old, new string
		want     []string
	}{
		{"one line changed, three of context", twenty, strings.Replace(twenty, "line 10\n", "line ten\n", 1), []string{
			"@@ -7,7 +7,7 @@",
			"   7 │ line 7", "   8 │ line 8", "   9 │ line 9",
			"- 10 │ line 10", "+ 10 │ line ten",
			"  11 │ line 11", "  12 │ line 12", "  13 │ line 13",
		}},
		{"lines added shift the numbers", twenty, strings.Replace(twenty, "line 2\n", "line 2\nnew a\nnew b\n", 1), []string{
			"@@ -1,5 +1,7 @@",
			"   1 │ line 1", "   2 │ line 2",
			"+  3 │ new a", "+  4 │ new b",
			"   5 │ line 3", "   6 │ line 4", "   7 │ line 5",
		}},
		{"changes far apart are two hunks", twenty, strings.Replace(strings.Replace(twenty, "line 2\n", "two\n", 1), "line 19\n", "", 1), []string{
			"@@ -1,5 +1,5 @@",
			"   1 │ line 1", "-  2 │ line 2", "+  2 │ two", "   3 │ line 3", "   4 │ line 4", "   5 │ line 5",
			"@@ -16,5 +16,4 @@",
			"  16 │ line 16", "  17 │ line 17", "  18 │ line 18", "- 19 │ line 19", "  19 │ line 20",
		}},
		{"a new file", "", "a\nb\n", []string{"@@ -0,0 +1,2 @@", "+ 1 │ a", "+ 2 │ b"}},
		{"an empty line added to an empty file", "", "\n", []string{"@@ -0,0 +1,1 @@", "+ 1 │ "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, Unified(tt.old, tt.new, 3)); d != "" {
				t.Errorf("Unified (-want +got):\n%s", d)
			}
		})
	}
}

func TestFileChange(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("a\nb\nc\nb\n"), 0o644)
	args := func(m map[string]any) json.RawMessage { b, _ := json.Marshal(m); return b }
	tests := []struct {
		name, tool string
		args       json.RawMessage
		want       string // "" for no diff: Approval shows the call
	}{
		{"edit", "file_edit", args(map[string]any{"file_path": "f.txt", "old_string": "c", "new_string": "C"}),
			"→ file_edit: f.txt\n@@ -1,4 +1,4 @@\n  1 │ a\n  2 │ b\n- 3 │ c\n+ 3 │ C\n  4 │ b"},
		{"replace all", "file_edit", args(map[string]any{"file_path": filepath.Join(dir, "f.txt"), "old_string": "b\n", "new_string": "", "replace_all": true}),
			"→ file_edit: " + filepath.Join(dir, "f.txt") + " (2 occurrences)\n@@ -1,4 +1,2 @@\n  1 │ a\n- 2 │ b\n  2 │ c\n- 4 │ b"},
		{"not unique", "file_edit", args(map[string]any{"file_path": "f.txt", "old_string": "b", "new_string": "B"}), ""},
		{"not there", "file_edit", args(map[string]any{"file_path": "f.txt", "old_string": "z", "new_string": "B"}), ""},
		{"no file", "file_edit", args(map[string]any{"file_path": "nosuch", "old_string": "z", "new_string": "B"}), ""},
		{"write over", "file_write", args(map[string]any{"file_path": "f.txt", "content": "a\nb\n"}),
			"→ file_write: f.txt\n@@ -1,4 +1,2 @@\n  1 │ a\n  2 │ b\n- 3 │ c\n- 4 │ b"},
		{"write anew", "file_write", args(map[string]any{"file_path": "new.txt", "content": "hi \x1b[2J\n"}),
			"→ file_write: new.txt (a new file)\n@@ -0,0 +1,1 @@\n+ 1 │ hi \\x1b[2J"},
		{"another tool", "bash", args(map[string]any{"command": "ls"}), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := FileChange(dir, tt.tool, tt.args)
			if ok != (tt.want != "") || got != tt.want {
				t.Errorf("FileChange = %v\n%s\nwant\n%s", ok, got, tt.want)
			}
		})
	}
}
