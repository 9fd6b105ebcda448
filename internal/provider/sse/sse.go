// Package sse reads server-sent events (text/event-stream), the format in
// which both model APIs stream their answers. It follows the WHATWG
// definition: lines end in LF, CRLF or CR; a line starting with a colon is
// a comment; "event" names the event, each "data" line adds a line to its
// data, "id" and "retry" are ignored; a blank line ends the event. An
// event without data is not an event, and one the stream ends in the
// middle of is dropped.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// MaxLine is the longest line a Reader takes, and the most data one event
// may carry: far more than any API sends in one event, and little enough
// that a broken server cannot make ikigai hold gigabytes.
const MaxLine = 16 << 20

// ErrTooLong is the error for a line or an event longer than MaxLine.
var ErrTooLong = errors.New("event stream: a line or an event is longer than 16 MiB")

// An Event is one event of a stream.
type Event struct {
	Type string // the event field; empty when the event has none
	Data []byte // the data lines, joined with newlines
}

// A Reader reads the events of a stream.
type Reader struct {
	scan    *bufio.Scanner
	started bool // the first line was read
	clean   int  // how many bytes at the start of the Scanner's data hold no line end
}

// NewReader returns a Reader of the stream r.
func NewReader(r io.Reader) *Reader {
	sr := &Reader{scan: bufio.NewScanner(r)}
	// Room for a line of MaxLine bytes and its CRLF.
	sr.scan.Buffer(nil, MaxLine+2)
	sr.scan.Split(sr.lines)
	return sr
}

// Next returns the next event. At the end of the stream it returns io.EOF;
// a failure to read the stream is returned as it is, and a line or event
// that is too long as ErrTooLong.
func (r *Reader) Next() (Event, error) {
	var ev Event
	var data []byte
	hasData := false
	for r.scan.Scan() {
		line := r.scan.Bytes()
		if len(line) > MaxLine {
			return Event{}, ErrTooLong
		}
		if !r.started {
			r.started = true
			line = bytes.TrimPrefix(line, []byte("\uFEFF"))
		}
		if len(line) == 0 {
			if hasData {
				ev.Data = data
				return ev, nil
			}
			ev = Event{}
			continue
		}
		name, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(name) {
		case "event":
			ev.Type = string(value)
		case "data":
			if hasData {
				data = append(data, '\n')
			}
			if len(data)+len(value) > MaxLine {
				return Event{}, ErrTooLong
			}
			data = append(data, value...)
			hasData = true
		}
	}
	if err := r.scan.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return Event{}, ErrTooLong
		}
		return Event{}, err
	}
	return Event{}, io.EOF
}

// lines splits a stream into lines ended by LF, CRLF or CR, for a
// bufio.Scanner. A line that arrives in many reads is searched once: the
// Scanner passes it again, longer, each time, from where it starts.
func (r *Reader) lines(data []byte, atEOF bool) (advance int, line []byte, err error) {
	i := lineEnd(data[min(r.clean, len(data)):])
	if i >= 0 {
		i += min(r.clean, len(data))
	}
	r.clean = 0
	switch {
	case i < 0:
		if atEOF && len(data) > 0 {
			return len(data), data, nil
		}
		r.clean = len(data)
		return 0, nil, nil
	case data[i] == '\n':
		return i + 1, data[:i], nil
	case i+1 < len(data):
		if data[i+1] == '\n' {
			return i + 2, data[:i], nil
		}
		return i + 1, data[:i], nil
	case atEOF:
		return i + 1, data[:i], nil
	}
	// A CR at the end of what was read so far: an LF may follow it.
	r.clean = i
	return 0, nil, nil
}

// lineEnd returns the index of the first CR or LF in b, or -1.
func lineEnd(b []byte) int {
	lf := bytes.IndexByte(b, '\n')
	if lf >= 0 {
		b = b[:lf]
	}
	if cr := bytes.IndexByte(b, '\r'); cr >= 0 {
		return cr
	}
	return lf
}
