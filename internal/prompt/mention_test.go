package prompt

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExpand(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"README.md":         "# Title\nline 2\n",
		"src/main.go":       "package main\n\nfunc main() {}\n",
		"with space.txt":    "spaced\n",
		"five.txt":          "1\n2\n3\n4\n5\n",
		"bin.dat":           "a\x00b",
		"bad.txt":           "a\xffb\n",
		"src/sub/.keep":     "",
		"shot.png":          "\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\x0d\x49\x44\x41\x54\x78\x9c\x63\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99\x3d\x1d\x00\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82",
		"notes.md":          "notes\n",
		"long.txt":          strings.Repeat("x", 100) + "\n" + strings.Repeat(strings.Repeat("y", 99)+"\n", 400),
		"oneline.min.js":    strings.Repeat("z", FileBudget*2),
		"deep/dir/file.txt": "deep\n",
	}
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name, text, want, wantErr string
	}{
		{"no mention", "fix it", "fix it", ""},
		{"a file", "explain @README.md please",
			"explain @README.md please\n\n<file path=\"README.md\">\n# Title\nline 2\n</file>", ""},
		{"end of a sentence", "read @src/main.go.",
			"read @src/main.go.\n\n<file path=\"src/main.go\">\npackage main\n\nfunc main() {}\n</file>", ""},
		{"quoted, with a space", `see @"with space.txt"`,
			"see @\"with space.txt\"\n\n<file path=\"with space.txt\">\nspaced\n</file>", ""},
		{"a window", "@five.txt#L2-3",
			"@five.txt#L2-3\n\n<file path=\"five.txt\" lines=\"2-3\" total_lines=\"5\">\n2\n3\n</file>", ""},
		{"one line", "@five.txt#L4",
			"@five.txt#L4\n\n<file path=\"five.txt\" lines=\"4-4\" total_lines=\"5\">\n4\n</file>", ""},
		{"a directory", "what is in @src/",
			"what is in @src/\n\n<directory path=\"src/\">\nmain.go\nsub/\n</directory>", ""},
		{"twice is once", "@notes.md and @notes.md",
			"@notes.md and @notes.md\n\n<file path=\"notes.md\">\nnotes\n</file>", ""},
		{"a word, not a path", "ask @alice, and mail a@b.c", "ask @alice, and mail a@b.c", ""},
		{"invalid UTF-8", "@bad.txt", "@bad.txt\n\n<file path=\"bad.txt\">\na\uFFFDb\n</file>", ""},
		{"missing", "fix @nope.go", "", "@nope.go: no such file or directory"},
		{"missing, quoted", `fix @"nope"`, "", "@nope: no such file or directory"},
		{"binary", "@bin.dat", "", "@bin.dat: a binary file; mention a text file, a directory or an image"},
		{"fifo", "@fifo", "", "@fifo: not a regular file"},
		{"bad range", "@five.txt#L3-2", "", "@five.txt#L3-2: a line range is #LFIRST-LAST, from line 1"},
		{"past the end", "@five.txt#L9", "", "@five.txt: the file has 5 lines"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Expand(tt.text, dir)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("Expand = %q, %v; want error %q", got.Text, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got.Text); diff != "" {
				t.Errorf("Expand (-want +got):\n%s", diff)
			}
		})
	}

	got, err := Expand("what is @shot.png?", dir)
	if err != nil || got.Text != "what is @shot.png?" || len(got.Images) != 1 || got.Images[0].MediaType != "image/png" || got.Images[0].Path != "shot.png" ||
		!bytes.Equal(got.Images[0].Data, []byte(files["shot.png"])) {
		t.Errorf("an image: %+v, %v", got, err)
	}

	// An image one byte past what the model takes says by how much.
	huge := filepath.Join(dir, "huge.png")
	if err := os.WriteFile(huge, append([]byte(files["shot.png"]), make([]byte, 5<<20-len(files["shot.png"])+1)...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Expand("@huge.png", dir); err == nil || !strings.Contains(err.Error(), "the image is 5242881 bytes, more than the 5242880 (5 MiB) a model takes") {
		t.Errorf("an image past 5 MiB: %v", err)
	}

	// Images past what one request carries, all told, are refused.
	var many []string
	for i := range 3 {
		name := fmt.Sprintf("big%d.png", i)
		if err := os.WriteFile(filepath.Join(dir, name), append([]byte(files["shot.png"]), make([]byte, 5<<20-len(files["shot.png"]))...), 0o644); err != nil {
			t.Fatal(err)
		}
		many = append(many, "@"+name)
	}
	if _, err := Expand(strings.Join(many, " "), dir); err == nil || err.Error() != "@big2.png: a prompt takes at most 20 images, 12 MiB in all; mention fewer" {
		t.Errorf("15 MiB of images: %v", err)
	}

	// A long file gives the whole lines that fit, and says how to read on.
	got, err = Expand("@long.txt", dir)
	if err != nil || !strings.Contains(got.Text, `lines="1-`) || !strings.Contains(got.Text, "[... the rest is not attached: read it with file_read, offset ") ||
		len(got.Text) > FileBudget+300 {
		t.Errorf("a long file: %d bytes, %v", len(got.Text), err)
	}
	// One line longer than the budget: its start.
	got, err = Expand("@oneline.min.js", dir)
	if err != nil || !strings.Contains(got.Text, "[... line 1 is 65536 bytes long; the rest is omitted]") || len(got.Text) > FileBudget+300 {
		t.Errorf("a long line: %d bytes, %v", len(got.Text), err)
	}
}
