package rules

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzParse checks that any rule that parses is written back as it was
// read, and reads again the same.
func FuzzParse(f *testing.F) {
	for _, s := range append(append([]string{}, tableAllow...), tableDeny...) {
		f.Add(s)
	}
	for _, s := range []string{"mcp--a--*", "file_write(src/**)", "web_fetch(domain:go.dev)", "x(k:v*)", `bash(echo '*' \*)`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := Parse(s)
		if err != nil {
			return
		}
		if r.String() != s {
			t.Fatalf("Parse(%q).String() = %q", s, r.String())
		}
		again, err := Parse(r.String())
		if err != nil {
			t.Fatalf("Parse(%q) failed on its own String: %v", s, err)
		}
		if diff := cmp.Diff(r, again, cmp.AllowUnexported(Rule{})); diff != "" {
			t.Fatalf("Parse(%q) twice (-first +second):\n%s", s, diff)
		}
	})
}

// FuzzBash checks the bash matcher against a script and a rule pattern:
// it does not panic, what allow rules allow hides no code, a rule that
// allows a command also matches it as a deny rule, and what Suggest
// offers allows the script and parses again.
func FuzzBash(f *testing.F) {
	for _, tt := range scriptTable {
		f.Add(tt.script, "go test *")
	}
	f.Add("a=(1 2); for ((i=0;i<2;i++)); do echo ${a[i]}; done", "echo *")
	f.Add("cat <<-EOF | sh\n\tls\n\tEOF", "cat *")
	f.Fuzz(func(t *testing.T, src, pattern string) {
		c := bashCall(src)
		script, _ := script(c.Args) // as JSON carries it: invalid UTF-8 replaced
		a := analyze(script)
		var rules List
		if r, err := Parse("bash(" + pattern + ")"); err == nil {
			rules = List{r}
		}
		allowed := rules.Allows(c)
		v, _ := rules.Match(c)
		if allowed && a.hidden {
			t.Fatalf("%q allowed by %v though it hides code (%s)", script, rules, a.unsure)
		}
		ruled := 0 // commands that need a rule
		for _, c := range a.cmds {
			if !c.query && !c.wrapper {
				ruled++
			}
		}
		if allowed && ruled > 0 && v != Yes {
			t.Fatalf("%q allowed by %v, which as a deny rule says %v", script, rules, v)
		}
		if list("bash(*)").Allows(c) != (a.unsure == "") {
			t.Fatalf("%q: bash(*) allows it, yet it is unsure (%q), or the reverse", script, a.unsure)
		}
		for _, r := range Suggest(c) {
			again, err := Parse(r.String())
			if err != nil || !cmp.Equal(r, again, cmp.AllowUnexported(Rule{})) {
				t.Fatalf("Suggest(%q) gave %s, which reads back as %v (%v)", script, r, again, err)
			}
			if v, _ := (List{r}).Match(c); v != Yes {
				t.Fatalf("Suggest(%q) gave %s, which as a deny rule says %v", script, r, v)
			}
		}
	})
}
