package repl_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/ikigai-tools/ikigai/internal/approval"
)

// A tool that says previewHint has its --preview output under the call in
// the question; one that does not is never run with --preview.
func TestQuestionPreview(t *testing.T) {
	f := newFixture(t)
	mark := filepath.Join(t.TempDir(), "ran")
	os.WriteFile(filepath.Join(f.tools, "deploy-tool"), []byte(`#!/bin/sh
case "$1" in
--schema) echo '{"name":"deploy","description":"Deploys","annotations":{"previewHint":true}}'; exit 0 ;;
--preview) read -r args; echo "would deploy: $args"; echo "2 services restart"; exit 0 ;;
esac
echo '{}'
`), 0o755)
	os.WriteFile(filepath.Join(f.tools, "plain-tool"), []byte(`#!/bin/sh
case "$1" in
--schema) echo '{"name":"plain","description":"Plain"}'; exit 0 ;;
--preview) touch `+mark+`; echo "should not show"; exit 0 ;;
esac
echo '{}'
`), 0o755)
	os.WriteFile(filepath.Join(f.tools, "broken-tool"), []byte(`#!/bin/sh
case "$1" in
--schema) echo '{"name":"broken","description":"Broken","annotations":{"previewHint":true}}'; exit 0 ;;
--preview) echo "half" ; exit 3 ;;
esac
echo '{}'
`), 0o755)
	f.be.Refresh(context.Background())
	ctx := context.Background()
	tests := []struct{ tool, want string }{
		{"deploy", "→ deploy:\n  env: prod\nPreview (from deploy --preview):\n  would deploy: {\"env\":\"prod\"}\n  2 services restart"},
		{"plain", "→ plain:\n  env: prod"},
		{"broken", "→ broken:\n  env: prod"},
	}
	for _, tt := range tests {
		got := f.shell.Question(ctx, approval.Request{Tool: tt.tool, Args: json.RawMessage(`{"env":"prod"}`)})
		if got != tt.want {
			t.Errorf("%s:\n%s\nwant\n%s", tt.tool, got, tt.want)
		}
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("a tool without previewHint was run with --preview")
	}
}

// A file_edit is shown as the diff it would make to the file on disk.
func TestQuestionDiff(t *testing.T) {
	f := newFixture(t)
	f.shell.Dir = t.TempDir()
	os.WriteFile(filepath.Join(f.shell.Dir, "a.go"), []byte("package a\n\nfunc A() {}\n"), 0o644)
	got := f.shell.Question(context.Background(), approval.Request{Tool: "file_edit", Args: json.RawMessage(`{"file_path":"a.go","old_string":"A()","new_string":"B()"}`)})
	want := "→ file_edit: a.go\n@@ -1,3 +1,3 @@\n  1 │ package a\n  2 │ \n- 3 │ func A() {}\n+ 3 │ func B() {}"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
