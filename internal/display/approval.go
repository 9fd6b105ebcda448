package display

import (
	"encoding/json"
	"fmt"
	"strings"
)

// MaxApprovalLines bounds what an approval question shows of a call: enough
// to judge a command or an edit, not a whole file.
const MaxApprovalLines = 40

// Approval renders a call the user is asked to approve, in full where the
// scrollback line would shorten it: every argument on its own lines; for
// file_edit, the change as a diff of old_string against new_string; for
// file_write, the content as added lines.
func Approval(name string, args json.RawMessage) string {
	var edit struct {
		Path       *string `json:"file_path"`
		Old        *string `json:"old_string"`
		New        *string `json:"new_string"`
		Content    *string `json:"content"`
		ReplaceAll bool    `json:"replace_all"`
	}
	json.Unmarshal(args, &edit)
	var lines []string
	switch {
	case name == "file_edit" && edit.Path != nil && edit.Old != nil && edit.New != nil:
		head := fmt.Sprintf("→ file_edit: %s", *edit.Path)
		if edit.ReplaceAll {
			head += " (every occurrence)"
		}
		lines = append([]string{head}, Diff(*edit.Old, *edit.New)...)
	case name == "file_write" && edit.Path != nil && edit.Content != nil:
		lines = []string{fmt.Sprintf("→ file_write: %s", *edit.Path)}
		for _, l := range splitLines(*edit.Content) {
			lines = append(lines, "+ "+l)
		}
	default:
		lines = []string{"→ " + name + ":"}
		pairs, ok := objectPairs(args)
		if !ok {
			pairs = []pair{{"arguments", string(args)}}
		}
		for _, p := range pairs {
			value := p.value
			var s string
			if json.Unmarshal([]byte(p.value), &s) == nil {
				value = s // a string is shown as its text
			}
			vl := splitLines(value)
			lines = append(lines, "  "+p.key+": "+vl[0])
			for _, l := range vl[1:] {
				lines = append(lines, "    "+l)
			}
		}
	}
	if n := len(lines) - MaxApprovalLines; n > 0 {
		lines = append(lines[:MaxApprovalLines], fmt.Sprintf("  … %d more line%s", n, plural(n)))
	}
	for i, l := range lines {
		lines[i] = shorten(l, MaxLineWidth)
	}
	return strings.Join(lines, "\n")
}

// maxDiffLines bounds the inputs Diff compares line by line; past it the
// old text is shown removed and the new one added.
const maxDiffLines = 2000

// Diff compares two texts line by line and returns the lines of a diff:
// "- " for a removed line, "+ " for an added one, "  " for one both share.
func Diff(old, new string) []string {
	a, b := splitLines(old), splitLines(new)
	var out []string
	if len(a) > maxDiffLines || len(b) > maxDiffLines {
		for _, l := range a {
			out = append(out, "- "+l)
		}
		for _, l := range b {
			out = append(out, "+ "+l)
		}
		return out
	}
	// lcs[i][j] is the length of the longest common subsequence of a[i:]
	// and b[j:].
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			out = append(out, "  "+a[i])
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			out = append(out, "- "+a[i])
			i++
		default:
			out = append(out, "+ "+b[j])
			j++
		}
	}
	return out
}

// splitLines splits s into lines, without a last empty one for a final
// newline; "" is one empty line.
func splitLines(s string) []string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}
