package rules

import (
	"encoding/json"
	"testing"
)

func bashCall(script string) Call {
	args, _ := json.Marshal(map[string]string{"command": script})
	return Call{Tool: "bash", Args: args, Dir: "/work/proj"}
}

func list(rules ...string) List {
	var l List
	for _, r := range rules {
		l = append(l, MustParse(r))
	}
	return l
}

// outcome is what the rules alone make of a script: deny wins, a command
// that might be denied asks, and what the allow rules cover runs.
func outcome(allow, deny List, script string) string {
	c := bashCall(script)
	switch v, _ := deny.Match(c); v {
	case Yes:
		return "deny"
	case Maybe:
		return "ask"
	}
	if allow.Allows(c) {
		return "allow"
	}
	return "ask"
}

func TestScripts(t *testing.T) {
	allow := list(tableAllow...)
	deny := list(tableDeny...)
	tests := scriptTable
	if len(tests) < 60 {
		t.Fatalf("only %d scripts", len(tests))
	}
	for _, tt := range tests {
		if got := outcome(allow, deny, tt.script); got != tt.want {
			a := analyze(tt.script)
			t.Errorf("%q: %s, want %s (unsure: %q, hidden: %v)", tt.script, got, tt.want, a.unsure, a.hidden)
		}
	}
}

var tableAllow = []string{
	"bash(git status)", "bash(git diff *)", "bash(git log *)", "bash(go test *)", "bash(go vet *)",
	"bash(ls *)", "bash(cat *)", "bash(grep *)", "bash(echo *)", "bash(wc *)", "bash(head *)",
	"bash(npm run test:*)", "bash(cd *)", "bash(find *)", "bash(gofmt -l *)", "bash(test *)", "bash([ *)",
	"bash(rm -rf build)", "bash(unset *)", "bash(read *)", "bash(printf *)",
}

var tableDeny = []string{"bash(rm *)", "bash(git push *)"}

