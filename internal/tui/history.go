package tui

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
)

// maxHistory is how many entries the history keeps.
const maxHistory = 1000

// history is what the user typed before, this run and earlier ones, kept
// in a file of one JSON string per line (so an entry may span lines), and
// a position for walking it with Up and Down.
type history struct {
	path    string // "" keeps the history in memory only
	entries []string
	pos     int    // len(entries) when not walking
	draft   string // what was typed before walking began
}

// loadHistory reads the history file at path; a missing or unreadable one
// is an empty history, and lines that do not parse are skipped.
func loadHistory(path string) *history {
	h := &history{path: path}
	if f, err := os.Open(path); err == nil {
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var entry string
			if json.Unmarshal(sc.Bytes(), &entry) == nil && entry != "" {
				h.entries = append(h.entries, entry)
			}
		}
		f.Close()
	}
	// The file is appended to, and cut back when it has grown well past
	// what is kept, so that it is rarely rewritten.
	n := len(h.entries)
	if n > maxHistory {
		h.entries = h.entries[n-maxHistory:]
	}
	if n > 2*maxHistory {
		h.rewrite()
	}
	h.pos = len(h.entries)
	return h
}

// add records an entry, unless it repeats the last one, and stops walking.
func (h *history) add(entry string) {
	if entry != "" && (len(h.entries) == 0 || h.entries[len(h.entries)-1] != entry) {
		h.entries = append(h.entries, entry)
		h.save(entry)
	}
	h.pos = len(h.entries)
}

// prev returns the entry before the current one; current is kept as the
// draft when walking starts. It reports false at the oldest entry.
func (h *history) prev(current string) (string, bool) {
	if h.pos == 0 {
		return "", false
	}
	if h.pos == len(h.entries) {
		h.draft = current
	}
	h.pos--
	return h.entries[h.pos], true
}

// next returns the entry after the current one, or the draft past the
// newest. It reports false when not walking.
func (h *history) next() (string, bool) {
	if h.pos >= len(h.entries) {
		return "", false
	}
	h.pos++
	if h.pos == len(h.entries) {
		return h.draft, true
	}
	return h.entries[h.pos], true
}

// save appends one entry to the file. History is a convenience: failing to
// keep it is not worth interrupting the user for.
func (h *history) save(entry string) {
	if h.path == "" {
		return
	}
	line, _ := json.Marshal(entry)
	os.MkdirAll(filepath.Dir(h.path), 0o700)
	f, err := os.OpenFile(h.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	f.Write(append(line, '\n'))
	f.Close()
}

// rewrite replaces the file with the entries kept.
func (h *history) rewrite() {
	if h.path == "" {
		return
	}
	var data []byte
	for _, e := range h.entries {
		line, _ := json.Marshal(e)
		data = append(append(data, line...), '\n')
	}
	tmp := h.path + ".tmp"
	if os.WriteFile(tmp, data, 0o600) == nil {
		os.Rename(tmp, h.path)
	}
}
