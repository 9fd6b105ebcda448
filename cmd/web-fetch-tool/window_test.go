package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWindow(t *testing.T) {
	type cut struct {
		Out       string
		Truncated bool
		Next      int
	}
	long := strings.Repeat("é", 40) // 80 bytes
	tests := []struct {
		name string
		text string
		w    window
		want cut
	}{
		{"whole", "a\nb\nc", window{1, 0, 100}, cut{"a\nb\nc", false, 0}},
		{"a limit", "a\nb\nc\n", window{1, 2, 100}, cut{"a\nb\n", false, 3}},
		{"a limit to the end", "a\nb\n", window{1, 2, 100}, cut{"a\nb\n", false, 0}},
		{"an offset", "a\nb\nc", window{2, 0, 100}, cut{"b\nc", false, 0}},
		{"the last line", "a\nb\nc", window{3, 5, 100}, cut{"c", false, 0}},
		{"past the end", "a\nb\n", window{3, 0, 100}, cut{"", false, 0}},
		{"far past the end", "a\nb", window{30, 1, 100}, cut{"", false, 0}},
		{"empty", "", window{1, 0, 100}, cut{"", false, 0}},
		{"the budget ends on a whole line", "aaaa\nbbbb\ncccc\n", window{1, 0, 12}, cut{"aaaa\nbbbb\n", true, 3}},
		{"the budget counts encoding", "\"\"\"\n\"\"\"\n", window{1, 0, 10}, cut{"\"\"\"\n", true, 2}},
		{"a first line longer than the budget is cut", long + "\nnext\n", window{1, 0, 70}, cut{
			strings.Repeat("é", 7) + "\n[... line 1 is 80 bytes long; the rest is omitted ...]", true, 2}},
		{"a long line at an offset", "x\n" + long, window{2, 0, 70}, cut{
			strings.Repeat("é", 7) + "\n[... line 2 is 80 bytes long; the rest is omitted ...]", true, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got cut
			got.Out, got.Truncated, got.Next = tt.w.cut(tt.text)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("cut (-want +got):\n%s", diff)
			}
		})
	}
}
