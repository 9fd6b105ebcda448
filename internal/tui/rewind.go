package tui

import "strings"

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
