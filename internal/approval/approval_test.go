package approval

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ikigai-tools/ikigai/internal/rules"
)

func list(rs ...string) rules.List {
	var l rules.List
	for _, r := range rs {
		l = append(l, rules.MustParse(r))
	}
	return l
}

func bash(script string) Request {
	args, _ := json.Marshal(map[string]string{"command": script})
	return Request{Tool: "bash", Args: args}
}

func TestDecide(t *testing.T) {
	yes := AskerFunc(func(context.Context, Request) (Answer, error) { return Answer{Yes: true}, nil })
	no := AskerFunc(func(context.Context, Request) (Answer, error) { return Answer{}, nil })
	gone := AskerFunc(func(context.Context, Request) (Answer, error) { return Answer{}, errors.New("interrupted") })

	type want struct {
		OK     bool
		Reason string
		Asked  bool
		Rule   string // the Rule of the request put to the user
	}
	tests := []struct {
		name   string
		policy Policy
		req    Request
		want   want
	}{
		{"ask: read-only runs", Policy{Mode: Ask, Asker: no}, Request{Tool: "grep", ReadOnly: true}, want{OK: true}},
		{"ask: others ask, yes", Policy{Mode: Ask, Asker: yes}, Request{Tool: "bash"}, want{OK: true, Asked: true}},
		{"ask: others ask, no", Policy{Mode: Ask, Asker: no}, Request{Tool: "bash"}, want{Reason: "the user refused this call", Asked: true}},
		{"ask: no, and why", Policy{Mode: Ask, Asker: AskerFunc(func(context.Context, Request) (Answer, error) { return Answer{Why: " use git mv \n"}, nil })},
			Request{Tool: "bash"}, want{Reason: "the user refused this call and says: use git mv", Asked: true}},
		{"ask: no answer", Policy{Mode: Ask, Asker: gone}, Request{Tool: "bash"}, want{Reason: "the user was asked but did not answer: interrupted", Asked: true}},
		{"ask: nobody to ask", Policy{Mode: Ask}, Request{Tool: "bash"}, want{Reason: "this tool needs the user's approval and nobody can be asked in a non-interactive run (the user can rerun with --yes, or allow the tool in the configuration)"}},
		{"ask: allowed", Policy{Mode: Ask, Allow: list("bash")}, Request{Tool: "bash"}, want{OK: true}},
		{"auto", Policy{Mode: Auto}, Request{Tool: "bash"}, want{OK: true}},
		{"auto: denied", Policy{Mode: Auto, Deny: list("bash")}, Request{Tool: "bash"}, want{Reason: "the user's configuration denies this tool"}},
		{"deny beats read-only", Policy{Mode: Ask, Deny: list("grep")}, Request{Tool: "grep", ReadOnly: true}, want{Reason: "the user's configuration denies this tool"}},
		{"read-only: writer refused", Policy{Mode: ReadOnly, Allow: list("bash"), Asker: yes}, Request{Tool: "bash"}, want{Reason: "the agent is in read-only mode; only tools that change nothing may run"}},
		{"allowed by a hook", Policy{Mode: Ask, Asker: no}, Request{Tool: "bash", Allowed: true}, want{OK: true}},
		{"allowed by a hook, in read-only mode", Policy{Mode: ReadOnly}, Request{Tool: "bash", Allowed: true}, want{Reason: "the agent is in read-only mode; only tools that change nothing may run"}},
		{"allowed by a hook, denied by the user", Policy{Mode: Auto, Deny: list("bash")}, Request{Tool: "bash", Allowed: true}, want{Reason: "the user's configuration denies this tool"}},
		{"a hook asks, in auto mode", Policy{Mode: Auto, Asker: no}, Request{Tool: "bash", Ask: true, Allowed: true, Reason: "force push"}, want{Reason: "the user refused this call", Asked: true}},
		{"a hook asks about a reader", Policy{Mode: Ask, Asker: yes}, Request{Tool: "grep", ReadOnly: true, Ask: true}, want{OK: true, Asked: true}},
		{"a hook asks, nobody to ask", Policy{Mode: Auto}, Request{Tool: "bash", Ask: true, Reason: "force push"}, want{Reason: "a hook wants the user to approve this call (force push) and nobody can be asked in a non-interactive run"}},
		{"read-only: reader runs", Policy{Mode: ReadOnly}, Request{Tool: "glob", ReadOnly: true}, want{OK: true}},
		{"ask: an open-world reader asks", Policy{Mode: Ask, Asker: yes}, Request{Tool: "web_fetch", ReadOnly: true, OpenWorld: true}, want{OK: true, Asked: true}},
		{"ask: an open-world reader allowed by its domain", Policy{Mode: Ask, Allow: list("web_fetch(domain:go.dev)")},
			Request{Tool: "web_fetch", ReadOnly: true, OpenWorld: true, Args: json.RawMessage(`{"url":"https://pkg.go.dev/x"}`)}, want{OK: true}},
		{"ask: another domain asks", Policy{Mode: Ask, Allow: list("web_fetch(domain:go.dev)"), Asker: no},
			Request{Tool: "web_fetch", ReadOnly: true, OpenWorld: true, Args: json.RawMessage(`{"url":"https://evil.example/x"}`)}, want{Reason: "the user refused this call", Asked: true}},
		{"read-only: an open-world reader runs", Policy{Mode: ReadOnly}, Request{Tool: "web_fetch", ReadOnly: true, OpenWorld: true}, want{OK: true}},

		// rules on arguments
		{"allow rule: covered", Policy{Mode: Ask, Allow: list("bash(go test *)")}, bash("go test ./... && go test -race ./x"), want{OK: true}},
		{"allow rule: not covered", Policy{Mode: Ask, Allow: list("bash(go test *)"), Asker: no}, bash("go test ./... && go build"), want{Reason: "the user refused this call", Asked: true}},
		{"allow rule: redirection asks", Policy{Mode: Ask, Allow: list("bash(go test *)"), Asker: yes}, bash("go test ./... > out.txt"), want{OK: true, Asked: true}},
		{"allow rule: redirection, nobody to ask", Policy{Mode: Ask, Allow: list("bash(go test *)")}, bash("go test ./... > out.txt"), want{Reason: "this call needs the user's approval and nobody can be asked in a non-interactive run; no allow rule can cover it because it redirects output to a file"}},
		{"deny rule wins over allow and auto", Policy{Mode: Auto, Allow: list("bash"), Deny: list("bash(rm *)")}, bash("ls && rm -rf /"), want{Reason: "the user's configuration denies this call (rule bash(rm *))"}},
		{"deny rule inside $(...)", Policy{Mode: Auto, Deny: list("bash(curl *)")}, bash(`echo "$(curl -s x)"`), want{Reason: "the user's configuration denies this call (rule bash(curl *))"}},
		{"deny rule: other calls run", Policy{Mode: Auto, Deny: list("bash(rm *)")}, bash("ls"), want{OK: true}},
		{"deny rule maybe: auto asks", Policy{Mode: Auto, Deny: list("bash(git push *)"), Asker: yes}, bash("git $cmd"), want{OK: true, Asked: true, Rule: "bash(git push *)"}},
		{"deny rule maybe: nobody to ask", Policy{Mode: Auto, Deny: list("bash(git push *)")}, bash("git $cmd"), want{Reason: "this call needs the user's approval (it may run what the rule bash(git push *) denies) and nobody can be asked in a non-interactive run"}},
		{"ask rule beats auto and allow", Policy{Mode: Auto, Allow: list("bash"), Ask: list("bash(git push *)"), Asker: no}, bash("git push"), want{Reason: "the user refused this call", Asked: true, Rule: "bash(git push *)"}},
		{"ask rule beats read-only tools", Policy{Mode: Ask, Ask: list("file_read(.env)"), Dir: "/p"}, Request{Tool: "file_read", Args: json.RawMessage(`{"file_path":".env"}`), ReadOnly: true}, want{Reason: "this call needs the user's approval (the rule file_read(.env) asks) and nobody can be asked in a non-interactive run"}},
		{"ask rule: other calls", Policy{Mode: Auto, Ask: list("bash(git push *)")}, bash("git status"), want{OK: true}},
		{"file rule", Policy{Mode: Ask, Allow: list("file_write(src/**)"), Dir: "/p"}, Request{Tool: "file_write", Args: json.RawMessage(`{"file_path":"/p/src/a.go"}`)}, want{OK: true}},
		{"file rule: outside", Policy{Mode: Ask, Allow: list("file_write(src/**)"), Dir: "/p"}, Request{Tool: "file_write", Args: json.RawMessage(`{"file_path":"src/../../etc/x"}`)}, want{Reason: "this tool needs the user's approval and nobody can be asked in a non-interactive run (the user can rerun with --yes, or allow the tool in the configuration)"}},
		{"deny glob", Policy{Mode: Auto, Deny: list("mcp--web--*")}, Request{Tool: "mcp--web--fetch"}, want{Reason: "the user's configuration denies this tool"}},

		// sandboxed
		{"sandboxed: inside runs", Policy{Mode: Sandboxed, Sandboxed: func(r Request) bool { return r.Tool == "bash" }}, bash("make"), want{OK: true}},
		{"sandboxed: outside asks", Policy{Mode: Sandboxed, Sandboxed: func(r Request) bool { return r.Tool == "bash" }, Asker: yes}, Request{Tool: "deploy"}, want{OK: true, Asked: true}},
		{"sandboxed: no sandbox asks", Policy{Mode: Sandboxed, Asker: no}, bash("make"), want{Reason: "the user refused this call", Asked: true}},
		{"sandboxed: read-only runs", Policy{Mode: Sandboxed}, Request{Tool: "grep", ReadOnly: true}, want{OK: true}},
		{"sandboxed: deny wins", Policy{Mode: Sandboxed, Sandboxed: func(Request) bool { return true }, Deny: list("bash(rm *)")}, bash("rm x"), want{Reason: "the user's configuration denies this call (rule bash(rm *))"}},
		{"sandboxed: ask rule wins", Policy{Mode: Sandboxed, Sandboxed: func(Request) bool { return true }, Ask: list("bash(git push *)"), Asker: yes}, bash("git push"), want{OK: true, Asked: true, Rule: "bash(git push *)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked, rule := false, ""
			if tt.policy.Asker != nil {
				inner := tt.policy.Asker
				tt.policy.Asker = AskerFunc(func(ctx context.Context, r Request) (Answer, error) {
					asked, rule = true, r.Rule
					return inner.Ask(ctx, r)
				})
			}
			ok, reason := tt.policy.Decide(context.Background(), tt.req)
			if diff := cmp.Diff(tt.want, want{ok, reason, asked, rule}); diff != "" {
				t.Errorf("Decide (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"": Ask, "ask": Ask, "auto": Auto, "read-only": ReadOnly, "sandboxed": Sandboxed} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseMode("yolo"); err == nil {
		t.Error(`ParseMode("yolo") succeeded`)
	}
}

func TestOffered(t *testing.T) {
	p := &Policy{Deny: list("mcp--web--*", "bash(rm *)", "glob")}
	for tool, want := range map[string]bool{"mcp--web--fetch": false, "glob": false, "bash": true, "mcp--gh--x": true} {
		if got := p.Offered(tool); got != want {
			t.Errorf("Offered(%q) = %v", tool, got)
		}
	}
}

func TestSession(t *testing.T) {
	s := &Session{Dir: "/p"}
	if s.Allows(bash("go test ./...")) {
		t.Fatal("an empty session allows")
	}
	if got := s.Always(bash("go test ./... -run X")).String(); got != "[bash(go test *)]" {
		t.Errorf("Always kept %s", got)
	}
	for script, want := range map[string]bool{"go test -race ./x": true, "go build": false, "go test ./... > out": false} {
		if got := s.Allows(bash(script)); got != want {
			t.Errorf("after always, %q allowed: %v", script, got)
		}
	}
	insist := bash("go test ./...")
	insist.Rule = "bash(go *)"
	if s.Allows(insist) {
		t.Error("a request a rule makes a question was allowed by the session")
	}
	if l := s.Always(bash("python3 - <<'EOF'\nimport os\nEOF")); l != nil {
		t.Errorf("a heredoc fed to an interpreter was remembered as %s", l)
	}
	s.Always(Request{Tool: "file_edit", Args: json.RawMessage(`{"file_path":"src/a/b.go"}`)})
	if !s.Allows(Request{Tool: "file_edit", Args: json.RawMessage(`{"file_path":"src/a/c/d.go"}`)}) ||
		s.Allows(Request{Tool: "file_edit", Args: json.RawMessage(`{"file_path":"src/x.go"}`)}) {
		t.Error("file_edit: always on src/a/b.go should allow src/a/** and nothing else")
	}
}
