package display

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// diffContext is how many unchanged lines a hunk shows around a change.
const diffContext = 3

// maxDiffFile is the largest file FileChange reads.
const maxDiffFile = 8 << 20

// FileChange renders what a file_edit or file_write call would do to the
// file on disk (a relative path is under dir) as a unified diff: hunks with
// three lines of context, each line with its number ("- " for a removed
// line, by its number in the file now; "+ " for an added one and "  " for
// one kept, by their numbers after the call). It is false for any other
// call, and for an edit that would not apply as it stands (the file cannot
// be read, old_string is not in it, or is there more than once without
// replace_all): Approval shows those.
func FileChange(dir, name string, args json.RawMessage) (string, bool) {
	var call struct {
		Path       *string `json:"file_path"`
		Old        *string `json:"old_string"`
		New        *string `json:"new_string"`
		Content    *string `json:"content"`
		ReplaceAll bool    `json:"replace_all"`
	}
	if json.Unmarshal(args, &call) != nil || call.Path == nil || *call.Path == "" {
		return "", false
	}
	path := *call.Path
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	var before, after, head string
	switch {
	case name == "file_edit" && call.Old != nil && call.New != nil && *call.Old != "":
		data, ok := readSmall(path)
		if !ok {
			return "", false
		}
		before = string(data)
		n := strings.Count(before, *call.Old)
		if n == 0 || n > 1 && !call.ReplaceAll {
			return "", false
		}
		after = strings.Replace(before, *call.Old, *call.New, -1)
		head = fmt.Sprintf("→ file_edit: %s", *call.Path)
		if n > 1 {
			head += fmt.Sprintf(" (%d occurrences)", n)
		}
	case name == "file_write" && call.Content != nil:
		after = *call.Content
		head = fmt.Sprintf("→ file_write: %s", *call.Path)
		if _, err := os.Lstat(path); os.IsNotExist(err) {
			head += " (a new file)"
		} else if data, ok := readSmall(path); ok {
			before = string(data)
		} else {
			return "", false
		}
	default:
		return "", false
	}
	lines := []string{head}
	if before == after {
		lines = append(lines, "(no change)")
	} else {
		lines = append(lines, Unified(before, after, diffContext)...)
	}
	for i, l := range lines {
		lines[i] = Visible(l)
	}
	return strings.Join(lines, "\n"), true
}

// readSmall reads a regular file no larger than maxDiffFile.
func readSmall(path string) ([]byte, bool) {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxDiffFile {
		return nil, false
	}
	data, err := os.ReadFile(path)
	return data, err == nil
}

// An op is one line of a diff: ' ' kept, '-' removed, '+' added, with its
// numbers in the old and the new text (0 where it has none).
type op struct {
	kind     byte
	old, new int
	text     string
}

// Unified returns the hunks of a unified diff of old against new, with
// context lines of context around each change: an @@ line, then the
// numbered lines ("- " removed, "+ " added, "  " kept).
func Unified(old, new string, context int) []string {
	a, b := fileLines(old), fileLines(new)
	// The common head and tail are kept as they are; only what lies
	// between is compared line by line.
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	q := 0
	for q < len(a)-p && q < len(b)-p && a[len(a)-1-q] == b[len(b)-1-q] {
		q++
	}
	var ops []op
	for i := range p {
		ops = append(ops, op{' ', i + 1, i + 1, a[i]})
	}
	i, j := p, p
	for _, l := range diffLines(a[p:len(a)-q], b[p:len(b)-q]) {
		switch {
		case strings.HasPrefix(l, "- "):
			ops = append(ops, op{'-', i + 1, 0, l[2:]})
			i++
		case strings.HasPrefix(l, "+ "):
			ops = append(ops, op{'+', 0, j + 1, l[2:]})
			j++
		default:
			ops = append(ops, op{' ', i + 1, j + 1, l[2:]})
			i, j = i+1, j+1
		}
	}
	for k := range q {
		ops = append(ops, op{' ', len(a) - q + k + 1, len(b) - q + k + 1, a[len(a)-q+k]})
	}
	width := len(fmt.Sprint(max(len(a), len(b))))
	var out []string
	for k := 0; k < len(ops); {
		if ops[k].kind == ' ' {
			k++
			continue
		}
		// A hunk: from context lines before this change to context lines
		// after the last change no further than 2*context lines on.
		start, end := max(0, k-context), k
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			next := end
			for next < len(ops) && ops[next].kind == ' ' {
				next++
			}
			if next == len(ops) || next-end > 2*context {
				end = min(end+context, len(ops))
				break
			}
			end = next
		}
		out = append(out, hunkHeader(ops[start:end]))
		for _, o := range ops[start:end] {
			switch o.kind {
			case '-':
				out = append(out, fmt.Sprintf("- %*d │ %s", width, o.old, o.text))
			case '+':
				out = append(out, fmt.Sprintf("+ %*d │ %s", width, o.new, o.text))
			default:
				out = append(out, fmt.Sprintf("  %*d │ %s", width, o.new, o.text))
			}
		}
		k = end
	}
	return out
}

// hunkHeader is the @@ line of a hunk.
func hunkHeader(ops []op) string {
	var oldStart, oldN, newStart, newN int
	for _, o := range ops {
		if o.kind != '+' {
			if oldN == 0 {
				oldStart = o.old
			}
			oldN++
		}
		if o.kind != '-' {
			if newN == 0 {
				newStart = o.new
			}
			newN++
		}
	}
	return fmt.Sprintf("@@ -%d,%d +%d,%d @@", oldStart, oldN, newStart, newN)
}

// fileLines splits a file's text into its lines; an empty text has none.
func fileLines(s string) []string {
	if s == "" {
		return nil
	}
	return splitLines(s)
}
