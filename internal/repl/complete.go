package repl

import (
	"bytes"
	"context"
	"io/fs"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ikigai-tools/ikigai/internal/approval"
	"github.com/ikigai-tools/ikigai/internal/commands"
	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/skills"
)

// completeTimeout bounds what completing a word may wait for: discovery,
// the provider's list of models, git.
const completeTimeout = 3 * time.Second

// maxPaths bounds the files @ completion looks at, outside a repository
// whose index lists them.
const maxPaths = 20000

// Complete returns what the word before cursor (a byte offset in line)
// may be completed to: each item replaces line[start:cursor]. It
// completes /commands (the custom ones too, each with a space after it),
// the argument of /tool (tool names), /load (skills), /model (the
// provider's models), /reasoning (levels), /approval (modes) and /rewind
// (turns), and @paths: the files and directories under the working
// directory, as git lists them when it is a repository (so that what
// .gitignore ignores is left out). No items means nothing completes. It
// may be called while a line runs.
func (s *Shell) Complete(line string, cursor int) (start int, items []string) {
	cursor = min(max(cursor, 0), len(line))
	before := line[:cursor]
	start = strings.LastIndexAny(before, " \t\n") + 1
	word := before[start:]
	if strings.HasPrefix(word, "@") {
		return start + 1, s.completePath(strings.TrimPrefix(word, "@"))
	}
	if strings.HasPrefix(before, "/") && !strings.ContainsAny(before, " \t\n") {
		return 0, prefixed(s.commandNames(), before, " ")
	}
	name, arg, ok := strings.Cut(before, " ")
	if !ok || strings.ContainsAny(arg, " \t\n") || !strings.HasPrefix(name, "/") {
		return start, nil
	}
	var names []string
	switch name {
	case "/tool":
		ctx, cancel := context.WithTimeout(context.Background(), completeTimeout)
		defer cancel()
		if reg, err := s.Backend.Tools(ctx); err == nil {
			for _, t := range reg.Tools() {
				names = append(names, t.Name)
			}
		}
	case "/load":
		for _, sk := range skills.List(s.Skills) {
			names = append(names, sk.Name)
		}
	case "/model":
		names = s.models()
	case "/reasoning":
		names = []string{string(provider.ReasoningOff), string(provider.ReasoningLow), string(provider.ReasoningMedium), string(provider.ReasoningHigh)}
	case "/approval":
		names = []string{string(approval.Ask), string(approval.Auto), string(approval.ReadOnly), string(approval.Sandboxed)}
	case "/rewind":
		s.mu.Lock()
		n := len(s.turns)
		s.mu.Unlock()
		for i := range n {
			names = append(names, strconv.Itoa(i+1))
		}
	}
	return start, prefixed(names, arg, "")
}

// prefixed returns the names that start with prefix, in order, each with
// suffix added.
func prefixed(names []string, prefix, suffix string) []string {
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n+suffix)
		}
	}
	return out
}

// commandNames are the built-in commands and then the custom ones, with
// their slashes.
func (s *Shell) commandNames() []string {
	names := Commands()
	for _, c := range commands.List(s.Commands) {
		if !isBuiltin(c.Name) {
			names = append(names, "/"+c.Name)
		}
	}
	return names
}

// models returns the models the provider offers, asking its models
// endpoint once per choice of provider; none when it cannot say.
func (s *Shell) models() []string {
	ctx, cancel := context.WithTimeout(context.Background(), completeTimeout)
	defer cancel()
	list, _ := s.listModels(ctx)
	return list
}

// listModels asks the provider for its models, once per provider.
func (s *Shell) listModels(ctx context.Context) ([]string, error) {
	c, err := s.Backend.Model(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	list, of := s.modelList, s.modelsOf
	s.mu.Unlock()
	if list != nil && of == c.Provider {
		return list, nil
	}
	lister, ok := c.Provider.(provider.ModelLister)
	if !ok {
		return nil, nil
	}
	list, err = lister.Models(ctx)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.modelList, s.modelsOf = list, c.Provider
	s.mu.Unlock()
	return list, nil
}

// completePath completes a path under the working directory: to the next
// directory of the files it starts, or to a whole file's name.
func (s *Shell) completePath(prefix string) []string {
	var out []string
	for _, f := range s.files() {
		rest, ok := strings.CutPrefix(f, prefix)
		if !ok {
			continue
		}
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			rest = rest[:i+1]
		}
		if c := prefix + rest; len(out) == 0 || out[len(out)-1] != c {
			out = append(out, c)
		}
	}
	return slices.Compact(out)
}

// files lists the files under the working directory, relative to it and
// sorted: those git tracks or would (ignored files left out) in a
// repository, else all of them, up to maxPaths, hidden directories left
// out.
func (s *Shell) files() []string {
	if s.Dir == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), completeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", "ls-files", "--cached", "--others", "--exclude-standard", "-z")
	cmd.Dir = s.Dir
	if out, err := cmd.Output(); err == nil {
		var files []string
		for f := range bytes.SplitSeq(out, []byte{0}) {
			if len(f) > 0 {
				files = append(files, string(f))
			}
		}
		slices.Sort(files)
		return slices.Compact(files)
	}
	var files []string
	filepath.WalkDir(s.Dir, func(path string, d fs.DirEntry, err error) error {
		switch {
		case len(files) >= maxPaths:
			return filepath.SkipAll
		case err != nil:
			return nil // what cannot be read is not offered
		}
		if d.IsDir() && path != s.Dir && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(s.Dir, path)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(files)
	return files
}
