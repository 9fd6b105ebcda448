package rules

import (
	"encoding/json"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ikigai-tools/ikigai/internal/lazyregexp"
	"mvdan.cc/sh/v3/syntax"
)

// withSubcommands are the programs whose first argument names what they
// do (go test, git status): answering "always" allows that, with any
// further arguments. For other programs the exact command is kept, since
// rm build * would also allow rm build -rf /.
var withSubcommands = []string{
	"git", "go", "cargo", "rustup", "npm", "pnpm", "yarn", "bun", "deno", "npx", "pip", "pip3", "uv",
	"poetry", "docker", "podman", "kubectl", "helm", "terraform", "gh", "make", "just", "dotnet",
	"mvn", "gradle", "swift", "brew", "nix", "systemctl", "journalctl",
}

// scriptRunners are the programs whose run subcommand takes a script's
// name, which is kept: npm run test *, not npm run *.
var scriptRunners = []string{"npm", "pnpm", "yarn", "bun"}

// readers are commands that only read and report, for which "always"
// allows any arguments.
var readers = []string{
	"cat", "head", "tail", "ls", "wc", "pwd", "echo", "stat", "file", "du", "df", "diff", "which",
	"tree", "grep", "basename", "dirname", "realpath", "readlink", "date", "whoami", "id", "uname",
	"true", "false", "sleep", "test", "[",
}

var subcommand = lazyregexp.New(`^[a-z][a-z0-9_-]*(:[a-z0-9_-]+)*$`)

// Suggest returns the narrowest rules worth remembering when the user
// answers "always" to a call: for bash, one rule per command of the
// script (bash(go test *) for go test ./... -run X), or none if any
// command is not understood or no rule short of the exact script would
// do; for a file tool, the file's directory (file_edit(src/app/**)), or
// the file itself at the top of the working directory or outside it; for
// web_fetch, the URL's host; for any other tool, the tool. Whatever is
// suggested allows the call.
func Suggest(c Call) List {
	var l List
	switch c.Tool {
	case "bash":
		l = suggestBash(c.Args)
	case "file_read", "file_write", "file_edit":
		l = suggestPath(c)
	case "web_fetch":
		var a struct {
			URL string `json:"url"`
		}
		if json.Unmarshal(c.Args, &a) == nil {
			if r, err := Parse("web_fetch(domain:" + hostOf(a.URL) + ")"); err == nil {
				l = List{r}
			}
		}
	default:
		if r, err := Parse(c.Tool); err == nil {
			l = List{r}
		}
	}
	if len(l) == 0 || !l.Allows(c) {
		return nil
	}
	return l
}

func suggestBash(args json.RawMessage) List {
	src, ok := script(args)
	if !ok {
		return nil
	}
	a := analyze(src)
	if a.unsure != "" {
		return nil
	}
	var l List
	for _, c := range a.cmds {
		if c.query || c.wrapper {
			continue
		}
		words, tail, ok := suggestWords(c)
		if !ok {
			return nil
		}
		var b strings.Builder
		for i, w := range words {
			q, err := syntax.Quote(w, syntax.LangBash)
			if err != nil {
				return nil
			}
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(q)
		}
		if tail {
			b.WriteString(" *")
		}
		r, err := Parse("bash(" + b.String() + ")")
		if err != nil {
			return nil
		}
		if !slices.ContainsFunc(l, func(o Rule) bool { return o.String() == r.String() }) {
			l = append(l, r)
		}
	}
	return l
}

// suggestWords returns the words of the rule to remember for a command.
func suggestWords(c cmd) (words []string, tail, ok bool) {
	name := c.words[0].lit
	fixed := func(n int) bool {
		return len(c.words) > n && !c.words[n].dynamic && subcommand().MatchString(c.words[n].lit)
	}
	switch {
	case slices.Contains(readers, name):
		return []string{name}, true, true
	case slices.Contains(scriptRunners, name) && fixed(1) && c.words[1].lit == "run" && fixed(2):
		return []string{name, "run", c.words[2].lit}, true, true
	case slices.Contains(withSubcommands, name) && fixed(1):
		return []string{name, c.words[1].lit}, true, true
	case c.open || c.stdin:
		// The exact command would allow any input next time: the
		// here-document or what is piped in is part of what was asked.
		return nil, false, false
	}
	for _, w := range c.words {
		if w.dynamic {
			return nil, false, false
		}
		words = append(words, w.lit)
	}
	return words, false, true
}

// suggestPath suggests a rule for a file tool's path: its directory and
// everything below, or the file itself at the top of the working
// directory or outside it.
func suggestPath(c Call) List {
	var a struct {
		Path string `json:"file_path"`
	}
	if json.Unmarshal(c.Args, &a) != nil || a.Path == "" || c.Dir == "" {
		return nil
	}
	p := filepath.Clean(filepath.Join(c.Dir, a.Path))
	if filepath.IsAbs(a.Path) {
		p = filepath.Clean(a.Path)
	}
	pattern := escapeGlob(filepath.ToSlash(p))
	if rel, err := filepath.Rel(c.Dir, p); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		rel = filepath.ToSlash(rel)
		pattern = escapeGlob(rel)
		if dir := filepath.ToSlash(filepath.Dir(rel)); dir != "." {
			pattern = escapeGlob(dir) + "/**"
		}
	}
	r, err := Parse(c.Tool + "(" + pattern + ")")
	if err != nil {
		return nil
	}
	return List{r}
}

// escapeGlob quotes the characters a doublestar glob gives a meaning.
func escapeGlob(s string) string {
	var b strings.Builder
	for _, c := range s {
		if strings.ContainsRune(`*?[]{}\`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func hostOf(u string) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(strings.ToLower(parsed.Hostname()), ".")
}
