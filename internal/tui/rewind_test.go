package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/charmbracelet/x/ansi"
	"github.com/google/go-cmp/cmp"
	"github.com/ikigai-tools/ikigai/internal/session"
)

// The picker of turns: Up and Down choose, Enter takes, then b, f or c
// says what to take back; a compacted turn offers its files only.
func TestRewindPicker(t *testing.T) {
	if newRewindPicker(nil) != nil {
		t.Error("a picker with no turns")
	}
	turns := []session.Turn{
		{Prompt: "first\nmore", Before: "c1", Compacted: true},
		{Prompt: "second"},
		{Prompt: "third", Before: "c3"},
	}
	strip := func(lines []string) []string {
		for i := range lines {
			lines[i] = ansi.Strip(lines[i])
		}
		return lines
	}
	p := newRewindPicker(turns)
	want := []string{"  1  first  (changed files)", "  2  second", "> 3  third  (changed files)", "Rewind: Up and Down choose a turn, Enter takes it, Esc leaves"}
	if d := cmp.Diff(want, strip(p.view(80, 10))); d != "" {
		t.Errorf("view (-want +got):\n%s", d)
	}
	if got := strip(p.view(80, 3)); !cmp.Equal(got[:2], []string{"  2  second", "> 3  third  (changed files)"}) {
		t.Errorf("a short view: %q", got)
	}
	for _, k := range []string{"up", "enter"} {
		if line, done := p.key(k); line != "" || done {
			t.Fatalf("%s: %q, %v", k, line, done)
		}
	}
	if line, done := p.key("c"); line != "/rewind 2 conversation" || !done {
		t.Errorf("c: %q, %v", line, done)
	}

	p = newRewindPicker(turns)
	for _, k := range []string{"up", "up", "up", "enter"} {
		p.key(k)
	}
	if v := strip(p.view(200, 10)); !cmp.Equal(v, []string{"Rewind to before turn 1? f files (the conversation was compacted since) · Esc back"}) {
		t.Errorf("compacted: %q", v)
	}
	if line, done := p.key("c"); line != "" || done {
		t.Errorf("c on a compacted turn: %q, %v", line, done)
	}
	if line, _ := p.key("b"); line != "/rewind 1 files" {
		t.Errorf("b on a compacted turn: %q", line)
	}

	p = newRewindPicker(turns)
	p.key("enter")
	p.key("esc") // back to the list
	if line, done := p.key("esc"); line != "" || !done {
		t.Errorf("Esc: %q, %v", line, done)
	}
	p = newRewindPicker(turns)
	p.key("enter")
	if line, _ := p.key("b"); line != "/rewind 3" {
		t.Errorf("b: %q", line)
	}
	p = newRewindPicker(turns)
	p.key("enter")
	if line, _ := p.key("f"); line != "/rewind 3 files" {
		t.Errorf("f: %q", line)
	}
}

// Esc twice on an empty prompt with no turns says so; any other key in
// between disarms it.
func TestEscEscNothingToRewind(t *testing.T) {
	s := newScreen(t)
	s.send(tea.KeyPressMsg{Code: tea.KeyEscape})
	if v := s.view(); !strings.Contains(v, "Press Esc again to rewind to an earlier turn.") {
		t.Errorf("after Esc:\n%s", v)
	}
	s.keys("x", "ctrl+c")
	s.send(tea.KeyPressMsg{Code: tea.KeyEscape})
	if v := s.view(); !strings.Contains(v, "Press Esc again") {
		t.Errorf("Esc after other keys:\n%s", v)
	}
	s.send(tea.KeyPressMsg{Code: tea.KeyEscape})
	if v := s.view(); !strings.Contains(v, "Nothing to rewind yet.") || s.m.picker != nil {
		t.Errorf("Esc Esc:\n%s", v)
	}
}