// scriptTable is what the rules above make of each script.
var scriptTable = []struct{ script, want string }{
	// simple commands, exact and prefix rules
	{"git status", "allow"},
	{"git status --short", "ask"},
	{"git diff", "allow"},
	{"git diff HEAD~1 -- a.go", "allow"},
	{"git   diff\t--stat", "allow"},
	{"go test ./... -run 'TestX$'", "allow"},
	{"go build ./...", "ask"},
	{"/bin/ls", "ask"},
	{"npm run test", "allow"},
	{"npm run test -- --watch", "allow"},
	{"npm run test:unit", "ask"},
	{"npm run build", "ask"},
	// chains, pipes, subshells, blocks
	{"go test ./... && go vet ./...", "allow"},
	{"go test ./... || echo failed", "allow"},
	{"go test ./...; git status", "allow"},
	{"go test ./...\ngit status\n", "allow"},
	{"go test ./... && go build", "ask"},
	{"ls -la | grep foo | wc -l", "allow"},
	{"cat go.mod | head -5", "allow"},
	{"(cd internal && go test ./...)", "allow"},
	{"{ ls; echo done; }", "allow"},
	{"! grep -q foo go.mod", "allow"},
	{"nohup go test ./... &", "allow"},
	{"if [ -f go.mod ]; then go test ./...; else echo none; fi", "allow"},
	{"while read -r l; do echo \"$l\"; done < files.txt", "allow"},
	{"for f in *.go; do gofmt -l \"$f\"; done", "allow"},
	{"case $1 in a) ls;; *) echo no;; esac", "allow"},
	{"[[ -f go.mod ]] && go test ./...", "allow"},
	{"ls | sh", "ask"},
	{"cat install.sh | bash -s", "ask"},
	{"go test ./... | tee out.log", "ask"},
	// redirections
	{"ls > files.txt", "ask"},
	{"ls >> files.txt", "ask"},
	{"ls 2>/tmp/err", "ask"},
	{"(ls; echo) > out", "ask"},
	{"exec 3>out.txt", "ask"},
	{"go test ./... > /dev/null 2>&1", "allow"},
	{"ls &> /dev/null", "allow"},
	{"echo hi >/dev/stderr", "allow"},
	{"ls 2>&1 >&2", "allow"},
	{"cat < /dev/tcp/example.com/80", "ask"},
	// here-documents and here-strings
	{"cat <<'EOF'\nhello $(rm -rf /)\nEOF", "allow"},
	{"cat <<EOF\nhello $(date)\nEOF", "ask"},
	{"cat <<EOF\nhello $(rm -rf /)\nEOF", "deny"},
	{"cat <<EOF > out.txt\nhi\nEOF", "ask"},
	{"grep foo <<< 'a foo b'", "allow"},
	{"python3 - <<'EOF'\nprint(1)\nEOF", "ask"},
	// quoting and escapes
	{`grep -r "foo;bar" .`, "allow"},
	{"echo 'a && rm -rf /'", "allow"},
	{`g\it status`, "allow"},
	{`'git' "status"`, "allow"},
	{"echo ok # rm -rf /", "allow"},
	{"ls \\\n  -la", "allow"},
	{"echo {a,b}", "allow"},
	{"ls -la ~/", "allow"},
	// substitutions
	{"echo $(date)", "ask"},
	{"echo `date`", "ask"},
	{"echo $(rm -rf /)", "deny"},
	{`echo "$(rm -rf /)"`, "deny"},
	{"cat <(ls)", "ask"},
	{"git commit -m \"$(cat msg.txt)\"", "ask"},
	{"echo $((1+2))", "ask"},
	// things run in ways the rules cannot follow
	{"eval ls", "ask"},
	{`eval "rm -rf /"`, "deny"},
	{"sh -c 'ls'", "ask"},
	{`bash -c "rm -rf ~"`, "deny"},
	{"bash -lc 'git push'", "deny"},
	{"sudo ls", "ask"},
	{"sudo -u root rm -rf /", "deny"},
	{"f() { ls; }; f", "ask"},
	{"source ./env.sh && ls", "ask"},
	{"coproc ls", "ask"},
	{"trap 'rm -rf /tmp/x' EXIT", "deny"},
	{"ls &&", "ask"},
	// commands named at run time
	{"$CMD status", "ask"},
	{"~/bin/tool", "ask"},
	{"git $sub", "ask"},
	{"git {status,push}", "ask"},
	// deny wins, and looks everywhere
	{"rm -rf build", "deny"},
	{"ls; rm -rf build", "deny"},
	{"/bin/rm -rf x", "deny"},
	{"git push origin main", "deny"},
	{"git -C . push", "deny"},
	{"git $x push", "deny"},
	{"ls | xargs rm", "deny"},
	{"find . -name '*.tmp' -exec rm {} +", "deny"},
	{"command rm -rf /", "deny"},
	{"timeout 5 rm x", "deny"},
	{"env -S 'rm -rf /'", "ask"},
	// env, assignments, command -v
	{"FOO=1 ls", "ask"},
	{"CI=1 go test ./...", "allow"},
	{"env CGO_ENABLED=0 GOOS=linux go test ./...", "allow"},
	{"env PATH=/tmp/evil:$PATH git status", "ask"},
	{"env -i ls", "allow"},
	{"PATH=./bin:$PATH; git status", "ask"},
	{"LD_PRELOAD=./x.so ls", "ask"},
	{"dir=internal; ls $dir", "allow"},
	{"for PATH in /tmp; do ls; done", "ask"},
	{"export GOOS=linux && go test ./...", "allow"},
	{"export PATH=/x:$PATH && go test ./...", "ask"},
	{"declare -i x=1", "ask"},
	{"command -v go", "allow"},
	{"command -v go && go test ./...", "allow"},
	{"command go test ./...", "allow"},
	{"time go test ./...", "allow"},
	{"timeout 60 go test ./...", "allow"},
	{"timeout --weird 60 go test ./...", "ask"},
	{"env -i -u HOME CI=1 timeout -k 1 5 nice -n 3 go test ./...", "allow"},
	{"nice -10 go test ./...", "allow"},
	{"bash -c \"sh -c 'eval rm -rf /'\"", "deny"},
	// wrappers that run commands
	{"find . -name '*.go' | xargs grep TODO", "allow"},
	{"find . -name '*.go' -exec gofmt -l {} +", "allow"},
	{"find . -name '*.go' -exec gofmt -w {} +", "ask"},
	{"xargs -I{} sh -c 'rm {}'", "ask"},
	// bash evaluates subscripts in these, which can run commands
	{"x='a[$(id)]'; echo ${!x}", "ask"},
	{"unset 'a[$(id)]'", "ask"},
	{"unset x", "allow"},
	{"read -r 'a[$(id)]'", "ask"},
	{"read -r PATH < paths.txt; git status", "ask"},
	{"read -r line < paths.txt; echo $line", "allow"},
	{"printf -v 'a[$(id)]' x", "ask"},
	{"printf '%s\\n' x", "allow"},
	{"[[ $n -eq 1 ]] && ls", "ask"},
	{"test -v 'a[$(id)]'", "ask"},
	{"x=1; echo ${x@P}", "ask"},
}

func TestWholeScriptRules(t *testing.T) {
	any := list("bash(*)")
	for script, want := range map[string]bool{
		"go build ./... && ./app": true,
		"rm -rf /":                true,
		"ls > out":                false,
		"sh -c ls":                false,
	} {
		if got := any.Allows(bashCall(script)); got != want {
			t.Errorf("bash(*) allows %q: %v, want %v", script, got, want)
		}
	}
	if !list("bash").Allows(bashCall("sh -c 'anything' > out")) {
		t.Error("bash alone does not allow everything")
	}
	if v, _ := list("bash(*)").Match(bashCall("ls")); v != Yes {
		t.Errorf("deny bash(*) on ls: %v", v)
	}
}

func TestMaybeNamesTheRule(t *testing.T) {
	deny := list("bash(curl *)", "bash(git push *)")
	v, r := deny.Match(bashCall("git $sub origin"))
	if v != Maybe || r.String() != "bash(git push *)" {
		t.Errorf("got %v %s", v, r)
	}
	v, r = deny.Match(bashCall("eval \"$x\""))
	if v != Maybe || r.String() != "bash(curl *)" {
		t.Errorf("hidden code: got %v %s", v, r)
	}
	if v, _ := deny.Match(bashCall("ls $x")); v != No {
		t.Errorf("ls $x: %v", v)
	}
}
