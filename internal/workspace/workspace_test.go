package workspace

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ikigai-tools/ikigai/internal/approval"
	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/registry"
	"github.com/ikigai-tools/ikigai/internal/trust"
)

// fixture is a home and a project directory under one temporary
// directory.
type fixture struct {
	root, home, project string
	env                 map[string]string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{root: root, home: filepath.Join(root, "home"), project: filepath.Join(root, "project"),
		env: map[string]string{"IKIGAI_SYSTEM_CONFIG": filepath.Join(root, "system.json")}}
	for _, d := range []string{f.home, f.project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

func (f *fixture) inputs() Inputs {
	return Inputs{Home: f.home, Dir: f.project, Getenv: func(k string) string { return f.env[k] }}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestLayout(t *testing.T) {
	f := newFixture(t)
	l, err := NewLayout(f.inputs())
	if err != nil {
		t.Fatal(err)
	}
	want := Layout{Home: f.home, Dir: f.project, Root: f.project, User: f.home + "/.ikigai", Project: f.project + "/.ikigai",
		State: f.home + "/.local/state/ikigai", Cache: f.home + "/.cache/ikigai"}
	if diff := cmp.Diff(want, l); diff != "" {
		t.Errorf("NewLayout (-want +got):\n%s", diff)
	}
	for got, want := range map[string]string{
		l.UserConfig():    f.home + "/.ikigai/config.json",
		l.UserTools():     f.home + "/.ikigai/tools",
		l.UserSkills():    f.home + "/.ikigai/skills",
		l.TrustFile():     f.home + "/.ikigai/trusted.json",
		l.ProjectConfig(): f.project + "/.ikigai/config.json",
		l.ProjectTools():  f.project + "/.ikigai/tools",
		l.ProjectSkills(): f.project + "/.ikigai/skills",
		l.Sessions():      f.home + "/.local/state/ikigai/sessions",
		l.LogDir():        f.home + "/.local/state/ikigai",
		l.History():       f.home + "/.local/state/ikigai/history",
	} {
		if got != want {
			t.Errorf("got %s, want %s", got, want)
		}
	}

	// XDG_STATE_HOME counts only when absolute.
	f.env["XDG_STATE_HOME"] = f.root + "/state"
	if l, _ := NewLayout(f.inputs()); l.State != f.root+"/state/ikigai" {
		t.Errorf("with XDG_STATE_HOME: State = %s", l.State)
	}
	f.env["XDG_STATE_HOME"] = "relative"
	if l, _ := NewLayout(f.inputs()); l.State != f.home+"/.local/state/ikigai" {
		t.Errorf("with a relative XDG_STATE_HOME: State = %s", l.State)
	}

	// Without a home, nothing of the user's; the working directory's
	// .ikigai is still a project.
	in := f.inputs()
	in.Home = ""
	delete(f.env, "XDG_STATE_HOME")
	l, _ = NewLayout(in)
	if l.User != "" || l.State != "" || l.UserTools() != "" || l.Sessions() != "" || l.TrustFile() != "" || l.Project == "" {
		t.Errorf("without a home: %+v", l)
	}

	// In the home directory, its .ikigai is the user's, not a project.
	in = f.inputs()
	in.Dir = f.home
	if l, _ := NewLayout(in); l.Project != "" {
		t.Errorf("in the home directory: Project = %q", l.Project)
	}

	// The working directory is canonical: symbolic links resolved.
	link := filepath.Join(f.root, "link")
	if err := os.Symlink(f.project, link); err != nil {
		t.Fatal(err)
	}
	in = f.inputs()
	in.Dir = link
	if l, _ := NewLayout(in); l.Dir != f.project {
		t.Errorf("through a symlink: Dir = %q, want %q", l.Dir, f.project)
	}
}

func TestLayoutWalksUp(t *testing.T) {
	f := newFixture(t)
	repo := f.project
	deep := filepath.Join(repo, "a", "b")
	for _, d := range []string{repo + "/.git", repo + "/.ikigai", deep} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	in := f.inputs()
	in.Dir = deep
	l, err := NewLayout(in)
	if err != nil {
		t.Fatal(err)
	}
	if l.Root != repo || l.Project != repo+"/.ikigai" || l.ProjectDir() != repo || !l.HasProject() {
		t.Errorf("from %s: Root %s, Project %s", deep, l.Root, l.Project)
	}
	if diff := cmp.Diff([]string{deep, repo + "/a", repo}, l.Path()); diff != "" {
		t.Errorf("Path (-want +got):\n%s", diff)
	}
	var names []string
	for _, file := range l.Instructions() {
		names = append(names, file.Root+" "+file.Name+": "+file.Title)
	}
	want := []string{
		f.home + " .ikigai/AGENTS.md: Your instructions, from ~/.ikigai/AGENTS.md",
		repo + " AGENTS.md: The project's instructions, from AGENTS.md",
		repo + " a/AGENTS.md: The project's instructions, from a/AGENTS.md",
		repo + " a/b/AGENTS.md: The project's instructions, from a/b/AGENTS.md",
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("Instructions (-want +got):\n%s", diff)
	}

	// A nearer .ikigai wins; the walk stops at the repository's root.
	if err := os.Mkdir(repo+"/a/.ikigai", 0o755); err != nil {
		t.Fatal(err)
	}
	if l, _ := NewLayout(in); l.Project != repo+"/a/.ikigai" {
		t.Errorf("nearer .ikigai: Project %s", l.Project)
	}
	if err := os.Mkdir(f.root+"/.ikigai", 0o755); err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(repo + "/.ikigai")
	os.RemoveAll(repo + "/a/.ikigai")
	if l, _ := NewLayout(in); l.Project != deep+"/.ikigai" || l.HasProject() {
		t.Errorf(".ikigai above the repository: Project %s", l.Project)
	}

	// Outside any repository, only the working directory counts.
	os.RemoveAll(repo + "/.git")
	if l, _ := NewLayout(in); l.Root != deep || len(l.Path()) != 1 {
		t.Errorf("outside a repository: Root %s, Path %v", l.Root, l.Path())
	}

	// A trusted project is trusted from any directory below it.
	os.MkdirAll(repo+"/.git", 0o755)
	os.MkdirAll(repo+"/.ikigai", 0o755)
	w, _ := Load(in, Options{})
	if ask, _ := w.ShouldAskTrust(); !ask {
		t.Errorf("an untrusted project found above is not asked about")
	}
	if _, err := w.Trust(true); err != nil {
		t.Fatal(err)
	}
	if w, _ := Load(f.inputs(), Options{}); !w.Trusted {
		t.Errorf("the project's root is not trusted after trusting it from below")
	}
}

func TestLoadLayers(t *testing.T) {
	f := newFixture(t)
	write(t, f.root+"/system.json", `{"model": "system", "max_tokens": 10, "tool_timeout_seconds": 5}`)
	write(t, f.home+"/.ikigai/config.json", `{"model": "user", "max_tokens": 20}`)
	write(t, f.project+"/.ikigai/config.json", `{"model": "project"}`)

	w, err := Load(f.inputs(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if w.Trusted || w.Config.Model != "user" || w.Config.MaxTokens != 20 || w.Config.ToolTimeout != 5*time.Second {
		t.Errorf("untrusted: trusted %v, model %q, max_tokens %d, timeout %v", w.Trusted, w.Config.Model, w.Config.MaxTokens, w.Config.ToolTimeout)
	}
	if w.ToolDirs.TrustProject || w.ToolDirs.Project != f.project+"/.ikigai/tools" || w.ToolDirs.User != f.home+"/.ikigai/tools" {
		t.Errorf("untrusted tool dirs: %+v", w.ToolDirs)
	}
	if w.SkillDirs().Project != "" {
		t.Errorf("untrusted: the project's skills are used")
	}

	w, err = Load(f.inputs(), Options{Trust: true})
	if err != nil {
		t.Fatal(err)
	}
	if !w.Trusted || w.Config.Model != "project" || !w.ToolDirs.TrustProject || w.SkillDirs().Project != f.project+"/.ikigai/skills" {
		t.Errorf("trusted for the run: %v, model %q, %+v", w.Trusted, w.Config.Model, w.ToolDirs)
	}

	// The environment wins over the files, the run's overrides over both.
	f.env["IKIGAI_MODEL"] = "env"
	w, _ = Load(f.inputs(), Options{Trust: true})
	if w.Config.Model != "env" {
		t.Errorf("with IKIGAI_MODEL: model %q", w.Config.Model)
	}
	w, _ = Load(f.inputs(), Options{Trust: true, Overrides: Overrides{Model: "flag", Approval: "auto", MaxToolTurns: 3, ToolTimeout: time.Second, Reasoning: "low"}})
	if w.Config.Model != "flag" || w.Config.Approval != "auto" || w.Config.Reasoning != "low" || w.Config.MaxToolTurns != 3 || w.Config.ToolTimeout != time.Second {
		t.Errorf("with overrides: %+v", w.Config)
	}

	// An error names the file; an untrusted project's errors are not seen.
	write(t, f.project+"/.ikigai/config.json", `{"bogus": 1}`)
	if _, err := Load(f.inputs(), Options{}); err != nil {
		t.Errorf("untrusted project with a bad config: %v", err)
	}
	if _, err := Load(f.inputs(), Options{Trust: true}); err == nil || err.Error() != `.ikigai/config.json: unknown key "bogus"` {
		t.Errorf("trusted project with a bad config: %v", err)
	}
}

// The approval rules of every layer add up, deny winning: a trusted
// project's allow rules cannot allow what the user denies, and the run's
// flags add their own.
func TestPolicy(t *testing.T) {
	f := newFixture(t)
	write(t, f.home+"/.ikigai/config.json", `{"deny": ["bash(rm *)"], "allow": ["bash(go test *)"]}`)
	write(t, f.project+"/.ikigai/config.json", `{"allow": ["bash(rm *)", "file_write(src/**)"], "deny": []}`)
	w, err := Load(f.inputs(), Options{Trust: true, Overrides: Overrides{Allow: []string{"bash(make *)"}, Deny: []string{"bash(curl *)"}}})
	if err != nil {
		t.Fatal(err)
	}
	p, err := w.Policy(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		tool, args, want string
	}{
		{"bash", `{"command": "go test ./... && make"}`, ""},
		{"bash", `{"command": "rm -rf src"}`, "the user's configuration denies this call (rule bash(rm *))"},
		{"bash", `{"command": "curl -O x"}`, "the user's configuration denies this call (rule bash(curl *))"},
		{"file_write", `{"file_path": "src/a.go"}`, ""},
		{"file_write", `{"file_path": "` + f.project + `/src/b.go"}`, ""},
		{"file_write", `{"file_path": "docs/a.md"}`, "this tool needs the user's approval and nobody can be asked in a non-interactive run (the user can rerun with --yes, or allow the tool in the configuration)"},
	} {
		ok, reason := p.Decide(context.Background(), approval.Request{Tool: tt.tool, Args: json.RawMessage(tt.args)})
		if reason != tt.want || ok != (tt.want == "") {
			t.Errorf("%s %s: %v %q, want %q", tt.tool, tt.args, ok, reason, tt.want)
		}
	}

	_, err = Load(f.inputs(), Options{Overrides: Overrides{Deny: []string{"bash(ls"}}})
	if err == nil || err.Error() != `--deny-tool "bash(ls": a pattern ends with ): TOOL(PATTERN)` {
		t.Errorf("a bad --deny-tool: %v", err)
	}
}

func TestTrust(t *testing.T) {
	f := newFixture(t)
	// Without a .ikigai there is nothing to trust or ask about.
	w, err := Load(f.inputs(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ask, err := w.ShouldAskTrust(); ask || err != nil {
		t.Errorf("no project: ShouldAskTrust = %v, %v", ask, err)
	}

	write(t, f.project+"/.ikigai/config.json", `{}`)
	w, _ = Load(f.inputs(), Options{})
	if ask, err := w.ShouldAskTrust(); !ask || err != nil {
		t.Errorf("untrusted project: ShouldAskTrust = %v, %v", ask, err)
	}

	// Only this time: trusted now, asked again next time.
	once, err := w.Trust(false)
	if err != nil || !once.Trusted {
		t.Fatalf("Trust(false) = %v, %v", once, err)
	}
	w, _ = Load(f.inputs(), Options{})
	if w.Trusted {
		t.Errorf("trusted for one run is trusted the next")
	}

	// Declined: not trusted, and not asked again.
	if err := w.Decline(); err != nil {
		t.Fatal(err)
	}
	w, _ = Load(f.inputs(), Options{})
	if ask, _ := w.ShouldAskTrust(); ask || w.Trusted {
		t.Errorf("declined: asked %v, trusted %v", ask, w.Trusted)
	}

	// Remembered: trusted from then on.
	if _, err := w.Trust(true); err != nil {
		t.Fatal(err)
	}
	w, _ = Load(f.inputs(), Options{})
	if ask, _ := w.ShouldAskTrust(); ask || !w.Trusted {
		t.Errorf("remembered: asked %v, trusted %v", ask, w.Trusted)
	}

	// Trusted by the user's configuration, with ~ for the home.
	f2 := newFixture(t)
	write(t, f2.project+"/.ikigai/config.json", `{}`)
	rel, _ := filepath.Rel(f2.home, f2.project)
	write(t, f2.home+"/.ikigai/config.json", `{"trusted_directories": ["~/`+rel+`"]}`)
	if w, err := Load(f2.inputs(), Options{}); err != nil || !w.Trusted {
		t.Errorf("trusted_directories: %v, %v", w, err)
	}
}

func TestCall(t *testing.T) {
	f := newFixture(t)
	write(t, f.home+"/.ikigai/tools/echo-tool", "#!/bin/sh\ncat\n")
	w, err := Load(f.inputs(), Options{LibexecDir: f.root + "/none"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	env, source := w.Call(ctx, nil, "echo", []byte(`{"a":1}`), time.Minute)
	if !env.Success || string(env.Result) != `{"a":1}` || source != registry.User {
		t.Errorf("Call(echo) = %s from %q", env.JSON(), source)
	}
	env, source = w.Call(ctx, nil, "missing", []byte(`{}`), time.Minute)
	if env.Code != execute.ToolNotFound || source != "" {
		t.Errorf("Call(missing) = %s from %q", env.JSON(), source)
	}
}

func TestTrustDirectory(t *testing.T) {
	f := newFixture(t)
	l, err := NewLayout(f.inputs())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(f.project+"/sub", 0o755); err != nil {
		t.Fatal(err)
	}
	trustDir := func(dir string) (string, error) { return l.TrustDirectory(dir, false) }
	steps := []struct {
		change  func(string) (string, error)
		dir     string
		want    string
		wantErr string
	}{
		{trustDir, "", "Trusted: " + f.project + "\nikigai now uses its .ikigai (tools, settings, hooks, commands, skills) and starts the MCP servers of its .mcp.json; if they change, it asks again.", ""},
		{trustDir, "sub", "Trusted: " + f.project + "/sub\nikigai now uses its .ikigai (tools, settings, hooks, commands, skills) and starts the MCP servers of its .mcp.json; if they change, it asks again.", ""},
		{trustDir, "missing", "", f.project + "/missing is not a directory"},
		{l.UntrustDirectory, "sub", "No longer trusted: " + f.project + "/sub", ""},
		{l.UntrustDirectory, "sub", f.project + "/sub was not trusted", ""},
		{l.UntrustDirectory, "~/", f.home + " was not trusted", ""},
	}
	for i, s := range steps {
		got, err := s.change(s.dir)
		if got != s.want || (err == nil) != (s.wantErr == "") || err != nil && err.Error() != s.wantErr {
			t.Errorf("step %d (%q) = %q, %v; want %q, %q", i, s.dir, got, err, s.want, s.wantErr)
		}
	}
	trusted, err := trust.At(l.TrustFile()).List()
	if diff := cmp.Diff([]string{f.project}, trusted); diff != "" || err != nil {
		t.Errorf("trusted (-want +got):\n%s%v", diff, err)
	}
	l.User = ""
	if _, err := l.TrustDirectory("", false); err == nil {
		t.Errorf("TrustDirectory without a home succeeded")
	}
}

func TestTrustQuestion(t *testing.T) {
	f := newFixture(t)
	write(t, f.project+"/.ikigai/config.json", `{"approval": "auto", "allow": ["bash(make *)"]}`)
	w, err := Load(f.inputs(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := f.project + " has its own ikigai tools or settings (.ikigai, .mcp.json): programs that would run on your machine.\n" +
		"Its configuration would let the agent, without asking:\n  approval: auto\n  allow: bash(make *)\nTrust this directory?"
	if got := w.TrustQuestion(); got != want {
		t.Errorf("question:\n%s\nwant\n%s", got, want)
	}
}

// A directory with only Claude Code's .mcp.json is a project: the
// question lists the servers it would start, and once trusted they are
// configured, under .ikigai/config.json's of the same name.
func TestProjectMCPFile(t *testing.T) {
	f := newFixture(t)
	write(t, f.project+"/.mcp.json", `{"mcpServers": {
		"gh": {"type": "stdio", "command": "github-mcp-server", "args": ["stdio"], "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}},
		"docs": {"type": "http", "url": "https://docs.example/mcp", "headers": {"Authorization": "Bearer ${DOCS}"}}}}`)
	w, err := Load(f.inputs(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ask, err := w.ShouldAskTrust(); !ask || err != nil || len(w.Config.MCPServers) != 0 {
		t.Fatalf("untrusted: ask %v, %v, servers %v", ask, err, w.Config.MCPServers)
	}
	want := f.project + " has its own ikigai tools or settings (.ikigai, .mcp.json): programs that would run on your machine.\n" +
		"Its .mcp.json would start these MCP servers:\n  docs: http https://docs.example/mcp\n  gh: github-mcp-server stdio\nTrust this directory?"
	if got := w.TrustQuestion(); got != want {
		t.Errorf("question:\n%s\nwant\n%s", got, want)
	}
	write(t, f.project+"/.ikigai/config.json", `{"mcp_servers": {"docs": {"url": "http://127.0.0.1:1/mcp"}}}`)
	w, err = Load(f.inputs(), Options{Trust: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := w.Config.MCPServers; len(got) != 2 || got["gh"].Command != "github-mcp-server" || got["docs"].URL != "http://127.0.0.1:1/mcp" {
		t.Errorf("servers: %+v", got)
	}
	// Settings do not belong in it.
	write(t, f.project+"/.mcp.json", `{"approval": "auto"}`)
	if _, err := Load(f.inputs(), Options{Trust: true}); err == nil || err.Error() != `.mcp.json: unknown key "approval": .mcp.json holds mcpServers only` {
		t.Errorf("err = %v", err)
	}
}

// TestHooksAndCommands: the project's hooks and commands are used only
// once the project is trusted, and the files they are made of are listed
// for pinned trust.
func TestHooksAndCommands(t *testing.T) {
	f := newFixture(t)
	write(t, f.home+"/.ikigai/hooks/stop-tests-hook", "#!/bin/sh\n")
	write(t, f.home+"/.ikigai/commands/review.md", "Review it.")
	write(t, f.project+"/.ikigai/hooks/pre_tool-guard-hook", "#!/bin/sh\n")
	write(t, f.project+"/.ikigai/hooks/README", "about the hooks")
	write(t, f.project+"/.ikigai/commands/deploy.md", "Deploy it.")
	write(t, f.project+"/.ikigai/commands/old/x.md", "in a subdirectory")
	write(t, f.project+"/.ikigai/config.json", `{"hooks": {"pre_tool": [{"command": "true"}]}}`)
	names := func(w *Workspace) (hooks, untrusted []string) {
		s := w.Hooks(nil)
		for _, h := range s.Hooks {
			hooks = append(hooks, string(h.Source)+" "+h.Name)
		}
		for _, h := range s.Untrusted {
			untrusted = append(untrusted, string(h.Source)+" "+h.Name)
		}
		return hooks, untrusted
	}

	w, err := Load(f.inputs(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	hooks, untrusted := names(w)
	if diff := cmp.Diff([]string{"user stop-tests-hook"}, hooks); diff != "" {
		t.Errorf("untrusted: hooks (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"project pre_tool-guard-hook"}, untrusted); diff != "" {
		t.Errorf("untrusted: untrusted hooks (-want +got):\n%s", diff)
	}
	if d := w.CommandDirs(); d.Project != "" || d.User != f.home+"/.ikigai/commands" {
		t.Errorf("untrusted: command dirs %+v", d)
	}

	w, err = Load(f.inputs(), Options{Trust: true})
	if err != nil {
		t.Fatal(err)
	}
	hooks, untrusted = names(w)
	if diff := cmp.Diff([]string{".ikigai/config.json hooks.pre_tool[0]", "project pre_tool-guard-hook", "user stop-tests-hook"}, hooks); diff != "" {
		t.Errorf("trusted: hooks (-want +got):\n%s", diff)
	}
	if len(untrusted) != 0 {
		t.Errorf("trusted: untrusted hooks %v", untrusted)
	}
	if d := w.CommandDirs(); d.Project != f.project+"/.ikigai/commands" {
		t.Errorf("trusted: command dirs %+v", d)
	}

	want := []string{f.project + "/.ikigai/hooks/README", f.project + "/.ikigai/hooks/pre_tool-guard-hook", f.project + "/.ikigai/commands/deploy.md"}
	if diff := cmp.Diff(want, w.ProjectHookAndCommandFiles()); diff != "" {
		t.Errorf("ProjectHookAndCommandFiles (-want +got):\n%s", diff)
	}
}
