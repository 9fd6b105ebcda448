// Command grep-tool searches files for lines that match a regular
// expression, recursively and in parallel, as ripgrep does.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/ikigai-tools/ikigai/toolsdk"
	"github.com/ikigai-tools/ikigai/toolsdk/files"
	"github.com/ikigai-tools/ikigai/toolsdk/output"
	"github.com/ikigai-tools/ikigai/toolsdk/walk"
)

type params struct {
	Pattern    string `json:"pattern" description:"Regular expression to search for, in Go's RE2 syntax (POSIX ERE works; no lookaround or backreferences). Matched against each line."`
	Glob       string `json:"glob,omitempty" description:"Search only files whose name matches this glob (e.g. *.go, *.{ts,tsx}); a glob containing / is matched against the path relative to path (e.g. src/**/*.c)"`
	Path       string `json:"path,omitempty" description:"File or directory to search (default: the working directory)"`
	IgnoreCase bool   `json:"ignore_case,omitempty" description:"Match letters in either case"`
}

type result struct {
	Output    string `json:"output" description:"Matching lines as file:line: content, sorted by file then line"`
	Count     int    `json:"count" description:"How many lines matched, including any not listed"`
	Truncated bool   `json:"truncated,omitempty" description:"Not every matching line is listed"`
}

const (
	// maxLine is how much of a long line is shown, in bytes: a window
	// around the match, so that a minified file cannot fill the output.
	maxLine = 500
)

var tool = toolsdk.New(toolsdk.Schema{
	Name: "grep",
	Description: "Search file contents with a regular expression. Searches path recursively, skipping .git, " +
		"files excluded by .gitignore, and binary files. Returns matching lines as file:line: content.",
	Annotations: &toolsdk.Annotations{ReadOnlyHint: true, IdempotentHint: true},
}, run)

func main() { tool.Main() }

func run(ctx context.Context, p params) (result, error) {
	m, err := compile(p.Pattern, p.IgnoreCase)
	if err != nil {
		return result{}, err
	}
	if err := checkGlob(p.Glob); err != nil {
		return result{}, err
	}
	root := p.Path
	if root == "" {
		root = "."
	} else if err := files.CheckPath("searching", root); err != nil {
		return result{}, err
	}
	info, err := os.Stat(root)
	if err != nil {
		return result{}, pathError(root, err)
	}

	var out found
	switch {
	case !info.IsDir() && !info.Mode().IsRegular():
		return result{}, pathError(root, errors.New("not a regular file or directory"))
	case !info.IsDir():
		// A file named explicitly is searched whatever its name.
		text, err := walk.ReadFile(root, nil)
		if err != nil {
			return result{}, pathError(root, err)
		}
		search(m, root, text, &out)
		return out.result(), nil
	}

	bufs := make([][]byte, walk.Workers()) // each worker reuses its own
	err = walk.Walk(ctx, root, walk.Options{}, func(worker int, f walk.File) {
		if p.Glob != "" && !globMatch(p.Glob, f.Rel) {
			return
		}
		text, err := f.Content(bufs[worker])
		if err == nil { // unreadable files are skipped
			bufs[worker] = text
			search(m, f.Path, text, &out)
		}
	})
	if err != nil {
		if ctx.Err() != nil {
			return result{}, ctx.Err()
		}
		return result{}, pathError(root, err)
	}
	return out.result(), nil
}

// compile checks and compiles the pattern.
func compile(pattern string, ignoreCase bool) (*matcher, error) {
	if err := files.CheckPattern("pattern", pattern); err != nil {
		return nil, err
	}
	m, err := newMatcher(pattern, ignoreCase)
	if err == nil {
		return m, nil
	}
	reason := err.Error()
	var serr *syntax.Error
	if errors.As(err, &serr) {
		reason = fmt.Sprintf("%s: `%s`", serr.Code, serr.Expr)
		if serr.Code == syntax.ErrInvalidPerlOp || serr.Code == syntax.ErrInvalidEscape {
			reason += " (Go RE2 syntax has no lookaround or backreferences)"
		}
	}
	return nil, &toolsdk.Error{Code: files.CodeInvalidPattern, Op: "invalid pattern", Path: pattern, Reason: reason}
}

