package main

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/ikigai-tools/ikigai/toolsdk/output"
)

// FuzzWindow checks windowed reading against a plain model of it: split the
// file into lines, take the window, stop at the budget. Tiny chunks and
// readers that return data with io.EOF exercise lines that span reads.
func FuzzWindow(f *testing.F) {
	for _, seed := range []struct {
		content               string
		offset, limit, budget int
		chunk                 uint8
		dataWithEOF           bool
	}{
		{"a\nb\nc\n", 2, 1, 100, 1, false},
		{"a\nb\nc", 3, 0, 100, 2, true},
		{"", 1, 0, 100, 3, false},
		{"\n\n\n", 2, 2, 100, 1, true},
		{"a\nb\n", 9, 1, 100, 4, false},
		{strings.Repeat("x", 300) + "\nshort\n", 1, 0, 100, 7, false},
		{"short\n" + strings.Repeat("x", 300), 1, 0, 100, 5, true},
		{strings.Repeat("é", 200), 1, 0, 100, 3, false},
		{strings.Repeat("\x01\"", 60) + "\nz\n", 1, 0, 100, 8, false},
		{"ok\n\xff\xfe\xfd\nok\n", 1, 0, 100, 2, false},
		{strings.Repeat("line\r\n", 40), 3, 0, 100, 16, true},
	} {
		f.Add([]byte(seed.content), seed.offset, seed.limit, seed.budget, seed.chunk, seed.dataWithEOF)
	}
	f.Fuzz(func(t *testing.T, content []byte, offset, limit, budget int, chunk uint8, dataWithEOF bool) {
		if offset < 0 || limit < 0 || offset > 1000 || limit > 1000 {
			return
		}
		budget = 100 + abs(budget)%4000 // room for the long-line marker
		var r io.Reader = bytes.NewReader(content)
		if dataWithEOF {
			r = iotest.DataErrReader(r)
		}
		w := window{offset: max(offset, 1), limit: limit, budget: budget}
		got, err := w.read(&scanner{ctx: context.Background(), r: r, buf: make([]byte, 1+int(chunk)%64)}, true)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(model(content, w), got); diff != "" {
			t.Errorf("window %+v of %q (-want +got):\n%s", w, content, diff)
		}
		if n := output.EncodedLen(got.Output); n > budget {
			t.Errorf("output is %d bytes encoded, over the budget of %d", n, budget)
		}
		if !utf8.ValidString(got.Output) {
			t.Errorf("output is not valid UTF-8: %q", got.Output)
		}
	})
}

// model is what window.read should return, worked out the simple way.
func model(content []byte, w window) result {
	lines := bytes.SplitAfter(content, []byte{'\n'})
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	res := result{TotalLines: len(lines)}
	used := 0
	i := w.offset - 1
	for ; i < len(lines) && (w.limit == 0 || res.LinesRead < w.limit); i++ {
		text := strings.ToValidUTF8(string(lines[i]), "\uFFFD")
		n := output.EncodedLen(text)
		if len(lines[i]) <= w.budget && used+n <= w.budget {
			res.Output += text
			used += n
			res.LinesRead++
			continue
		}
		res.Truncated = true
		if res.LinesRead == 0 {
			res.Output = cutLine(lines[i], len(bytes.TrimSuffix(lines[i], []byte{'\n'})), w.offset, w.budget)
			res.LinesRead = 1
			i++
		}
		break
	}
	if i < len(lines) {
		res.NextOffset = i + 1
	}
	return res
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func TestCutLine(t *testing.T) {
	const budget = 100
	marker := "\n[... line 7 is 300 bytes long; the rest is omitted ...]"
	room := budget - output.EncodedLen(marker)
	tests := []struct {
		name string
		line string
		want string
	}{
		{"ASCII fills the room", strings.Repeat("a", 300), strings.Repeat("a", room)},
		{"escaped characters cost more", strings.Repeat("\"", 300), strings.Repeat("\"", room/2)},
		{"a character is never split", "a" + strings.Repeat("€", 100), "a" + strings.Repeat("€", (room-1)/3)},
		{"invalid bytes become one U+FFFD", strings.Repeat("\xff", 300), "\uFFFD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := cutLine([]byte(tt.line), 300, 7, budget)
			if got != tt.want+marker {
				t.Errorf("got %q, want %q", got, tt.want+marker)
			}
			if n := output.EncodedLen(got); n > budget {
				t.Errorf("%d bytes encoded, over the budget", n)
			}
		})
	}
}
