// Package walk lists the files of a directory tree the way a developer's
// search tools do: several directories at once, without .git, and without
// what .gitignore files exclude.
//
// glob-tool and grep-tool share it. Besides toolsdk it needs only go-git's
// gitignore matcher, so a third-party tool can use it as they do.
package walk

import (
	"bufio"
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// File is a file found by Walk.
type File struct {
	// Path is the walk's root joined with Rel: the file as the user would
	// name it.
	Path string
	// Rel is the slash-separated path below the root.
	Rel string

	dirfd int // the open directory holding it, during visit
	name  string
}

// Options change what Walk lists.
type Options struct {
	// MaxDepth limits how far below the root files are listed: 1 lists the
	// root's own files only. Zero means no limit.
	MaxDepth int
}

// Workers is how many goroutines Walk calls visit from: one per core, as
// reading files cached in memory is work for the processor.
func Workers() int { return runtime.GOMAXPROCS(0) }

// Walk calls visit for every regular file under the directory root, in no
// particular order, from Workers() goroutines at once; worker says which
// one (0 to Workers()-1), so a caller can keep state per worker without
// locking.
//
// A symlink to a file is listed; a symlink to a directory is not followed,
// so links cannot make a walk loop. Entries named .git are skipped, and so
// is whatever the .gitignore files in force exclude: inside a git
// repository, those from the repository's root down (and its
// .git/info/exclude); outside one, those from root down. When root itself
// is excluded by the files above it, those files are set aside: a path
// named explicitly is always searched. Directories and files that cannot be
// read are skipped.
//
// Walk returns an error only if root cannot be read, or ctx ends.
func Walk(ctx context.Context, root string, opts Options, visit func(worker int, f File)) error {
	f, entries, err := readDir(root)
	if err != nil {
		return err
	}
	defer f.Close() // when ctx ends before it is listed; else a no-op
	comps, rules := rulesAbove(root)
	w := &walker{ctx: ctx, opts: opts, visit: visit}
	w.cond.L = &w.mu
	w.queue = []*dir{{path: root, comps: comps, rules: rules, f: f, entries: entries}}

	var wg sync.WaitGroup
	for i := range Workers() {
		wg.Go(func() { w.work(i) })
	}
	wg.Wait()
	return ctx.Err()
}

// dir is a directory waiting to be listed.
type dir struct {
	path    string   // as the user would name it
	rel     string   // below the root, "" for the root
	depth   int      // 0 for the root
	comps   []string // path components below the top of the ignore rules
	rules   *rules   // the ignore rules in force in the directory
	f       *os.File // the directory, once open
	entries []os.DirEntry
}

type walker struct {
	ctx   context.Context
	opts  Options
	visit func(int, File)

	mu    sync.Mutex
	cond  sync.Cond
	queue []*dir // a stack: depth first keeps it short
	busy  int    // workers listing a directory, which may add more
}

func (w *walker) work(worker int) {
	var scratch []string
	for {
		w.mu.Lock()
		for len(w.queue) == 0 && w.busy > 0 {
			w.cond.Wait()
		}
		if len(w.queue) == 0 || w.ctx.Err() != nil {
			w.queue = nil
			w.mu.Unlock()
			w.cond.Broadcast()
			return
		}
		d := w.queue[len(w.queue)-1]
		w.queue = w.queue[:len(w.queue)-1]
		w.busy++
		w.mu.Unlock()

		scratch = w.list(worker, d, scratch)

		w.mu.Lock()
		w.busy--
		w.mu.Unlock()
		w.cond.Broadcast()
	}
}

// list visits the files of d and queues its subdirectories. scratch is
// reused for building ignore-matcher paths, and returned for the next call.
func (w *walker) list(worker int, d *dir, scratch []string) []string {
	if d.f == nil {
		var err error
		if d.f, d.entries, err = readDir(d.path); err != nil {
			return scratch
		}
	}
	defer d.f.Close()
	rules := d.rules
	for _, e := range d.entries {
		if e.Name() == ".gitignore" {
			rules = rules.read(filepath.Join(d.path, ".gitignore"), d.comps)
			break
		}
	}
	ignored := func(name string, isDir bool) bool {
		if rules == nil {
			return false
		}
		scratch = append(append(scratch[:0], d.comps...), name)
		return rules.ignored(scratch, isDir)
	}

	var files []string
	var subdirs []*dir
	descend := w.opts.MaxDepth == 0 || d.depth+1 < w.opts.MaxDepth
	for _, e := range d.entries {
		name := e.Name()
		if name == ".git" {
			continue
		}
		typ := e.Type()
		if typ&fs.ModeSymlink != 0 {
			info, err := os.Stat(filepath.Join(d.path, name))
			if err != nil || info.IsDir() {
				continue // broken, a loop, or a directory: not followed
			}
			typ = info.Mode().Type()
		}
		switch {
		case typ.IsRegular():
			if !ignored(name, false) {
				files = append(files, name)
			}
		case typ.IsDir() && descend:
			if !ignored(name, true) {
				subdirs = append(subdirs, &dir{
					path:  filepath.Join(d.path, name),
					rel:   join(d.rel, name),
					depth: d.depth + 1,
					comps: append(d.comps[:len(d.comps):len(d.comps)], name),
					rules: rules,
				})
			}
		}
	}
	d.entries = nil // no longer needed

	// Other workers can start on the subdirectories while this one visits
	// the files.
	if len(subdirs) > 0 {
		w.mu.Lock()
		w.queue = append(w.queue, subdirs...)
		w.mu.Unlock()
		w.cond.Broadcast()
	}
	dirfd := int(d.f.Fd())
	for _, name := range files {
		if w.ctx.Err() != nil {
			break
		}
		w.visit(worker, File{Path: filepath.Join(d.path, name), Rel: join(d.rel, name), dirfd: dirfd, name: name})
	}
	return scratch
}

func join(rel, name string) string {
	if rel == "" {
		return name
	}
	return rel + "/" + name
}

// readDir opens and lists a directory, without sorting: the walk's order
// is not the caller's anyway.
func readDir(path string) (*os.File, []os.DirEntry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	entries, err := f.ReadDir(-1)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, entries, nil
}

// rules are the ignore patterns of one .gitignore file, in a chain that
// leads up to those of the directories above it.
type rules struct {
	parent   *rules
	patterns []gitignore.Pattern
}

// ignored reports whether the rules exclude path, given as components below
// the top of the chain. A deeper file's patterns win over those above it,
// and within a file the last matching pattern wins, as in git.
func (r *rules) ignored(path []string, isDir bool) bool {
	for ; r != nil; r = r.parent {
		for i := len(r.patterns) - 1; i >= 0; i-- {
			switch r.patterns[i].Match(path, isDir) {
			case gitignore.Exclude:
				return true
			case gitignore.Include:
				return false
			}
		}
	}
	return false
}

// read adds the patterns of the ignore file at path, which applies to the
// directory whose components are domain, to the chain r.
func (r *rules) read(path string, domain []string) *rules {
	data, err := os.ReadFile(path)
	if err != nil {
		return r
	}
	var patterns []gitignore.Pattern
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || line[0] == '#' {
			continue
		}
		patterns = append(patterns, gitignore.ParsePattern(line, domain))
	}
	if len(patterns) == 0 {
		return r
	}
	return &rules{parent: r, patterns: patterns}
}

// rulesAbove returns the ignore rules that apply to root from the
// directories above it, and root's components below the top of those rules.
// Only a git repository's ignore files apply beyond root: those of its
// root, its .git/info/exclude and those of the directories between.
func rulesAbove(root string) ([]string, *rules) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, nil
	}
	var comps []string // root's components below the repository's root
	top := abs
	for {
		if _, err := os.Lstat(filepath.Join(top, ".git")); err == nil {
			break
		}
		parent := filepath.Dir(top)
		if parent == top {
			return nil, nil // not in a repository
		}
		comps = append([]string{filepath.Base(top)}, comps...)
		top = parent
	}
	r := (*rules)(nil).read(filepath.Join(top, ".git", "info", "exclude"), nil)
	dir := top
	for i := range comps {
		r = r.read(filepath.Join(dir, ".gitignore"), comps[:i])
		dir = filepath.Join(dir, comps[i])
	}
	if len(comps) > 0 && r.ignored(comps, true) {
		r = nil
	}
	return comps, r
}
