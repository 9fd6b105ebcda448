package trust

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestScanAndDiff(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, content string) {
		path := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".ikigai/tools/a-tool", "a")
	write(".ikigai/config.json", "{}")
	write(".mcp.json", `{"mcpServers":{}}`)
	write("src/main.go", "not pinned")
	if err := os.Symlink("a-tool", filepath.Join(dir, ".ikigai/tools/b-tool")); err != nil {
		t.Fatal(err)
	}
	pins, problems, err := Scan(dir, nil, false)
	if err != nil || len(problems) > 0 {
		t.Fatalf("Scan: %v, %v", problems, err)
	}
	if diff := cmp.Diff([]string{".ikigai/config.json", ".ikigai/tools/a-tool", ".ikigai/tools/b-tool", ".mcp.json"}, slices.Sorted(maps.Keys(pins))); diff != "" {
		t.Errorf("pinned (-want +got):\n%s", diff)
	}
	if pins[".ikigai/tools/b-tool"].Link != "a-tool" || pins[".ikigai/tools/a-tool"].SHA256 == "" {
		t.Errorf("pins: %+v", pins)
	}

	// Touched, the same content: no change. Rewritten, retargeted,
	// removed, added: each says so.
	later := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(dir, ".ikigai/config.json"), later, later)
	write(".ikigai/tools/a-tool", "A")
	os.Remove(filepath.Join(dir, ".ikigai/tools/b-tool"))
	os.Symlink("elsewhere", filepath.Join(dir, ".ikigai/tools/b-tool"))
	os.Remove(filepath.Join(dir, ".mcp.json"))
	write(".ikigai/hooks/stop-x-hook", "#!/bin/sh")
	now, _, err := Scan(dir, pins, false)
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{{".ikigai/hooks/stop-x-hook", Added}, {".ikigai/tools/a-tool", Changed}, {".ikigai/tools/b-tool", Changed}, {".mcp.json", Removed}}
	if diff := cmp.Diff(want, Diff(pins, now)); diff != "" {
		t.Errorf("Diff (-want +got):\n%s", diff)
	}
}

func TestVerify(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".ikigai"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, ".ikigai/config.json"), []byte("{}"), 0o644)
	s := At(filepath.Join(t.TempDir(), "trusted.json"))
	if ok, changes, err := s.Verify(dir); ok || changes != nil || err != nil {
		t.Errorf("not listed: %v, %v, %v", ok, changes, err)
	}
	// Listed before pins existed: not trusted until trusted again.
	s.write(document{Directories: []string{dir}})
	if ok, changes, _ := s.Verify(dir); ok || len(changes) != 1 || changes[0].Kind != Unpinned {
		t.Errorf("unpinned: %v, %v", ok, changes)
	}
	pins, _, _ := Scan(dir, nil, false)
	if err := s.Add(dir, pins, false); err != nil {
		t.Fatal(err)
	}
	if ok, changes, err := s.Verify(dir); !ok || changes != nil || err != nil {
		t.Errorf("pinned: %v, %v, %v", ok, changes, err)
	}
	os.WriteFile(filepath.Join(dir, ".ikigai/config.json"), []byte(`{"approval":"auto"}`), 0o644)
	if ok, changes, _ := s.Verify(dir); ok || cmp.Diff([]Change{{".ikigai/config.json", Changed}}, changes) != "" {
		t.Errorf("changed: %v, %v", ok, changes)
	}
}
