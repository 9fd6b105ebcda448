// Package output keeps what a tool returns within a budget, the way the
// core tools do: the model reads every byte of a result, so a result is
// better short, and a huge one must keep its most useful parts.
//
// [HeadTail] keeps both ends of a stream too big to return whole, such as
// a command's output; [Truncate] does the same for a string; [JoinLines]
// lists whole lines, as many as fit; [EncodedLen] is what a string costs
// against a budget such as [DefaultBudget], once encoded in JSON.
//
// Everything here returns valid UTF-8, as the protocol requires of a
// result, and cuts only between characters.
package output

import (
	"fmt"
	"iter"
	"strings"
	"unicode/utf8"
)

// DefaultBudget is how many bytes of text a core tool puts in one
// result, encoded: about 8k tokens, what the agent gives the model of a
// result before it keeps the rest in a file.
const DefaultBudget = 32 << 10

// HeadTail is an io.Writer that keeps the first and the last bytes of
// everything written to it within a budget, however much is written. It is
// how a tool returns the useful ends of a huge output.
type HeadTail struct {
	limit int
	head  []byte
	tail  []byte // ring buffer of the last bytes once head is full
	start int    // index of the oldest byte in tail
	total int64
}

// NewHeadTail returns a writer that keeps at most limit bytes: half from
// the start and half from the end.
func NewHeadTail(limit int) *HeadTail {
	return &HeadTail{limit: limit}
}

// Write records p. It never fails.
func (h *HeadTail) Write(p []byte) (int, error) {
	n := len(p)
	h.total += int64(n)
	if room := h.limit/2 - len(h.head); room > 0 && len(h.tail) == 0 {
		take := min(room, len(p))
		h.head = append(h.head, p[:take]...)
		p = p[take:]
	}
	keep := h.limit - h.limit/2
	if len(p) >= keep {
		h.tail = append(h.tail[:0], p[len(p)-keep:]...)
		h.start = 0
		return n, nil
	}
	for len(p) > 0 {
		if len(h.tail) < keep {
			take := min(keep-len(h.tail), len(p))
			h.tail = append(h.tail, p[:take]...)
			p = p[take:]
			continue
		}
		c := copy(h.tail[h.start:], p)
		p = p[c:]
		h.start = (h.start + c) % keep
	}
	return n, nil
}

// Len returns the number of bytes written in all.
func (h *HeadTail) Len() int64 { return h.total }

// Truncated reports whether bytes were dropped from the middle.
func (h *HeadTail) Truncated() bool {
	return h.total > int64(len(h.head)+len(h.tail))
}

// String returns the kept text as valid UTF-8: all of it when nothing was
// dropped, else the head, a marker saying how many bytes were omitted, and
// the tail.
func (h *HeadTail) String() string {
	tail := append(append([]byte(nil), h.tail[h.start:]...), h.tail[:h.start]...)
	if !h.Truncated() {
		return strings.ToValidUTF8(string(h.head)+string(tail), "\uFFFD")
	}
	return joinEnds(h.head, tail, h.total-int64(len(h.head)+len(tail)))
}

// Truncate shortens s to about limit bytes of JSON-encoded text, keeping its
// head and tail around a marker, and reports whether it cut anything. The
// result is valid UTF-8 whatever s was.
func Truncate(s string, limit int) (string, bool) {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if EncodedLen(s) <= limit {
		return s, false
	}
	keep := min(limit, len(s)*2/3) // always omit something
	head, tail := s[:keep/2], s[len(s)-(keep-keep/2):]
	// Control characters can grow sixfold when encoded; shrink until it fits.
	for {
		out := joinEnds([]byte(head), []byte(tail), int64(len(s)-len(head)-len(tail)))
		if EncodedLen(out) <= limit || len(head)+len(tail) < 64 {
			return out, true
		}
		head, tail = head[:len(head)*3/4], tail[len(tail)/4:]
	}
}

// joinEnds joins head and tail around the omission marker, cutting each at
// a rune boundary so no character is split.
func joinEnds(head, tail []byte, omitted int64) string {
	for i := len(head) - 1; i >= 0 && i >= len(head)-utf8.UTFMax; i-- {
		if utf8.RuneStart(head[i]) {
			if !utf8.FullRune(head[i:]) {
				omitted += int64(len(head) - i)
				head = head[:i]
			}
			break
		}
	}
	for i := 0; i < utf8.UTFMax-1 && len(tail) > 0 && !utf8.RuneStart(tail[0]); i++ {
		tail = tail[1:]
		omitted++
	}
	marker := fmt.Sprintf("\n[... %d bytes omitted ...]\n", omitted)
	return strings.ToValidUTF8(string(head), "\uFFFD") + marker + strings.ToValidUTF8(string(tail), "\uFFFD")
}

// EncodedLen returns the length of s as a JSON string in a result, without
// the quotes: what s costs against an output budget such as
// DefaultBudget. Invalid UTF-8 is counted as it stands.
func EncodedLen(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
			n += 2
		case c < 0x20:
			n += 6
		default:
			n++
		}
	}
	return n
}

// JoinLines joins lines with newlines, as many of them from the start as
// fit in limit bytes of JSON-encoded text, and returns the text and how
// many lines it holds. Invalid UTF-8 in a line is replaced. It is how a
// tool lists results: whole lines, never half of one.
func JoinLines(lines iter.Seq[string], limit int) (text string, n int) {
	var b strings.Builder
	size := 0
	for line := range lines {
		line = strings.ToValidUTF8(line, "\uFFFD")
		cost := EncodedLen(line)
		if n > 0 {
			cost += len(`\n`)
		}
		if size+cost > limit {
			break
		}
		if n > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(line)
		size += cost
		n++
	}
	return b.String(), n
}
