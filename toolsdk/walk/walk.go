// Package walk lists the files of a directory tree the way a developer's
// search tools do: several directories at once, without .git, and without
// what .gitignore files exclude.
//
// It is how the core tools glob and grep list files, for a tool that
// searches a project and should see the same files they do. [Walk] calls a
// function for every file from several goroutines; [File.Content] reads a
// file found cheaply, and [ReadFile] one named by the user, both within
// the core tools' size limit. Ignore files are read as git reads them
// (gitignore(5)), with a matcher of the package's own: walk depends on
// nothing outside the standard library.
package walk

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
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
	ipath, rules := rulesAbove(root)
	w := &walker{ctx: ctx, opts: opts, visit: visit}
	w.cond.L = &w.mu
	w.queue = []*dir{{path: root, ipath: ipath, rules: rules, f: f, entries: entries}}

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
	ipath   string   // the path below the top of the ignore rules, "" or ending in /
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

		w.list(worker, d)

		w.mu.Lock()
		w.busy--
		w.mu.Unlock()
		w.cond.Broadcast()
	}
}

// list visits the files of d and queues its subdirectories.
func (w *walker) list(worker int, d *dir) {
	if d.f == nil {
		var err error
		if d.f, d.entries, err = readDir(d.path); err != nil {
			return
		}
	}
	defer d.f.Close()
	rules := d.rules
	for _, e := range d.entries {
		if e.Name() == ".gitignore" {
			rules = rules.read(filepath.Join(d.path, ".gitignore"), d.ipath)
			break
		}
	}
	ignored := func(name string, isDir bool) bool {
		return rules != nil && rules.ignored(d.ipath, name, isDir)
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
					ipath: d.ipath + name + "/",
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
	domain   string // the file's directory below the top of the chain, "" or ending in /
	patterns []pattern
}

// ignored reports whether the rules exclude the file called name in the
// directory dir, given below the top of the chain ("" or ending in /). A
// deeper file's patterns win over those above it, and within a file the
// last matching pattern wins, as in git.
func (r *rules) ignored(dir, name string, isDir bool) bool {
	path := "" // dir + name, made when a pattern needs it
	for ; r != nil; r = r.parent {
		for i := len(r.patterns) - 1; i >= 0; i-- {
			p := &r.patterns[i]
			var rel string
			if !p.name {
				if path == "" {
					path = dir + name
				}
				var ok bool
				if rel, ok = strings.CutPrefix(path, r.domain); !ok {
					continue // outside the file's directory: not in a walk
				}
			}
			if p.match(rel, name, isDir) {
				return !p.negate
			}
		}
	}
	return false
}

// read adds the patterns of the ignore file at path, which applies to the
// directory domain (below the top of the chain), to the chain r. A file
// that cannot be read as an ignore file (see readIgnoreFile) adds none.
func (r *rules) read(path, domain string) *rules {
	data, err := readIgnoreFile(path)
	if err != nil {
		return r
	}
	patterns := parsePatterns(data)
	if len(patterns) == 0 {
		return r
	}
	return &rules{parent: r, domain: domain, patterns: patterns}
}

// rulesAbove returns the ignore rules that apply to root from the
// directories above it, and root's path below the top of those rules ("" or
// ending in /). Only a git repository's ignore files apply beyond root:
// those of its root, its .git/info/exclude and those of the directories
// between. If they exclude root, or a directory above it, they are set
// aside: a path named explicitly is searched.
func rulesAbove(root string) (string, *rules) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", nil
	}
	var comps []string // root's components below the repository's root
	top := abs
	for {
		if _, err := os.Lstat(filepath.Join(top, ".git")); err == nil {
			break
		}
		parent := filepath.Dir(top)
		if parent == top {
			return "", nil // not in a repository
		}
		comps = append([]string{filepath.Base(top)}, comps...)
		top = parent
	}
	r := (*rules)(nil).read(filepath.Join(top, ".git", "info", "exclude"), "")
	dir, ipath := top, ""
	for _, c := range comps {
		r = r.read(filepath.Join(dir, ".gitignore"), ipath)
		if r.ignored(ipath, c, true) {
			return strings.Join(comps, "/") + "/", nil
		}
		dir, ipath = filepath.Join(dir, c), ipath+c+"/"
	}
	return ipath, r
}
