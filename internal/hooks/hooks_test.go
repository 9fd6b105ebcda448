package hooks

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ikigai-tools/ikigai/internal/calllog"
)

// configured returns a configured hook running script at event.
func configured(t *testing.T, event Event, name, match, script string) Hook {
	t.Helper()
	h, err := NewHook(event, name, "test", UserScope, match, script, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// summary is what a test compares of a Result.
type summary struct {
	Decision Decision
	Reason   string
	Input    string
	Context  []string
	Runs     []string // name: outcome (failure) reason
}

func summarise(r Result) summary {
	s := summary{Decision: r.Decision, Reason: r.Reason, Input: string(r.Input), Context: r.Context}
	for _, run := range r.Runs {
		line := run.Hook.Name + ": " + run.Outcome()
		if run.Failure != "" {
			line += " (" + string(run.Failure) + ")"
		}
		if run.Reason != "" {
			line += " " + run.Reason
		}
		if run.Message != "" {
			line += " [" + run.Message + "]"
		}
		s.Runs = append(s.Runs, line)
	}
	return s
}

func TestRun(t *testing.T) {
	bashCall := Input{Event: PreTool, ToolName: "bash", ToolInput: json.RawMessage(`{"command":"rm -rf build"}`), ToolUseID: "toolu_1"}
	tests := []struct {
		name  string
		hooks []Hook
		in    Input
		want  summary
	}{
		{"no hooks", nil, bashCall, summary{}},
		{"no output is no opinion", []Hook{configured(t, PreTool, "quiet", "", "cat >/dev/null")}, bashCall,
			summary{Runs: []string{"quiet: ok"}}},
		{"deny in hookSpecificOutput", []Hook{configured(t, PreTool, "guard", "bash",
			`echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no rm here"}}'`)}, bashCall,
			summary{Decision: Deny, Reason: "no rm here", Runs: []string{"guard: deny no rm here"}}},
		{"deny at the top level", []Hook{configured(t, PreTool, "guard", "", `echo '{"permissionDecision":"deny","permissionDecisionReason":"no"}'`)}, bashCall,
			summary{Decision: Deny, Reason: "no", Runs: []string{"guard: deny no"}}},
		{"exit 2 denies with stderr", []Hook{configured(t, PreTool, "guard", "", "echo 'rm is not allowed' >&2; exit 2")}, bashCall,
			summary{Decision: Deny, Reason: "rm is not allowed", Runs: []string{"guard: deny rm is not allowed"}}},
		{"exit 2 without a reason", []Hook{configured(t, PreTool, "guard", "", "exit 2")}, bashCall,
			summary{Decision: Deny, Reason: "the hook guard denied it without saying why", Runs: []string{"guard: deny the hook guard denied it without saying why"}}},
		{"a denial ends the round", []Hook{
			configured(t, PreTool, "guard", "", "exit 2"),
			configured(t, PreTool, "after", "", "touch \"$MARK\""),
		}, bashCall, summary{Decision: Deny, Reason: "the hook guard denied it without saying why", Runs: []string{"guard: deny the hook guard denied it without saying why"}}},
		{"ask wins over allow", []Hook{
			configured(t, PreTool, "ok", "", `echo '{"permissionDecision":"allow","permissionDecisionReason":"fine"}'`),
			configured(t, PreTool, "unsure", "", `echo '{"permissionDecision":"ask","permissionDecisionReason":"deletes files"}'`),
		}, bashCall, summary{Decision: Ask, Reason: "deletes files", Runs: []string{"ok: allow fine", "unsure: ask deletes files"}}},
		{"legacy approve and block", []Hook{configured(t, PreTool, "old", "", `echo '{"decision":"block","reason":"old style"}'`)}, bashCall,
			summary{Decision: Deny, Reason: "old style", Runs: []string{"old: deny old style"}}},
		{"rewrites chain", []Hook{
			configured(t, PreTool, "first", "", `echo '{"hookSpecificOutput":{"updatedInput":{"command":"rm -rf build/tmp"}}}'`),
			configured(t, PreTool, "second", "", `sed 's/.*"tool_input":\({[^}]*}\).*/{"updatedInput":\1}/; s/tmp/cache/'`),
		}, bashCall, summary{Input: `{"command":"rm -rf build/cache"}`, Runs: []string{"first: ok", "second: ok"}}},
		{"updatedInput must be an object", []Hook{configured(t, PreTool, "bad", "", `echo '{"updatedInput":"ls"}'`)}, bashCall,
			summary{Runs: []string{"bad: failed (output) updatedInput: not a JSON object"}}},
		{"match on the tool name and the command", []Hook{
			configured(t, PreTool, "files", "file_*", "exit 2"),
			configured(t, PreTool, "pushes", "bash(git push *)", `echo '{"permissionDecision":"ask"}'`),
			configured(t, PreTool, "removals", "bash(rm *)", `echo '{"permissionDecision":"ask"}'`),
		}, bashCall, summary{Decision: Ask, Runs: []string{"removals: ask"}}},
		{"a crash decides nothing", []Hook{configured(t, PreTool, "broken", "", "echo oops >&2; exit 1")}, bashCall,
			summary{Runs: []string{"broken: failed (exit) exit code 1: oops"}}},
		{"a signal", []Hook{configured(t, PreTool, "killed", "", "kill -SEGV $$")}, bashCall,
			summary{Runs: []string{"killed: failed (exit) signal SIGSEGV"}}},
		{"not JSON", []Hook{configured(t, PreTool, "chatty", "", "echo '{not json'")}, bashCall,
			summary{Runs: []string{"chatty: failed (output) printed an answer that is not valid: invalid character 'n' looking for beginning of object key string"}}},
		{"text is ignored where it cannot be context", []Hook{configured(t, PreTool, "chatty", "", "echo formatted")}, bashCall,
			summary{Runs: []string{"chatty: ok"}}},
		{"a bad permissionDecision", []Hook{configured(t, PreTool, "odd", "", `echo '{"permissionDecision":"maybe"}'`)}, bashCall,
			summary{Runs: []string{`odd: failed (output) permissionDecision "maybe": want "allow", "deny" or "ask"`}}},
		{"systemMessage", []Hook{configured(t, PreTool, "note", "", `echo '{"systemMessage":"checked by the linter"}'`)}, bashCall,
			summary{Runs: []string{"note: ok [checked by the linter]"}}},
		{"user_prompt text is context", []Hook{configured(t, UserPrompt, "date", "", "echo 'Today is Monday.'")}, Input{Event: UserPrompt, Prompt: "hi"},
			summary{Context: []string{"Today is Monday."}, Runs: []string{"date: ok"}}},
		{"user_prompt blocks", []Hook{
			configured(t, UserPrompt, "secrets", "", `echo '{"decision":"block","reason":"the prompt holds a key"}'`),
			configured(t, UserPrompt, "after", "", "echo more"),
		}, Input{Event: UserPrompt, Prompt: "sk-123"}, summary{Decision: Block, Reason: "the prompt holds a key", Runs: []string{"secrets: block the prompt holds a key"}}},
		{"post_tool context and feedback, from every hook", []Hook{
			configured(t, PostTool, "lint", "", `echo '{"decision":"block","reason":"lint: 2 errors","hookSpecificOutput":{"additionalContext":"ran golint"}}'`),
			configured(t, PostTool, "vet", "", "echo 'vet: 1 error' >&2; exit 2"),
		}, Input{Event: PostTool, ToolName: "file_edit"}, summary{Decision: Block, Reason: "lint: 2 errors\nvet: 1 error", Context: []string{"ran golint"},
			Runs: []string{"lint: block lint: 2 errors", "vet: block vet: 1 error"}}},
		{"stop sends back", []Hook{configured(t, Stop, "tests", "", "echo 'tests fail' >&2; exit 2")}, Input{Event: Stop},
			summary{Decision: Block, Reason: "tests fail", Runs: []string{"tests: block tests fail"}}},
		{"stop without a reason", []Hook{configured(t, Stop, "tests", "", `echo '{"decision":"block"}'`)}, Input{Event: Stop},
			summary{Decision: Block, Reason: "the stop hook tests sent you back to work without saying why", Runs: []string{"tests: block the stop hook tests sent you back to work without saying why"}}},
		{"pre_compact cannot block: the reason is shown", []Hook{configured(t, PreCompact, "backup", "", "echo 'disk full' >&2; exit 2")}, Input{Event: PreCompact, Trigger: "auto"},
			summary{Runs: []string{"backup: ok [disk full]"}}},
		{"hooks of other events do not run", []Hook{configured(t, PostTool, "post", "", "exit 2")}, bashCall, summary{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mark := filepath.Join(t.TempDir(), "mark")
			t.Setenv("MARK", mark)
			s := &Set{Hooks: tt.hooks, Dir: t.TempDir()}
			got := summarise(s.Run(context.Background(), tt.in))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Run (-want +got):\n%s", diff)
			}
			if _, err := os.Stat(mark); err == nil {
				t.Error("a hook after a denial ran")
			}
		})
	}
}

// TestInput pins what a hook reads on stdin: Claude Code's field names,
// the working directory, and only the fields of the event.
func TestInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "input.json")
	s := &Set{Dir: dir, Hooks: []Hook{
		configured(t, PreTool, "record", "", `cat > "$OUT"`),
		configured(t, Stop, "record", "", `cat > "$OUT"`),
	}}
	t.Setenv("OUT", out)
	for _, tt := range []struct {
		in   Input
		want string
	}{
		{Input{SessionID: "20260102-100000-abcd", TranscriptPath: "/s/x.jsonl", Event: PreTool, ToolName: "bash", ToolInput: json.RawMessage(`{"command":"ls"}`), ToolUseID: "toolu_1"},
			`{"session_id":"20260102-100000-abcd","transcript_path":"/s/x.jsonl","cwd":"` + dir + `","hook_event_name":"pre_tool","tool_name":"bash","tool_input":{"command":"ls"},"tool_use_id":"toolu_1"}`},
		{Input{SessionID: "s", Event: Stop, StopHookActive: new(bool)},
			`{"session_id":"s","cwd":"` + dir + `","hook_event_name":"stop","stop_hook_active":false}`},
	} {
		s.Run(context.Background(), tt.in)
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.want+"\n" {
			t.Errorf("stdin:\n%s\nwant\n%s", got, tt.want)
		}
	}
}

