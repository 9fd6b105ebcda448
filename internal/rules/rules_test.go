package rules

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	type parsed struct {
		Kind  kind
		Words []string
		Tail  bool
		Glob  string
		Key   string
		Value string
	}
	for in, want := range map[string]parsed{
		"bash":                   {},
		"mcp--github--*":         {},
		"file_*":                 {},
		"*":                      {},
		"bash(git status)":       {Kind: command, Words: []string{"git", "status"}},
		"bash(go test *)":        {Kind: command, Words: []string{"go", "test"}, Tail: true},
		"bash(npm run test:*)":   {Kind: command, Words: []string{"npm", "run", "test"}, Tail: true},
		"bash(*)":                {Kind: command, Tail: true},
		`bash(echo '*' "a b")`:   {Kind: command, Words: []string{"echo", "*", "a b"}},
		`bash(echo \*)`:          {Kind: command, Words: []string{"echo", "*"}},
		"bash(git commit -m x)":  {Kind: command, Words: []string{"git", "commit", "-m", "x"}},
		"file_write(src/**)":     {Kind: path_, Glob: "src/**"},
		"file_read(./docs/*.md)": {Kind: path_, Glob: "docs/*.md"},
		"file_edit(src/)":        {Kind: path_, Glob: "src/**"},
		"file_read(.)":           {Kind: path_, Glob: "**"},
		"file_read(/etc/**)":     {Kind: path_, Glob: "/etc/**"},
		"file_read(~/.ssh/**)":   {Kind: path_, Glob: "~/.ssh/**"},
		"grep(vendor/**)":        {Kind: path_, Glob: "vendor/**"},
		"web_fetch(domain:Go.dev)": {
			Kind: domain, Value: "go.dev"},
		"mcp--github--get_issue(repo:ikigai-tools/*)": {Kind: generic, Key: "repo", Value: "ikigai-tools/*"},
		"mcp--x--y(path:)":                            {Kind: generic, Key: "path"},
	} {
		r, err := Parse(in)
		if err != nil {
			t.Errorf("Parse(%q): %v", in, err)
			continue
		}
		got := parsed{r.kind, r.words, r.tail, r.glob, r.key, r.value}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Parse(%q) (-want +got):\n%s", in, diff)
		}
		if r.String() != in {
			t.Errorf("Parse(%q).String() = %q", in, r.String())
		}
	}
}

func TestParseErrors(t *testing.T) {
	const expands = "word 2 holds something the shell expands ($, *, ?, [, {, ~ or quotes with $); quote it to mean it literally, and write * alone as the last word for any further words"
	for in, want := range map[string]string{
		"":                       "no tool name: TOOL or TOOL(PATTERN)",
		"(ls)":                   "no tool name: TOOL or TOOL(PATTERN)",
		"bash(ls":                "a pattern ends with ): TOOL(PATTERN)",
		"bash()":                 "an empty pattern: write bash alone for every call",
		"file-read":              "not a tool name: hyphens belong to MCP tools' names (mcp--SERVER--TOOL); a tool's name has underscores (file_read)",
		"file read":              "not a tool name: letters, digits and underscores (and * to match several)",
		"Bash(ls *)":             "Bash is Claude Code's name for the tool; here it is bash",
		"file_*(src/**)":         "a rule with a pattern names one tool: no * in the name",
		"bash(go * test)":        expands,
		"bash(ls $HOME)":         expands,
		"bash(echo $(id))":       expands,
		"bash(ls ~/x)":           expands,
		"bash(ls; rm)":           "a bash rule is one command; write a rule for each",
		"bash(ls | wc)":          "a bash rule is one simple command, without redirections, pipes or operators",
		"bash(ls > x)":           "a bash rule is one simple command, without redirections, pipes or operators",
		"bash(X=1 ls)":           "a bash rule cannot set variables; X=1 before a command is allowed for the variables docs/config.md lists",
		"bash(ls 'x)":            "the pattern does not parse as a command: 1:4: reached EOF without closing quote `'`",
		"file_read(../x)":        "a path pattern cannot climb out with ..; write it from / or ~/",
		"file_read([)":           "the pattern is not a valid glob (** any directories, * and ? within a name, [abc], {a,b})",
		"web_fetch(go.dev)":      "a web_fetch pattern is domain:HOST, such as domain:go.dev (its subdomains included)",
		"web_fetch(domain:*.io)": "a web_fetch pattern is domain:HOST, such as domain:go.dev (its subdomains included)",
		"mcp--a--b(x)":           "a pattern for this tool is ARGUMENT:VALUE, such as repo:ikigai-tools/* (* matches any characters)",
	} {
		_, err := Parse(in)
		if err == nil || err.Error() != want {
			t.Errorf("Parse(%q):\n got %v\nwant %s", in, err, want)
		}
	}
}

func TestNames(t *testing.T) {
	for _, tt := range []struct {
		rule, tool string
		want       bool
	}{
		{"bash", "bash", true},
		{"bash", "bash2", false},
		{"mcp--github--*", "mcp--github--get_issue", true},
		{"mcp--github--*", "mcp--gitlab--get_issue", false},
		{"file_*", "file_read", true},
		{"file_*", "glob", false},
		{"*", "anything", true},
		{"*_*_*", "a_b", false},
		{"bash(ls)", "bash", true},
	} {
		if got := MustParse(tt.rule).Names(tt.tool); got != tt.want {
			t.Errorf("%s names %s: %v", tt.rule, tt.tool, got)
		}
	}
	deny := list("mcp--web--*", "bash(rm *)")
	if !deny.Covers("mcp--web--fetch") || deny.Covers("bash") {
		t.Error("Covers: a rule with a pattern covers a whole tool, or a glob does not")
	}
}

