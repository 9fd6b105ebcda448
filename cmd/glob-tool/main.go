// Command glob-tool lists the files whose paths match a glob pattern, with
// ** for any number of directories, as fd and ripgrep --files do.
package main

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/ikigai-tools/ikigai/toolsdk"
	"github.com/ikigai-tools/ikigai/toolsdk/files"
	"github.com/ikigai-tools/ikigai/toolsdk/output"
	"github.com/ikigai-tools/ikigai/toolsdk/walk"
)

type params struct {
	Pattern string `json:"pattern" description:"Glob matched against file paths: ** matches any number of directories, * and ? any characters and one character within a name, [abc] a set, {a,b} alternatives. E.g. **/*.go, src/**/*.{ts,tsx}"`
	Path    string `json:"path,omitempty" description:"Directory the pattern is relative to (default: the working directory)"`
}

type result struct {
	Output    string `json:"output" description:"Matching file paths, sorted, one per line"`
	Count     int    `json:"count" description:"How many files matched, including any not listed"`
	Truncated bool   `json:"truncated,omitempty" description:"Not every matching file is listed"`
}

// codeReadError is the error code of a path that cannot be listed.
const codeReadError = "READ_ERROR"

var tool = toolsdk.New(toolsdk.Schema{
	Name: "glob",
	Description: "Find files by name with a glob pattern such as **/*.go. Lists matching files, sorted, skipping .git " +
		"and files excluded by .gitignore.",
	Annotations: &toolsdk.Annotations{ReadOnlyHint: true, IdempotentHint: true},
}, run)

func main() { tool.Main() }

func run(ctx context.Context, p params) (result, error) {
	if err := checkPattern(p.Pattern); err != nil {
		return result{}, err
	}
	root := p.Path
	if root == "" {
		root = "."
	} else if err := files.CheckPath("listing", root); err != nil {
		return result{}, err
	}
	if info, err := os.Stat(root); err != nil {
		return result{}, readError(root, err)
	} else if !info.IsDir() {
		return result{}, readError(root, errors.New("not a directory"))
	}

	// Walk only from the pattern's fixed leading directories, and only as
	// deep as it can match.
	base, pattern := doublestar.SplitPattern(p.Pattern)
	dir := filepath.Join(root, base)
	if filepath.IsAbs(base) {
		dir = base
	}
	var opts walk.Options
	if !strings.Contains(pattern, "**") {
		opts.MaxDepth = strings.Count(pattern, "/") + 1
	}
	found := make([][]string, walk.Workers())
	err := walk.Walk(ctx, dir, opts, func(worker int, f walk.File) {
		if doublestar.MatchUnvalidated(pattern, f.Rel) {
			found[worker] = append(found[worker], f.Path)
		}
	})
	switch {
	case ctx.Err() != nil:
		return result{}, ctx.Err()
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return result{}, nil // nothing can match under a directory that is not there
	case err != nil:
		return result{}, readError(dir, err)
	}
	return list(slices.Concat(found...)), nil
}

func checkPattern(pattern string) error {
	if err := files.CheckPattern("pattern", pattern); err != nil {
		return err
	}
	if !doublestar.ValidatePattern(pattern) {
		return &toolsdk.Error{Code: files.CodeInvalidPattern, Op: "invalid pattern", Path: pattern, Reason: "syntax error (an unclosed [ or {?)"}
	}
	for part := range strings.SplitSeq(pattern, "/") {
		if part == ".." {
			return &toolsdk.Error{Code: files.CodeInvalidPattern, Op: "invalid pattern", Path: pattern, Reason: "pattern contains a '..' component"}
		}
	}
	return nil
}

func readError(dir string, err error) error {
	return &toolsdk.Error{Code: codeReadError, Op: "listing", Path: dir, Reason: files.Reason(err).Error()}
}

// list sorts the paths and lists as many as fit in the output budget.
func list(paths []string) result {
	slices.Sort(paths)
	output, n := output.JoinLines(slices.Values(paths), output.DefaultBudget)
	return result{Output: output, Count: len(paths), Truncated: n < len(paths)}
}
