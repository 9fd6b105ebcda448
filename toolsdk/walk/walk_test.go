package walk

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/ikigai-tools/ikigai/toolsdk/files"
)

// makeTree creates files under dir: a name ending in / is a directory, and
// content starting with "-> " makes a symlink to the rest.
func makeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch {
		case strings.HasSuffix(name, "/"):
			err = os.MkdirAll(path, 0o755)
		case strings.HasPrefix(content, "-> "):
			err = os.Symlink(strings.TrimPrefix(content, "-> "), path)
		default:
			err = os.WriteFile(path, []byte(content), 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// list walks root and returns what it visited, as sorted Rel paths.
func list(t *testing.T, root string, opts Options) []string {
	t.Helper()
	var mu sync.Mutex
	var got []string
	err := Walk(context.Background(), root, opts, func(worker int, f File) {
		if worker < 0 || worker >= Workers() {
			t.Errorf("worker %d out of range", worker)
		}
		if want := filepath.Join(root, filepath.FromSlash(f.Rel)); f.Path != want {
			t.Errorf("Path %q, want %q", f.Path, want)
		}
		mu.Lock()
		got = append(got, f.Rel)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	return got
}

func TestWalk(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		root  string // below the test's directory
		opts  Options
		want  []string
	}{{
		name:  "everything, hidden files too",
		files: map[string]string{"a.go": "", "b/c.go": "", "b/d/e.txt": "", ".env": "", ".config/x": "", "empty/": ""},
		want:  []string{".config/x", ".env", "a.go", "b/c.go", "b/d/e.txt"},
	}, {
		name:  ".git is skipped, as a directory or a file",
		files: map[string]string{".git/config": "", "sub/.git": "gitdir: elsewhere", "sub/a": "", ".gitignore": ""},
		want:  []string{".gitignore", "sub/a"},
	}, {
		name: "gitignore: names, anchored paths, directories only, negation",
		files: map[string]string{
			".gitignore": "*.log\n/build\ndocs/tmp\ncache/\n!keep.log\n# comment\n\n",
			"a.log":      "", "keep.log": "", "sub/b.log": "",
			"build/x": "", "sub/build/y": "",
			"docs/tmp/z": "", "docs/tmp.md": "",
			"cache/c": "", "sub/cache": "a file, not a directory",
		},
		want: []string{".gitignore", "docs/tmp.md", "keep.log", "sub/build/y", "sub/cache"},
	}, {
		name: "gitignore: nested files apply below their directory and win over those above",
		files: map[string]string{
			".gitignore":     "*.gen\n",
			"a.gen":          "",
			"lib/.gitignore": "!*.gen\n*.tmp\n",
			"lib/b.gen":      "", "lib/c.tmp": "",
			"app/d.tmp": "",
		},
		want: []string{".gitignore", "app/d.tmp", "lib/.gitignore", "lib/b.gen"},
	}, {
		name:  "gitignore with CRLF line endings",
		files: map[string]string{".gitignore": "*.log\r\nout/\r\n", "a.log": "", "out/b": "", "c": ""},
		want:  []string{".gitignore", "c"},
	}, {
		name:  "a file in an excluded directory cannot be brought back",
		files: map[string]string{".gitignore": "vendor/\n!vendor/keep.go\n", "vendor/keep.go": "", "main.go": ""},
		want:  []string{".gitignore", "main.go"},
	}, {
		name: "symlinks: to files followed, to directories not, loops harmless",
		files: map[string]string{
			"real/a": "", "link-file": "-> real/a", "link-dir": "-> real",
			"loop": "-> loop", "ping": "-> pong", "pong": "-> ping", "self": "-> .", "broken": "-> nowhere",
		},
		want: []string{"link-file", "real/a"},
	}, {
		name:  "max depth",
		files: map[string]string{"a": "", "b/c": "", "b/d/e": ""},
		opts:  Options{MaxDepth: 2},
		want:  []string{"a", "b/c"},
	}, {
		name:  "a root excluded by the ignore files above it is searched",
		files: map[string]string{".git/HEAD": "", ".gitignore": "node_modules/\n*.map\n", "node_modules/pkg/index.js": "", "node_modules/pkg/index.js.map": "", "node_modules/pkg/.gitignore": "*.d.ts\n", "node_modules/pkg/x.d.ts": ""},
		root:  "node_modules/pkg",
		want:  []string{".gitignore", "index.js", "index.js.map"},
	}, {
		name:  "in a repository, the ignore files above the root apply",
		files: map[string]string{".git/info/exclude": "*.bak\n", ".gitignore": "*.gen\n", "src/.gitignore": "/local\n", "src/pkg/a.go": "", "src/pkg/a.gen": "", "src/pkg/a.bak": "", "src/pkg/local": ""},
		root:  "src/pkg",
		want:  []string{"a.go", "local"},
	}, {
		name:  "outside a repository, only the ignore files from the root down apply",
		files: map[string]string{".gitignore": "*.gen\n", "src/a.gen": "", "src/b.go": ""},
		root:  "src",
		want:  []string{"a.gen", "b.go"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			makeTree(t, dir, tt.files)
			got := list(t, filepath.Join(dir, tt.root), tt.opts)
			if !slices.Equal(got, tt.want) {
				t.Errorf("files\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestWalkRootErrors(t *testing.T) {
	dir := t.TempDir()
	makeTree(t, dir, map[string]string{"file": "x"})
	visit := func(int, File) { t.Error("visited a file") }
	if err := Walk(context.Background(), filepath.Join(dir, "missing"), Options{}, visit); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing root: %v, want not exist", err)
	}
	if err := Walk(context.Background(), filepath.Join(dir, "file"), Options{}, visit); err == nil {
		t.Error("a file as root: no error")
	}
}

func TestWalkCancelled(t *testing.T) {
	dir := t.TempDir()
	makeTree(t, dir, map[string]string{"a/b": "", "c/d": ""})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Walk(ctx, dir, Options{}, func(int, File) {}); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

func TestContent(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("0123456789abcdef", 10000) // more than the first buffer
	makeTree(t, dir, map[string]string{"empty": "", "small": "hello", "big": big})
	want := map[string]string{"empty": "", "small": "hello", "big": big}
	bufs := make([][]byte, Workers()) // reused across files, as grep-tool does
	err := Walk(context.Background(), dir, Options{}, func(worker int, f File) {
		got, err := f.Content(bufs[worker])
		if err != nil {
			t.Errorf("%s: %v", f.Rel, err)
			return
		}
		if string(got) != want[f.Rel] {
			t.Errorf("%s: got %d bytes, want %d", f.Rel, len(got), len(want[f.Rel]))
		}
		bufs[worker] = got
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ReadFile(filepath.Join(dir, "small"), nil); err != nil || string(got) != "hello" {
		t.Errorf("ReadFile: %q, %v", got, err)
	}
}

func TestReadFileTooLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(files.MaxFileSize + 1); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	f.Close()
	if _, err := ReadFile(path, nil); !errors.Is(err, ErrTooLarge) {
		t.Errorf("got %v, want ErrTooLarge", err)
	}
}
