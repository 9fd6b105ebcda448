package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestHeadTailMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		limit := 2 + rng.IntN(64)
		h := NewHeadTail(limit)
		var all []byte
		for range rng.IntN(20) {
			p := make([]byte, rng.IntN(40))
			for i := range p {
				p[i] = 'a' + byte(rng.IntN(26))
			}
			h.Write(p)
			all = append(all, p...)
		}
		want := string(all)
		if len(all) > limit {
			head, tail := all[:limit/2], all[len(all)-(limit-limit/2):]
			want = fmt.Sprintf("%s\n[... %d bytes omitted ...]\n%s", head, len(all)-limit, tail)
		}
		if got := h.String(); got != want {
			t.Fatalf("trial %d (limit %d, %d bytes): got %q, want %q", trial, limit, len(all), got, want)
		}
		if h.Len() != int64(len(all)) || h.Truncated() != (len(all) > limit) {
			t.Fatalf("trial %d: Len %d Truncated %v for %d bytes, limit %d", trial, h.Len(), h.Truncated(), len(all), limit)
		}
	}
}

func TestHeadTailSplitRunes(t *testing.T) {
	h := NewHeadTail(9)
	h.Write([]byte(strings.Repeat("é", 20))) // two bytes each: the cut lands mid-rune at both ends
	got := h.String()
	if !utf8.ValidString(got) {
		t.Fatalf("invalid UTF-8: %q", got)
	}
	want := "éé\n[... 32 bytes omitted ...]\néé"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestTruncate(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		limit int
		want  string
		cut   bool
	}{
		{"fits", "hello", 10, "hello", false},
		{"invalid UTF-8 replaced", "a\xffb", 10, "a\uFFFDb", false},
		{"long", strings.Repeat("x", 100), 20, strings.Repeat("x", 10) + "\n[... 80 bytes omitted ...]\n" + strings.Repeat("x", 10), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cut := Truncate(tt.in, tt.limit)
			if got != tt.want || cut != tt.cut {
				t.Errorf("Truncate = %q, %v; want %q, %v", got, cut, tt.want, tt.cut)
			}
		})
	}
}

func TestTruncateControlCharacters(t *testing.T) {
	in := strings.Repeat("\x01", 10000) // six bytes each when encoded
	got, cut := Truncate(in, 1000)
	if !cut {
		t.Fatal("not truncated")
	}
	enc, _ := json.Marshal(got)
	if len(enc) > 1000+2+64 {
		t.Errorf("encoded length %d, want about 1000 at most", len(enc))
	}
}

func TestEncodedLen(t *testing.T) {
	for _, s := range []string{"", "plain", "tab\tnew\nline\r\b\f", `"quoted\"`, "\x00\x01\x1f", "<&>", "é€😀"} {
		var b bytes.Buffer
		enc := json.NewEncoder(&b) // as a tool encodes its result
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		if got, want := EncodedLen(s), b.Len()-len(`""`+"\n"); got != want {
			t.Errorf("EncodedLen(%q) = %d, want %d (%s)", s, got, want, b.Bytes())
		}
	}
}

func TestJoinLines(t *testing.T) {
	tests := []struct {
		lines []string
		limit int
		want  string
		n     int
	}{
		{nil, 10, "", 0},
		{[]string{"a", "b"}, 10, "a\nb", 2},
		{[]string{"abc", "def"}, 8, "abc\ndef", 2}, // the newline is encoded as \n
		{[]string{"abc", "def"}, 7, "abc", 1},
		{[]string{"abcd", "e"}, 3, "", 0},
		{[]string{"\t\t", "x"}, 6, "\t\t", 1}, // a tab is encoded as \t
		{[]string{"a\xffb"}, 10, "a\uFFFDb", 1},
	}
	for _, tt := range tests {
		text, n := JoinLines(slices.Values(tt.lines), tt.limit)
		if text != tt.want || n != tt.n {
			t.Errorf("JoinLines(%q, %d) = %q, %d; want %q, %d", tt.lines, tt.limit, text, n, tt.want, tt.n)
		}
	}
}