func TestWildcard(t *testing.T) {
	for _, tt := range []struct {
		pattern, s string
		want       bool
	}{
		{"", "", true},
		{"*", "", true},
		{"a*", "abc", true},
		{"*c", "abc", true},
		{"a*c", "ac", true},
		{"a*b*c", "axxbyyc", true},
		{"a*b*c", "axxbyy", false},
		{"abc", "abcd", false},
		{"*/*", "org/repo", true},
		{"a*a*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false},
	} {
		if got := wildcard(tt.pattern, tt.s); got != tt.want {
			t.Errorf("wildcard(%q, %q) = %v", tt.pattern, tt.s, got)
		}
	}
}

func call(tool string, args map[string]any, dir string) Call {
	raw, _ := json.Marshal(args)
	return Call{Tool: tool, Args: raw, Dir: dir, Home: "/home/u"}
}

func TestPaths(t *testing.T) {
	dir := t.TempDir()
	proj := filepath.Join(dir, "proj")
	for _, d := range []string{"proj/src/app", "outside"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// A link inside the project to a directory outside it.
	if err := os.Symlink(filepath.Join(dir, "outside"), filepath.Join(proj, "src", "out")); err != nil {
		t.Fatal(err)
	}
	allow := list("file_write(src/**)", "file_read(*.md)", "file_read(/etc/**)", "file_read(~/.config/**)", "grep(src/**)", "glob(**)")
	deny := list("file_write(.env)", "file_read(**/*.key)")
	for _, tt := range []struct {
		tool, path      string
		allowed, denied bool
	}{
		{"file_write", "src/app/main.go", true, false},
		{"file_write", "./src/../src/x.go", true, false},
		{"file_write", filepath.Join(proj, "src/x.go"), true, false},
		{"file_write", "src", true, false},
		{"file_write", "srcx/a.go", false, false},
		{"file_write", "../proj/src/x.go", true, false},
		{"file_write", "../outside/x.go", false, false},
		{"file_write", "src/out/x.go", false, false}, // through the link, outside
		{"file_write", "src/../../outside/x", false, false},
		{"file_write", ".env", false, true},
		{"file_write", "src/../.env", false, true},
		{"file_write", filepath.Join(proj, ".env"), false, true},
		{"file_read", "README.md", true, false},
		{"file_read", "docs/x.md", false, false},
		{"file_read", "/etc/passwd", true, false},
		{"file_read", "/etc/../root/x", false, false},
		{"file_read", "/home/u/.config/x", true, false},
		{"file_read", "~/.config/x", false, false}, // the tool reads a directory named ~
		{"file_read", "src/app/tls.key", false, true},
		{"file_read", "src/out/tls.key", false, true},
		{"file_edit", "src/x.go", false, false},
		{"grep", "src/app", true, false},
		{"grep", "", false, false},
		{"glob", "", true, false},
		{"glob", "..", false, false},
	} {
		args := map[string]any{"file_path": tt.path}
		if tt.tool == "grep" || tt.tool == "glob" {
			args = map[string]any{"pattern": "x"}
			if tt.path != "" {
				args["path"] = tt.path
			}
		}
		c := call(tt.tool, args, proj)
		if got := allow.Allows(c); got != tt.allowed {
			t.Errorf("%s %s: allowed %v", tt.tool, tt.path, got)
		}
		if v, _ := deny.Match(c); (v == Yes) != tt.denied {
			t.Errorf("%s %s: denied %v", tt.tool, tt.path, v)
		}
	}
	if list("file_read(**)").Allows(call("file_read", map[string]any{"file_path": 3}, proj)) {
		t.Error("a path that is not a string matched")
	}
}

func TestDomainsAndArguments(t *testing.T) {
	allow := list("web_fetch(domain:go.dev)", "mcp--gh--get_issue(repo:ikigai-tools/*)")
	for _, tt := range []struct {
		tool string
		args map[string]any
		want bool
	}{
		{"web_fetch", map[string]any{"url": "https://go.dev/doc"}, true},
		{"web_fetch", map[string]any{"url": "https://pkg.go.dev/x"}, true},
		{"web_fetch", map[string]any{"url": "http://GO.DEV./"}, true},
		{"web_fetch", map[string]any{"url": "https://go.dev.evil.com/"}, false},
		{"web_fetch", map[string]any{"url": "https://notgo.dev/"}, false},
		{"web_fetch", map[string]any{"url": "https://evil.com/?go.dev"}, false},
		{"web_fetch", map[string]any{"url": "https://go.dev@evil.com/"}, false},
		{"web_fetch", map[string]any{"url": "file:///go.dev"}, false},
		{"mcp--gh--get_issue", map[string]any{"repo": "ikigai-tools/ikigai", "n": 1}, true},
		{"mcp--gh--get_issue", map[string]any{"repo": "other/ikigai"}, false},
		{"mcp--gh--get_issue", map[string]any{"repo": 3}, false},
		{"mcp--gh--get_issue", map[string]any{}, false},
	} {
		if got := allow.Allows(call(tt.tool, tt.args, "/p")); got != tt.want {
			t.Errorf("%s %v: %v", tt.tool, tt.args, got)
		}
	}
}
