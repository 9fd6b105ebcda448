package sse

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// readAll returns every event of stream and the error that ended it.
func readAll(r io.Reader) ([]Event, error) {
	sr := NewReader(r)
	var events []Event
	for {
		ev, err := sr.Next()
		if err != nil {
			return events, err
		}
		events = append(events, ev)
	}
}

func ev(typ, data string) Event { return Event{Type: typ, Data: []byte(data)} }

func TestReader(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stream string
		want   []Event
	}{
		{"named events", "event: message_start\ndata: {\"a\":1}\n\nevent: ping\ndata: {}\n\n",
			[]Event{ev("message_start", `{"a":1}`), ev("ping", "{}")}},
		{"data only", "data: {\"choices\":[]}\n\ndata: [DONE]\n\n",
			[]Event{ev("", `{"choices":[]}`), ev("", "[DONE]")}},
		{"data lines joined with newlines", "data: one\ndata:two\ndata\ndata:  three\n\n",
			[]Event{ev("", "one\ntwo\n\n three")}},
		{"CRLF", "event: a\r\ndata: x\r\n\r\ndata: y\r\n\r\n", []Event{ev("a", "x"), ev("", "y")}},
		{"CR", "event: a\rdata: x\r\rdata: y\r\r", []Event{ev("a", "x"), ev("", "y")}},
		{"mixed line ends", "data: x\r\n\rdata: y\n\r\n", []Event{ev("", "x"), ev("", "y")}},
		{"comments", ": OPENROUTER PROCESSING\n\n:\ndata: x\n: between\n\n", []Event{ev("", "x")}},
		{"other fields ignored", "id: 7\nretry: 100\nfoo: bar\ndata: x\n\n", []Event{ev("", "x")}},
		{"an empty data field is data", "data\n\nevent: e\ndata:\n\n", []Event{ev("", ""), ev("e", "")}},
		{"no data, no event", "event: ping\n\ndata: x\n\n", []Event{ev("", "x")}},
		{"the last field wins", "event: a\nevent: b\ndata: x\n\n", []Event{ev("b", "x")}},
		{"blank lines between events", "\n\n\ndata: x\n\n\n\ndata: y\n\n", []Event{ev("", "x"), ev("", "y")}},
		{"cut off at the end", "data: x\n\ndata: y\n", []Event{ev("", "x")}},
		{"cut off mid-line", "data: x\n\ndata: y", []Event{ev("", "x")}},
		{"a byte order mark first", "\uFEFFdata: x\n\n\uFEFFdata: y\n\n", []Event{ev("", "x")}},
		{"a colon in the value", "data: a: b\n\n", []Event{ev("", "a: b")}},
		{"not a stream", "<html><body>502 Bad Gateway</body></html>\n", nil},
		{"empty", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// One byte at a time puts every line end at the edge of a read.
			for _, r := range []io.Reader{strings.NewReader(tc.stream), iotest.OneByteReader(strings.NewReader(tc.stream))} {
				got, err := readAll(r)
				if err != io.EOF {
					t.Errorf("ended with %v, want io.EOF", err)
				}
				if d := cmp.Diff(tc.want, got, cmp.Comparer(bytes.Equal)); d != "" {
					t.Errorf("events (-want +got):\n%s", d)
				}
			}
		})
	}
}

func TestTooLong(t *testing.T) {
	atMax := "data: " + strings.Repeat("x", MaxLine-len("data: "))
	for _, tc := range []struct {
		name   string
		stream string
		events int
		err    error
	}{
		{"a line of MaxLine bytes", atMax + "\r\n\r\n", 1, io.EOF},
		{"a line over MaxLine", atMax + "x\n\n", 0, ErrTooLong},
		{"a comment over MaxLine", ":" + atMax + "\n\n", 0, ErrTooLong},
		{"an event over MaxLine in lines under it", strings.Repeat("data: "+strings.Repeat("x", 1<<20)+"\n", 17) + "\n", 0, ErrTooLong},
		{"a line over MaxLine after an event", "data: ok\n\n" + atMax + "xx", 1, ErrTooLong},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readAll(strings.NewReader(tc.stream))
			if len(got) != tc.events || err != tc.err {
				t.Errorf("%d events, then %v; want %d, then %v", len(got), err, tc.events, tc.err)
			}
		})
	}
}

func TestReadError(t *testing.T) {
	broken := errors.New("connection reset")
	got, err := readAll(io.MultiReader(strings.NewReader("data: x\n\ndata: y\n"), iotest.ErrReader(broken)))
	if len(got) != 1 || err != broken {
		t.Errorf("%d events, then %v; want 1, then the read error", len(got), err)
	}
}

// FuzzReader checks the Reader against a plain reading of the format, for
// the stream read whole and one byte at a time.
func FuzzReader(f *testing.F) {
	for _, s := range []string{
		"event: message_start\ndata: {\"type\":\"message_start\"}\n\n",
		"data: a\r\ndata: b\r\rdata: c\n\n",
		": comment\nid: 1\nretry: 5\ndata\n\n",
		"\uFEFFevent: e\n\ndata: x",
		"data: [DONE]\n\n",
		"\r\r\n\n\r",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, stream string) {
		want := reference(stream)
		for _, r := range []io.Reader{strings.NewReader(stream), iotest.OneByteReader(strings.NewReader(stream))} {
			got, err := readAll(r)
			if err != io.EOF {
				t.Fatalf("ended with %v", err)
			}
			if d := cmp.Diff(want, got, cmp.Comparer(bytes.Equal)); d != "" {
				t.Fatalf("%q (-want +got):\n%s", stream, d)
			}
		}
	})
}

// reference reads stream the plain way: every line end made an LF, the
// whole split into lines, each line acted on in turn. What follows the last
// line end cannot end an event, so it is left out.
func reference(stream string) []Event {
	stream = strings.ReplaceAll(stream, "\r\n", "\n")
	stream = strings.ReplaceAll(stream, "\r", "\n")
	stream = strings.TrimPrefix(stream, "\uFEFF")
	var events []Event
	var typ string
	var data []string
	lines := strings.Split(stream, "\n")
	for _, line := range lines[:len(lines)-1] {
		if line == "" {
			if data != nil {
				events = append(events, ev(typ, strings.Join(data, "\n")))
			}
			typ, data = "", nil
			continue
		}
		name, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch name {
		case "event":
			typ = value
		case "data":
			data = append(data, value)
		}
	}
	return events
}
