package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/ikigai-tools/ikigai/internal/display"
	"github.com/ikigai-tools/ikigai/internal/session"
)

// diffText colours a unified diff (/diff): removed lines red, added ones
// green, hunk headers faint.
func diffText(text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "+++ "), strings.HasPrefix(l, "--- "), strings.HasPrefix(l, "diff --git "):
			lines[i] = styled(promptStyle, l)
		case strings.HasPrefix(l, "+"):
			lines[i] = styled(addStyle, l)
		case strings.HasPrefix(l, "-"):
			lines[i] = styled(removeStyle, l)
		case strings.HasPrefix(l, "@@"):
			lines[i] = styled(toolStyle, l)
		}
	}
	return strings.Join(lines, "\n")
}

// rewindPicker is the list of turns to go back to that Esc twice on an
// empty prompt opens: Up and Down choose a turn (the latest first chosen),
// Enter takes it, then b takes back both its files and the conversation,
// f the files, c the conversation; Esc leaves, or goes back to the list.
// What it picks is run as the /rewind command it stands for.
type rewindPicker struct {
	turns  []session.Turn
	at     int  // the chosen turn, from 0
	picked bool // Enter was pressed: asking what to take back
}

// newRewindPicker returns a picker of turns; nil when there are none.
func newRewindPicker(turns []session.Turn) *rewindPicker {
	if len(turns) == 0 {
		return nil
	}
	return &rewindPicker{turns: turns, at: len(turns) - 1}
}

// key handles a key, named as tea.KeyPressMsg.String names it. It returns
// the /rewind line to run when one is picked, and whether the picker is
// done (a line picked, or left with Esc).
func (p *rewindPicker) key(k string) (line string, done bool) {
	if !p.picked {
		switch k {
		case "up":
			p.at = max(0, p.at-1)
		case "down":
			p.at = min(len(p.turns)-1, p.at+1)
		case "enter":
			p.picked = true
		case "esc", "ctrl+c":
			return "", true
		}
		return "", false
	}
	n := p.at + 1
	t := p.turns[p.at]
	switch k {
	case "b":
		if t.Compacted {
			return fmt.Sprintf("/rewind %d files", n), true
		}
		return fmt.Sprintf("/rewind %d", n), true
	case "f":
		return fmt.Sprintf("/rewind %d files", n), true
	case "c":
		if !t.Compacted {
			return fmt.Sprintf("/rewind %d conversation", n), true
		}
	case "esc":
		p.picked = false
	case "ctrl+c":
		return "", true
	}
	return "", false
}

// view draws the picker in at most rows rows of width columns: the turns
// around the chosen one, then what the keys do.
func (p *rewindPicker) view(width, rows int) []string {
	var lines []string
	if p.picked {
		t := p.turns[p.at]
		q := fmt.Sprintf("Rewind to before turn %d? b files and conversation · f files only · c conversation only · Esc back", p.at+1)
		if t.Compacted {
			q = fmt.Sprintf("Rewind to before turn %d? f files (the conversation was compacted since) · Esc back", p.at+1)
		}
		return []string{styled(promptStyle, ansi.Truncate(q, width, "…"))}
	}
	shown := max(1, rows-1)
	first := max(0, min(p.at-shown/2, len(p.turns)-shown))
	for i := first; i < len(p.turns) && i < first+shown; i++ {
		mark := "  "
		if i == p.at {
			mark = "> "
		}
		line := fmt.Sprintf("%s%d  %s", mark, i+1, firstLine(p.turns[i].Prompt))
		if p.turns[i].Before != "" {
			line += "  (changed files)"
		}
		line = ansi.Truncate(display.Clean(line), width, "…")
		if i == p.at {
			line = styled(promptStyle, line)
		}
		lines = append(lines, line)
	}
	return append(lines, styled(toolStyle, ansi.Truncate("Rewind: Up and Down choose a turn, Enter takes it, Esc leaves", width, "…")))
}

// firstLine is the first line of a prompt.
func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return line
}

// rewindKey handles Esc on an empty prompt: the second in a row (or the
// first after an Esc that cancelled a run) opens the picker of turns.
func (m *Model) rewindKey() {
	if !m.escArmed {
		m.escArmed = true
		m.hint = "Press Esc again to rewind to an earlier turn."
		return
	}
	m.escArmed = false
	if m.picker = newRewindPicker(m.shell.Turns()); m.picker == nil {
		m.hint = "Nothing to rewind yet."
	}
}

// pick handles a key while the picker of turns is up; what it picks is
// sent as the /rewind line it stands for, as if typed.
func (m *Model) pick(k tea.KeyPressMsg) tea.Cmd {
	line, done := m.picker.key(strings.ToLower(k.String()))
	if done {
		m.picker = nil
	}
	if line == "" {
		return nil
	}
	m.input.SetValue(line)
	return m.submit()
}