// TestTimeout: a hook that hangs is stopped at its timeout, with what it
// started, and the run goes on without its opinion.
func TestTimeout(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	t.Setenv("PIDFILE", pidFile)
	h, err := NewHook(PreTool, "hang", "test", UserScope, "", `sleep 30 & echo $! > "$PIDFILE"; wait`, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	s := &Set{Hooks: []Hook{h, configured(t, PreTool, "next", "", `echo '{"permissionDecision":"allow"}'`)}}
	got := summarise(s.Run(context.Background(), Input{Event: PreTool, ToolName: "bash"}))
	want := summary{Decision: Allow, Runs: []string{"hang: failed (timeout) timed out after 300ms and was stopped", "next: allow"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Run (-want +got):\n%s", diff)
	}
	pid, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	// A zombie, killed and not yet reaped, has an empty command line.
	if cmdline, err := os.ReadFile("/proc/" + strings.TrimSpace(string(pid)) + "/cmdline"); err == nil && len(cmdline) > 0 {
		t.Errorf("the hook's sleep (pid %s) is still running", strings.TrimSpace(string(pid)))
	}
}

func TestFind(t *testing.T) {
	user, project := t.TempDir(), t.TempDir()
	write := func(dir, name string, mode os.FileMode) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	write(user, "pre_tool-lint-hook", 0o755)
	write(user, "stop-tests-hook", 0o755)
	write(user, "post_tool-fmt-hook", 0o644)
	write(user, "prompt-x-hook", 0o755)
	write(user, "stop-hook", 0o755)
	write(user, "README.md", 0o644)
	write(user, ".pre_tool-hidden-hook", 0o755)
	if err := os.Mkdir(filepath.Join(user, "pre_tool-dir-hook"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(project, "pre_tool-guard-hook", 0o755)
	cfg := []Hook{
		configured(t, PreTool, "hooks.pre_tool[0]", "", "true"),
		{Event: PreTool, Name: "hooks.pre_tool[0]", Source: "/etc/ikigai/config.json", Scope: SystemScope, Command: "true"},
		{Event: Stop, Name: "hooks.stop[0]", Source: ".ikigai/config.json", Scope: ProjectScope, Command: "true"},
	}
	names := func(list []Hook) []string {
		var out []string
		for _, h := range list {
			out = append(out, string(h.Source)+" "+h.Name)
		}
		return out
	}

	s := Find(Dirs{User: user, Project: project}, cfg[:2])
	want := []string{"test hooks.pre_tool[0]", "user pre_tool-lint-hook", "user stop-tests-hook", "/etc/ikigai/config.json hooks.pre_tool[0]"}
	if diff := cmp.Diff(want, names(s.Hooks)); diff != "" {
		t.Errorf("untrusted: hooks (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"project pre_tool-guard-hook"}, names(s.Untrusted)); diff != "" {
		t.Errorf("untrusted (-want +got):\n%s", diff)
	}
	wantBroken := []Broken{
		{Path: filepath.Join(user, "post_tool-fmt-hook"), Source: User, Reason: "not executable (chmod +x " + filepath.Join(user, "post_tool-fmt-hook") + ")"},
		{Path: filepath.Join(user, "prompt-x-hook"), Source: User, Reason: `the name does not start with an event: unknown hook event "prompt": want one of session_start, user_prompt, pre_tool, post_tool, stop, pre_compact, session_end`},
		{Path: filepath.Join(user, "stop-hook"), Source: User, Reason: "want EVENT-NAME-hook, with a name after the event"},
	}
	if diff := cmp.Diff(wantBroken, s.Broken); diff != "" {
		t.Errorf("broken (-want +got):\n%s", diff)
	}

	s = Find(Dirs{User: user, Project: project, TrustProject: true}, cfg)
	want = []string{".ikigai/config.json hooks.stop[0]", "project pre_tool-guard-hook", "test hooks.pre_tool[0]", "user pre_tool-lint-hook", "user stop-tests-hook", "/etc/ikigai/config.json hooks.pre_tool[0]"}
	if diff := cmp.Diff(want, names(s.Hooks)); diff != "" {
		t.Errorf("trusted: hooks (-want +got):\n%s", diff)
	}
	if len(s.Untrusted) != 0 {
		t.Errorf("untrusted in a trusted project: %v", names(s.Untrusted))
	}
}

func TestParseMatch(t *testing.T) {
	for _, tt := range []struct {
		rule string
		tool string
		want bool
	}{
		{"", "bash", true},
		{"*", "mcp--github--create_issue", true},
		{"bash", "bash", true},
		{"bash", "bash2", false},
		{"file_*", "file_edit", true},
		{"file_*", "bash", false},
		{"mcp--*", "mcp--github--create_issue", true},
		{"mcp--github--*", "mcp--gitlab--x", false},
		{"bash(ls *)", "bash", true},
		{"bash(git push *)", "bash", false},
		{"bash(ls *)", "file_edit", false},
	} {
		m, err := ParseMatch(tt.rule)
		if err != nil {
			t.Errorf("ParseMatch(%q): %v", tt.rule, err)
			continue
		}
		if got := m(tt.tool, json.RawMessage(`{"command":"ls"}`)); got != tt.want {
			t.Errorf("ParseMatch(%q)(%q) = %v, want %v", tt.rule, tt.tool, got, tt.want)
		}
	}
	for _, bad := range []string{"bash(", "(x)", "[a-"} {
		if _, err := ParseMatch(bad); err == nil {
			t.Errorf("ParseMatch(%q) succeeded", bad)
		}
	}
	if _, err := NewHook(Stop, "x", "test", UserScope, "bash", "true", 0); err == nil {
		t.Error("a stop hook took a match rule")
	}
}

// TestLastRuns: every run is logged with its time and outcome, and
// ikigai hooks reads each hook's last one back.
func TestLastRuns(t *testing.T) {
	dir := t.TempDir()
	log, err := calllog.Open(dir, calllog.DefaultMaxBytes, false)
	if err != nil {
		t.Fatal(err)
	}
	ok := configured(t, PreTool, "ok", "", "true")
	bad := configured(t, PreTool, "bad", "", "exit 1")
	s := &Set{Hooks: []Hook{ok, bad}, Logger: log.Logger()}
	s.Run(context.Background(), Input{Event: PreTool, ToolName: "bash"})
	bad = configured(t, PreTool, "bad", "", "exit 2")
	s.Hooks = []Hook{bad}
	s.Run(context.Background(), Input{Event: PreTool, ToolName: "bash"})
	log.Close()

	last := LastRuns(dir)
	type brief struct {
		Outcome string
		Failure Failure
	}
	got := map[string]brief{}
	for id, l := range last {
		if l.Time.IsZero() || l.DurationMS <= 0 {
			t.Errorf("%s: time %v, duration %v", id, l.Time, l.DurationMS)
		}
		got[id] = brief{l.Outcome, l.Failure}
	}
	want := map[string]brief{
		ok.ID(): {"ok", ""},
		configured(t, PreTool, "bad", "", "exit 1").ID(): {"failed", FailedExit},
		bad.ID(): {"deny", ""},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("LastRuns (-want +got):\n%s", diff)
	}
	data, _ := os.ReadFile(filepath.Join(dir, calllog.FileName))
	if strings.Contains(string(data), "exit 1") {
		t.Errorf("the log holds a command:\n%s", data)
	}
}

func TestNoteworthy(t *testing.T) {
	for _, tt := range []struct {
		run  Run
		want bool
	}{
		{Run{}, false},
		{Run{Context: "Branch: main"}, false},
		{Run{Decision: Allow}, false},
		{Run{Decision: Ask, Reason: "force push"}, false},
		{Run{Decision: Deny, Reason: "no"}, true},
		{Run{Decision: Block, Reason: "tests fail"}, true},
		{Run{Input: json.RawMessage(`{}`)}, true},
		{Run{Message: "formatted"}, true},
		{Run{Failure: FailedTimeout}, true},
	} {
		if got := tt.run.Noteworthy(); got != tt.want {
			t.Errorf("%+v: Noteworthy = %v", tt.run, got)
		}
	}
}
