package markdown

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const answer = "# Plan\nFirst a paragraph\nover two lines.\n\n- one\n- two\n\n```go\nfunc main() {\n\n}\n```\n| a | b |\n|---|---|\n| 1 | 2 |\n\nThe end."

var blocks = []string{
	"# Plan",
	"First a paragraph\nover two lines.",
	"- one\n- two",
	"```go\nfunc main() {\n\n}\n```",
	"| a | b |\n|---|---|\n| 1 | 2 |",
	"The end.",
}

// Blocks come out whole, once, whatever pieces the text arrives in.
func TestSplit(t *testing.T) {
	for _, size := range []int{1, 3, 7, len(answer)} {
		var s Splitter
		var got []string
		for i := 0; i < len(answer); i += size {
			got = append(got, s.Write(answer[i:min(i+size, len(answer))])...)
		}
		if last, ok := s.Flush(); ok {
			got = append(got, last)
		}
		if diff := cmp.Diff(blocks, got); diff != "" {
			t.Errorf("pieces of %d (-want +got):\n%s", size, diff)
		}
	}
}

// What is under way is there to show as it is, and a fence never closed
// ends with the answer.
func TestPending(t *testing.T) {
	var s Splitter
	s.Write("Some text\nand more")
	if got := s.Pending(); got != "Some text\nand more" {
		t.Errorf("pending %q", got)
	}
	s.Write("\n\n```\ncode")
	if got, ok := s.Flush(); !ok || got != "```\ncode" || strings.Contains(s.Pending(), "code") {
		t.Errorf("flushed %q, %v", got, ok)
	}
}

func TestTrim(t *testing.T) {
	in := "\n  \x1b[1mTitle\x1b[m\x1b[38;5;252m   \x1b[m\n\n  a\x1b[m   \n\n"
	want := []string{"  \x1b[1mTitle\x1b[m\x1b[38;5;252m\x1b[m\x1b[m", "", "  a\x1b[m\x1b[m"}
	if diff := cmp.Diff(want, Trim(in)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// The helper is found only at an absolute directory's path: never one in
// the working directory, which a project controls.
func TestFind(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile(HelperName, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]string{"": "", ".": "", dir: filepath.Join(dir, HelperName), t.TempDir(): ""} {
		if got := Find(in); got != want {
			t.Errorf("Find(%q) = %q, want %q", in, got, want)
		}
	}
}
