package display

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDiff(t *testing.T) {
	tests := []struct {
		old, new string
		want     []string
	}{
		{"a\nb\nc\n", "a\nB\nc\n", []string{"  a", "- b", "+ B", "  c"}},
		{"x", "x\ny", []string{"  x", "+ y"}},
		{"one\r\ntwo\r\n", "two\r\n", []string{"- one", "  two"}},
		{"", "new", []string{"- ", "+ new"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, Diff(tt.old, tt.new)); diff != "" {
			t.Errorf("Diff(%q, %q) (-want +got):\n%s", tt.old, tt.new, diff)
		}
	}
	// Past the line limit, no comparison: everything old out, everything new in.
	big := strings.Repeat("same\n", maxDiffLines+1)
	if got := Diff(big, big); len(got) != 2*(maxDiffLines+1) || got[0] != "- same" {
		t.Errorf("Diff of huge texts: %d lines starting %q", len(got), got[0])
	}
}

func TestApproval(t *testing.T) {
	tests := []struct {
		name, args, want string
	}{
		{"file_edit", `{"file_path":"main.go","old_string":"a := 1\nb := 2","new_string":"a := 1\nb := 3"}`,
			"→ file_edit: main.go\n  a := 1\n- b := 2\n+ b := 3"},
		{"file_edit", `{"file_path":"x","old_string":"a","new_string":"b","replace_all":true}`,
			"→ file_edit: x (every occurrence)\n- a\n+ b"},
		{"file_write", `{"file_path":"hi.txt","content":"Hello\nWorld\n"}`,
			"→ file_write: hi.txt\n+ Hello\n+ World"},
		{"bash", `{"command":"make clean &&\nmake check","timeout":60}`,
			"→ bash:\n  command: make clean &&\n    make check\n  timeout: 60"},
		{"bash", `not json`, "→ bash:\n  arguments: not json"},
		{"file_edit", `{"file_path":"x"}`, "→ file_edit:\n  file_path: x"},
	}
	for _, tt := range tests {
		if got := Approval(tt.name, json.RawMessage(tt.args)); got != tt.want {
			t.Errorf("Approval(%s, %s) =\n%s\nwant\n%s", tt.name, tt.args, got, tt.want)
		}
	}
	long, _ := json.Marshal(map[string]string{"command": strings.Repeat("echo\n", 100)})
	got := strings.Split(Approval("bash", long), "\n")
	if len(got) != MaxApprovalLines+1 || got[MaxApprovalLines] != "  … 61 more lines" {
		t.Errorf("a long command gives %d lines, ending %q", len(got), got[len(got)-1])
	}
}
