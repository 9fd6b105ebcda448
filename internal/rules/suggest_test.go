package rules

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSuggestBash(t *testing.T) {
	for script, want := range map[string][]string{
		"go test ./... -run X":                       {"bash(go test *)"},
		"git status":                                 {"bash(git status *)"},
		"go test ./... && go vet ./...":              {"bash(go test *)", "bash(go vet *)"},
		"go test ./... && go test -race ./x":         {"bash(go test *)"},
		"ls -la | grep foo | wc -l":                  {"bash(ls *)", "bash(grep *)", "bash(wc *)"},
		"rm -rf build":                               {"bash(rm -rf build)"},
		"rm 'a b'":                                   {"bash(rm 'a b')"},
		"make":                                       {"bash(make)"},
		"cd src && make test":                        {"bash(cd src)", "bash(make test *)"},
		"timeout 60 go test ./...":                   {"bash(go test *)"},
		"CI=1 npm run test -- --watch":               {"bash(npm run test *)"},
		"git -C sub status":                          {"bash(git -C sub status)"},
		"git commit -F - <<'EOF'\nfix: x\nEOF":       {"bash(git commit *)"},
		"find . -name '*.go' | xargs grep TODO":      {"bash(find . -name '*.go')", "bash(grep *)"},
		"cat <<'EOF' > notes.txt\nhello\nEOF":        nil, // writes a file
		"python3 - <<'EOF'\nimport os\nEOF":          nil, // the exact command would run any script
		"ls | python3 -c 'import sys'":               nil, // reads a pipe
		"echo $(date)":                               nil,
		"rm -rf \"$dir\"":                            nil,
		"command -v go":                              nil, // needs no rule
		"sh -c 'go test ./...'":                      nil,
		"go test ./... && python3 - <<'EOF'\nx\nEOF": nil,
	} {
		var got []string
		for _, r := range Suggest(bashCall(script)) {
			got = append(got, r.String())
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Suggest(%q) (-want +got):\n%s", script, diff)
		}
	}
}

func TestSuggestOthers(t *testing.T) {
	for _, tt := range []struct {
		tool string
		args map[string]any
		want []string
	}{
		{"file_edit", map[string]any{"file_path": "src/app/main.go"}, []string{"file_edit(src/app/**)"}},
		{"file_write", map[string]any{"file_path": "./README.md"}, []string{"file_write(README.md)"}},
		{"file_write", map[string]any{"file_path": "/etc/hosts"}, []string{"file_write(/etc/hosts)"}},
		{"file_write", map[string]any{"file_path": "../other/x"}, []string{"file_write(/p/other/x)"}},
		{"file_write", map[string]any{"file_path": "a[1]*.txt"}, []string{`file_write(a\[1\]\*.txt)`}},
		{"file_write", map[string]any{"file_path": "{x}/y"}, []string{`file_write(\{x\}/**)`}},
		{"file_write", map[string]any{}, nil},
		{"web_fetch", map[string]any{"url": "https://pkg.go.dev/x"}, []string{"web_fetch(domain:pkg.go.dev)"}},
		{"web_fetch", map[string]any{"url": "ftp://x"}, nil},
		{"mcp--gh--get_issue", map[string]any{"n": 1}, []string{"mcp--gh--get_issue"}},
		{"glob", map[string]any{"pattern": "*"}, []string{"glob"}},
	} {
		var got []string
		for _, r := range Suggest(call(tt.tool, tt.args, "/p/proj")) {
			got = append(got, r.String())
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Suggest(%s %v) (-want +got):\n%s", tt.tool, tt.args, diff)
		}
	}
}
