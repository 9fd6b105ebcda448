package tui

import (
	"strings"

	"charm.land/lipgloss/v2"
)

// Styles of a highlighted shell command.
var (
	commandStyle  = lipgloss.NewStyle().Bold(true)
	stringStyle   = lipgloss.NewStyle().Foreground(lipgloss.Green)
	operatorStyle = lipgloss.NewStyle().Foreground(lipgloss.Yellow)
	commentStyle  = lipgloss.NewStyle().Faint(true)
	variableStyle = lipgloss.NewStyle().Foreground(lipgloss.Cyan)
)

// highlightShell colours one line of a shell command for the eye: the
// command words bold, quoted strings green, operators and redirections
// yellow, variables cyan, comments faint. It only adds styles: without
// them (NO_COLOR) the line is as it was, every character of it.
func highlightShell(line string) string {
	if noColor {
		return line
	}
	var b strings.Builder
	atCommand := true // the next word is a command's name
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			b.WriteByte(c)
			i++
		case c == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			b.WriteString(commentStyle.Render(line[i:]))
			i = len(line)
		case c == '\'' || c == '"':
			end := strings.IndexByte(line[i+1:], c)
			if end < 0 {
				end = len(line)
			} else {
				end += i + 2
			}
			b.WriteString(stringStyle.Render(line[i:end]))
			i = end
			atCommand = false
		case c == '$':
			end := i + 1
			for end < len(line) && (isWordByte(line[end]) || line[end] == '{' || line[end] == '}') {
				end++
			}
			b.WriteString(variableStyle.Render(line[i:end]))
			i = end
			atCommand = false
		case strings.IndexByte("|&;<>()", c) >= 0:
			end := i + 1
			for end < len(line) && strings.IndexByte("|&;<>", line[end]) >= 0 {
				end++
			}
			b.WriteString(operatorStyle.Render(line[i:end]))
			atCommand = strings.ContainsAny(line[i:end], "|&;(")
			i = end
		default:
			end := i
			for end < len(line) && strings.IndexByte(" \t'\"$|&;<>()", line[end]) < 0 {
				end++
			}
			word := line[i:end]
			switch {
			case atCommand && strings.Contains(word, "=") && !strings.HasPrefix(word, "="):
				b.WriteString(word) // an assignment before the command
			case atCommand:
				b.WriteString(commandStyle.Render(word))
				atCommand = false
			case len(word) > 1 && word[len(word)-1] >= '0' && word[len(word)-1] <= '9' && end < len(line) && line[end] == '>':
				b.WriteString(operatorStyle.Render(word)) // 2>
			default:
				b.WriteString(word)
			}
			i = end
		}
	}
	return b.String()
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
