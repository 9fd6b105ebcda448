package tui

import (
	"encoding/json"
	"os"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/ikigai-tools/ikigai/internal/display"
	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/markdown"
	"github.com/ikigai-tools/ikigai/internal/provider"
)

// Styles of the scrollback. Only attributes every terminal has: bold, faint
// and the basic colours; none with NO_COLOR set.
var (
	promptStyle = lipgloss.NewStyle().Bold(true)
	toolStyle   = lipgloss.NewStyle().Faint(true)
	errorStyle  = lipgloss.NewStyle().Foreground(lipgloss.Red)
	addStyle    = lipgloss.NewStyle().Foreground(lipgloss.Green)
	removeStyle = lipgloss.NewStyle().Foreground(lipgloss.Red)
	noColor     = os.Getenv("NO_COLOR") != ""
)

// styled renders s in st, line by line so that a style never spans a
// line break the terminal might scroll at.
func styled(st lipgloss.Style, s string) string {
	if noColor {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = st.Render(l)
		}
	}
	return strings.Join(lines, "\n")
}

// wrap breaks a line of the scrollback into rows of at most width columns,
// at spaces where it can, keeping its styles on every row.
func wrap(line string, width int) []string {
	if ansi.StringWidth(line) <= width {
		return []string{line}
	}
	return strings.Split(lipgloss.Wrap(line, width, ""), "\n")
}

// echo is how a line the user sent stands in the scrollback.
func echo(line string) string {
	return styled(promptStyle, "> "+strings.ReplaceAll(display.Clean(line), "\n", "\n  "))
}

// approvalText renders text, a question about a call of tool, its diff
// coloured and a bash command highlighted.
func approvalText(tool, text string) string {
	lines := strings.Split(display.Clean(text), "\n")
	command := false // in the lines of bash's command
	for i, l := range lines {
		switch {
		case i == 0:
			lines[i] = styled(promptStyle, l)
		case tool == "bash" && strings.HasPrefix(l, "  command: "):
			command = true
			lines[i] = "  command: " + highlightShell(l[len("  command: "):])
		case command && strings.HasPrefix(l, "    "):
			lines[i] = "    " + highlightShell(l[4:])
		case strings.HasPrefix(l, "+ "):
			lines[i] = styled(addStyle, l)
		case strings.HasPrefix(l, "- "):
			lines[i] = styled(removeStyle, l)
		case strings.HasPrefix(l, "@@ "):
			lines[i] = styled(toolStyle, l)
		default:
			command = false
		}
	}
	return strings.Join(lines, "\n")
}

// replayRendered is how many of a resumed conversation's answers, the
// latest, are rendered as Markdown: the older ones are shown as written, so
// that a long conversation does not keep the renderer busy for seconds.
const replayRendered = 100

// replay renders a saved conversation for the scrollback, as it looked
// when it happened, each user message cut to a few lines. render draws an
// answer; nil shows it as written.
func replay(msgs []provider.Message, render func(text string) []string) []string {
	answers := 0
	for _, m := range msgs {
		for _, p := range m.Parts {
			if _, ok := p.(provider.Text); ok && m.Role != provider.User {
				answers++
			}
		}
	}
	var out []string
	names := map[string]string{} // tool names by call id
	for _, m := range msgs {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case provider.Text:
				text := strings.TrimSpace(string(p))
				switch {
				case m.Role == provider.User:
					if text != "" {
						out = append(out, "", echo(display.Lines(text, display.MaxResultLines, display.MaxLineWidth)))
					}
				case text == "":
					answers--
				case render != nil && answers <= replayRendered:
					out = append(out, render(display.Clean(text))...)
					answers--
				default:
					out = append(out, display.Clean(text))
					answers--
				}
			case provider.ToolCall:
				names[p.ID] = p.Name
				out = append(out, styled(toolStyle, display.Clean(display.Call(p.Name, p.Arguments))))
			case provider.ToolResult:
				var env execute.Envelope
				if json.Unmarshal([]byte(p.Content), &env) != nil {
					env = execute.Succeeded(json.RawMessage(p.Content))
				}
				out = append(out, styled(toolStyle, display.Clean(display.Result(names[p.CallID], env))))
			}
		}
	}
	return out
}

// renderAnswer returns a function that draws an answer as the stream
// would have, block by block, width columns wide; as written when r is nil
// or fails.
func renderAnswer(r *markdown.Renderer, width int) func(text string) []string {
	if r == nil {
		return nil
	}
	return func(text string) []string {
		var split markdown.Splitter
		blocks := split.Write(text)
		if last, ok := split.Flush(); ok {
			blocks = append(blocks, last)
		}
		var out []string
		for i, b := range blocks {
			lines, err := r.Render(b, width)
			if err != nil {
				return []string{text}
			}
			if i > 0 {
				out = append(out, "") // blocks apart, as Markdown sets them
			}
			out = append(out, lines...)
		}
		return out
	}
}
