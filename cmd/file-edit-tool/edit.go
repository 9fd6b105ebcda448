package main

import (
	"bytes"
	"fmt"
	"io"
	"sort"
)

// replace writes data to w with the first n occurrences of from replaced
// by to, scanning left to right as bytes.Count counts them. Everything
// else is written exactly as it is.
func replace(w io.Writer, data, from, to []byte, n int) error {
	for ; n > 0; n-- {
		i := bytes.Index(data, from)
		if i < 0 {
			break
		}
		if _, err := w.Write(data[:i]); err != nil {
			return err
		}
		if _, err := w.Write(to); err != nil {
			return err
		}
		data = data[i+len(from):]
	}
	_, err := w.Write(data)
	return err
}

// appliedMinLen is how long new_string must be, spaces aside, before
// finding it in the file suggests that the edit was made already.
const appliedMinLen = 8

// hint tells the caller, when from is not in data, where it may have meant:
// text that differs from it only in whitespace, or to already in place.
func hint(data, from, to []byte) string {
	if first, last, ok := matchIgnoringSpace(data, from); ok {
		where := fmt.Sprintf("Line %d matches", first)
		if last > first {
			where = fmt.Sprintf("Lines %d-%d match", first, last)
		}
		return ". " + where + " it except for whitespace (indentation, spacing or line endings); read the file and copy the text exactly"
	}
	if len(bytes.TrimSpace(to)) >= appliedMinLen {
		if i := bytes.Index(data, to); i >= 0 {
			return fmt.Sprintf(". new_string is already there, at line %d: the edit may have been made already", 1+bytes.Count(data[:i], []byte{'\n'}))
		}
	}
	return ""
}

// matchIgnoringSpace finds s in data with all whitespace removed from both,
// and returns the lines of data (from 1) where the first such match starts
// and ends.
func matchIgnoringSpace(data, s []byte) (first, last int, ok bool) {
	var want []byte
	for _, c := range s {
		if !isSpace(c) {
			want = append(want, c)
		}
	}
	if len(want) == 0 {
		return 0, 0, false
	}
	flat := make([]byte, 0, len(data))
	starts := []int{0} // where each line of data starts in flat
	for _, c := range data {
		switch {
		case c == '\n':
			starts = append(starts, len(flat))
		case !isSpace(c):
			flat = append(flat, c)
		}
	}
	i := bytes.Index(flat, want)
	if i < 0 {
		return 0, 0, false
	}
	line := func(off int) int { return sort.Search(len(starts), func(k int) bool { return starts[k] > off }) }
	return line(i), line(i + len(want) - 1), true
}

// isSpace reports whether c is ASCII whitespace, what indentation, spacing
// and line endings are made of.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}
