package instructions

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestRead(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	write := func(path, content string) {
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "plain.md"), "  Run the tests.\n")
	write(filepath.Join(root, "bad.md"), "a\xffb")
	write(filepath.Join(root, "huge.md"), strings.Repeat("x", MaxFile+10))
	if err := os.Mkdir(filepath.Join(root, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(root, "docs", "real.md"), "inside")
	write(filepath.Join(outside, "secret.md"), "outside")
	link("docs/real.md", "inside-link.md")
	link(filepath.Join(root, "docs", "real.md"), "absolute-inside.md")
	link(filepath.Join(outside, "secret.md"), "outside-link.md")
	link("../"+filepath.Base(outside)+"/secret.md", "relative-outside.md")
	link("/proc/self/environ", "environ.md")
	link("nowhere.md", "dangling.md")
	if err := syscall.Mkfifo(filepath.Join(root, "fifo.md"), 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name, want string
		err        error
	}{
		{"plain.md", "Run the tests.", nil},
		{"bad.md", "a\uFFFDb", nil},
		{"missing.md", "", nil},
		{"dangling.md", "", nil},
		{"inside-link.md", "inside", nil},
		{"absolute-inside.md", "inside", nil},
		{"fifo.md", "", ErrNotRegular},
		{"docs", "", ErrNotRegular},
		{"outside-link.md", "", syscall.EXDEV},
		{"relative-outside.md", "", syscall.EXDEV},
		{"environ.md", "", syscall.EXDEV},
	}
	for _, tt := range tests {
		got, err := Read(root, tt.name)
		if got != tt.want || !errors.Is(err, tt.err) {
			t.Errorf("Read(%s) = %q, %v; want %q, %v", tt.name, got, err, tt.want, tt.err)
		}
	}

	got, err := Read(root, "huge.md")
	if err != nil || !strings.HasSuffix(got, "\n[huge.md continues; the rest is omitted]") || strings.Count(got, "x") != MaxFile {
		t.Errorf("Read(huge.md) = %d bytes, %v", len(got), err)
	}

	// The fallback for kernels without openat2 keeps the same rule.
	for _, tt := range tests {
		if tt.err == ErrNotRegular || tt.want == "" && tt.err == nil {
			continue
		}
		f, err := openResolved(root, tt.name)
		if err == nil {
			f.Close()
		}
		if (err == nil) != (tt.err == nil) {
			t.Errorf("openResolved(%s): %v, want %v", tt.name, err, tt.err)
		}
	}
}

func TestReadAll(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"AGENTS.md": "top", "sub/AGENTS.md": "below"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	got := ReadAll([]File{
		{Root: root, Name: "missing.md", Title: "missing"},
		{Root: root, Name: "AGENTS.md", Title: "top"},
		{Root: root, Name: "fifo.md", Title: "fifo"},
		{Root: root, Name: "sub/AGENTS.md", Title: "sub"},
	})
	want := []Text{{"top", "top"}, {"sub", "below"}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("ReadAll = %+v, want %+v", got, want)
	}
}
