package tui

import (
	"fmt"
	"io"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// A Choice is one answer to a question, chosen by its key.
type Choice struct {
	Key   string // one character
	Label string
}

// Choose asks a question before the UI starts, such as whether to trust a
// directory, and returns the key of the answer, or "" when the user
// pressed Ctrl-C, Ctrl-D or Esc. The question and the answer stay in the
// scrollback, written to w once the question is gone.
func Choose(w io.Writer, question string, choices []Choice) (string, error) {
	m, err := tea.NewProgram(&chooser{question: question, choices: choices, width: 80}).Run()
	if err != nil {
		return "", err
	}
	c := m.(*chooser)
	fmt.Fprintln(w, question)
	if c.chosen.Key != "" {
		fmt.Fprintln(w, styled(promptStyle, "→ "+c.chosen.Label))
	}
	return c.chosen.Key, nil
}

type chooser struct {
	question string
	choices  []Choice
	width    int
	chosen   Choice
	done     bool
}

func (c *chooser) Init() tea.Cmd { return nil }

func (c *chooser) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if size, ok := msg.(tea.WindowSizeMsg); ok {
		c.width = max(size.Width, 20)
	}
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return c, nil
	}
	switch s := strings.ToLower(k.String()); s {
	case "ctrl+c", "ctrl+d", "esc":
		c.done = true
		return c, tea.Quit
	default:
		for _, ch := range c.choices {
			if s == ch.Key {
				c.chosen, c.done = ch, true
				return c, tea.Quit
			}
		}
	}
	return c, nil
}

func (c *chooser) View() tea.View {
	if c.done {
		return tea.NewView("")
	}
	var opts []string
	for _, ch := range c.choices {
		opts = append(opts, ch.Key+" "+ch.Label)
	}
	return tea.NewView(ansi.Wrap(c.question+"\n"+styled(promptStyle, strings.Join(opts, " · ")), c.width, ""))
}
