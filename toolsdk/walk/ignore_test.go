package walk

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"
)

func TestParsePatterns(t *testing.T) {
	data := "\xef\xbb\xbf*.log\n# comment\n\n   \n!keep.log\r\n/build/\ndocs/tmp\ntrailing\\ \nspaces   \n\\#hash\n\\!bang\n/\n!\nend"
	want := []pattern{
		{glob: "*.log", name: true},
		{glob: "keep.log", negate: true, name: true},
		{glob: "build", dirOnly: true},
		{glob: "docs/tmp"},
		{glob: `trailing\ `, name: true},
		{glob: "spaces", name: true},
		{glob: `\#hash`, name: true},
		{glob: `\!bang`, name: true},
		{glob: "end", name: true},
	}
	if got := parsePatterns([]byte(data)); !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

// TestIgnoredAsGit compares what a walk lists with what git itself calls
// untracked and not ignored, over a tree whose ignore files use every
// feature of gitignore(5).
func TestIgnoredAsGit(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	files := map[string]string{
		".gitignore": strings.Join([]string{
			"# a comment", "*.log", "!important.log", "/build", "docs/tmp", "cache/", "**/gen/**",
			"a/**/z.txt", "*.o   ", `\#hash`, `\!bang`, `trailing\ `, "[Tt]emp*", "?.c", "foo/*/bar",
			"lib/**", "!lib/keep/", "deep/**/x", "**/node_modules", "*.min.*", "[!a-m]*.x", "with\\*star",
			"[[:digit:]]*.num", "/anchored/dir/", "mid/*.txt",
		}, "\n"),
		"sub/.gitignore":        "!*.log\n/local\nx/y\n*.tmp\n",
		"sub/deeper/.gitignore": "!/x.tmp\n",
		"a.log":                 "", "important.log": "", "sub/b.log": "", "sub/local": "", "sub/z/local": "",
		"sub/x/y": "", "sub/q/x/y": "", "sub/t.tmp": "", "sub/deeper/x.tmp": "", "sub/deeper/y.tmp": "",
		"build/out": "", "sub/build/out": "", "docs/tmp/z": "", "docs/tmp.md": "", "sub/docs/tmp": "",
		"cache/c": "", "sub/cache": "", "gen/g": "", "p/gen/q/g": "", "a/z.txt": "", "a/b/c/z.txt": "", "b/a/z.txt": "",
		"m.o": "", "#hash": "", "!bang": "", "trailing ": "", "Temp1": "", "temp2": "", "xtemp": "",
		"a.c": "", "ab.c": "", "foo/x/bar": "", "foo/bar": "", "foo/x/y/bar": "",
		"lib/a": "", "lib/keep/f": "", "deep/x": "", "deep/1/2/x": "", "node_modules/m": "", "q/node_modules/m": "",
		"app.min.js": "", "n.x": "", "b.x": "", "with*star": "", "withXstar": "", "1a.num": "", "a1.num": "",
		"anchored/dir/f": "", "q/anchored/dir/f": "", "mid/a.txt": "", "mid/sub/a.txt": "", "plain.go": "",
	}
	makeTree(t, dir, files)
	run := func(args ...string) []byte {
		cmd := exec.Command(git, args...)
		cmd.Dir = dir
		// Nothing from the machine's or the user's git configuration.
		cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+dir, "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return out
	}
	run("init", "-q")
	os.WriteFile(filepath.Join(dir, ".git", "info", "exclude"), []byte("plain.go\n"), 0o644)

	var want []string
	for _, name := range bytes.Split(run("ls-files", "-z", "--others", "--exclude-standard"), []byte{0}) {
		if len(name) > 0 {
			want = append(want, string(name))
		}
	}
	slices.Sort(want)
	got := list(t, dir, Options{})
	if !slices.Equal(got, want) {
		t.Errorf("walk lists\n  %q\ngit lists\n  %q", got, want)
	}
	// And from inside the repository, the ignore files above apply.
	for _, sub := range []string{"sub", "sub/deeper", "foo"} {
		var below []string
		for _, f := range want {
			if rel, ok := strings.CutPrefix(f, sub+"/"); ok {
				below = append(below, rel)
			}
		}
		if got := list(t, filepath.Join(dir, sub), Options{}); !slices.Equal(got, below) {
			t.Errorf("walk of %s lists\n  %q\nwant\n  %q", sub, got, below)
		}
	}
}

func TestReadIgnoreFile(t *testing.T) {
	dir := t.TempDir()
	makeTree(t, dir, map[string]string{
		"plain": "*.log\n", "link": "-> plain", "zero": "-> /dev/zero", "dir/": "",
		"limit": strings.Repeat("x", maxIgnoreFile), "big": "",
	})
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(filepath.Join(dir, "big"), maxIgnoreFile+1); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{
		"plain": true, "limit": true, // read
		"link": false, "zero": false, "fifo": false, "dir": false, "big": false, "missing": false,
	} {
		data, err := readIgnoreFile(filepath.Join(dir, name))
		if got := err == nil; got != want {
			t.Errorf("%s: read %d bytes, error %v; want read %v", name, len(data), err, want)
		}
	}
}