func checkGlob(glob string) error {
	if glob == "" {
		return nil
	}
	if err := files.CheckPattern("glob", glob); err != nil {
		return err
	}
	if !doublestar.ValidatePattern(glob) {
		return &toolsdk.Error{Code: files.CodeInvalidPattern, Op: "invalid glob", Path: glob, Reason: "syntax error (an unclosed [ or {?)"}
	}
	return nil
}

// globMatch applies the glob filter to a file's path below the searched
// directory: to its base name, or to the whole path when the glob has a /.
func globMatch(glob, rel string) bool {
	if !strings.Contains(glob, "/") {
		rel = path.Base(rel)
	}
	return doublestar.MatchUnvalidated(glob, rel)
}

func pathError(root string, err error) error {
	return &toolsdk.Error{Code: files.CodeInvalidPath, Op: "searching", Path: root, Reason: files.Reason(err).Error()}
}

// search adds the matches in text, the content of the file at name, to
// out. Binary files are skipped.
func search(m *matcher, name string, text []byte, out *found) {
	if files.BinaryOffset(text) >= 0 {
		return
	}
	f := fileMatches{path: name}
	m.lines(text, func(num int, line []byte, at int) {
		f.count++
		if f.size <= output.DefaultBudget {
			if at < 0 && len(line) > maxLine {
				at = m.re.FindIndex(line)[0]
			}
			l := format(name, num, line, at)
			f.lines = append(f.lines, l)
			f.size += len(l) + 1 // at most its encoded size: keeps enough
		}
	})
	if f.count > 0 {
		out.add(f)
	}
}

// format writes a matching line as file:line: content, showing a window
// of maxLine bytes around the match at offset at of a longer line. The
// result is valid UTF-8, so it is no longer than its encoding.
func format(name string, num int, line []byte, at int) string {
	var b strings.Builder
	b.Grow(len(name) + min(len(line), maxLine) + 16)
	b.WriteString(name)
	b.WriteByte(':')
	b.WriteString(strconv.Itoa(num))
	b.WriteString(": ")
	if len(line) <= maxLine {
		b.Write(line)
		return strings.ToValidUTF8(b.String(), "\uFFFD")
	}
	// Start a fifth of the window before the match, not splitting a
	// character at either end.
	start := min(max(0, at-maxLine/5), len(line)-maxLine)
	end := start + maxLine
	for i := 0; i < utf8.UTFMax-1 && start > 0 && !utf8.RuneStart(line[start]); i++ {
		start--
	}
	for i := 0; i < utf8.UTFMax-1 && end < len(line) && !utf8.RuneStart(line[end]); i++ {
		end--
	}
	if start > 0 {
		fmt.Fprintf(&b, "[... %d bytes omitted ...]", start)
	}
	b.Write(line[start:end])
	if end < len(line) {
		fmt.Fprintf(&b, "[... %d bytes omitted ...]", len(line)-end)
	}
	return strings.ToValidUTF8(b.String(), "\uFFFD")
}

// fileMatches are the matching lines of one file.
type fileMatches struct {
	path  string
	count int
	lines []string // formatted; the first ones only when there are too many
	size  int      // the lines' length, with separators
}

// found gathers the matches of every file, from several goroutines, and
// keeps no more lines than can be shown.
type found struct {
	mu    sync.Mutex
	files []fileMatches
	size  int
}

func (o *found) add(f fileMatches) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.files = append(o.files, f)
	o.size += f.size
	if o.size > 4*output.DefaultBudget {
		o.prune()
	}
}

// prune drops the lines of the files that sort after files whose lines
// already fill the output: a file found later cannot bring them back.
func (o *found) prune() {
	o.sort()
	o.size = 0
	for i := range o.files {
		if o.size > output.DefaultBudget {
			o.files[i].lines, o.files[i].size = nil, 0
		}
		o.size += o.files[i].size
	}
}

func (o *found) sort() {
	slices.SortFunc(o.files, func(a, b fileMatches) int { return strings.Compare(a.path, b.path) })
}

// result lists the matching lines in order of file and line, as many as
// fit in the output budget, and counts them all.
func (o *found) result() result {
	o.sort()
	var res result
	for _, f := range o.files {
		res.Count += f.count
	}
	var listed int
	res.Output, listed = output.JoinLines(func(yield func(string) bool) {
		for _, f := range o.files {
			for _, l := range f.lines {
				if !yield(l) {
					return
				}
			}
		}
	}, output.DefaultBudget)
	res.Truncated = listed < res.Count
	return res
}
