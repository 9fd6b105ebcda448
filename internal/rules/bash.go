package rules

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A word is one word of a command as the shell will pass it.
type word struct {
	lit     string // its value, quotes and escapes removed, when fixed
	dynamic bool   // its value is known only when the script runs
	head    string // the fixed text it starts with
}

// A cmd is one simple command a script runs.
type cmd struct {
	words   []word // its name, then its arguments
	open    bool   // more arguments are added when it runs (xargs, find -exec)
	query   bool   // command -v: it runs nothing and needs no rule
	wrapper bool   // env, timeout, ...: what matters is the command it runs
	stdin   bool   // it reads a here-document, a file or a pipe
}

// An analysis is what a script runs, as far as can be seen before it runs.
type analysis struct {
	cmds []cmd
	// unsure says why allow rules cannot allow the script, whatever they
	// are; "" when they can.
	unsure string
	// hidden is set when the script may run code that cannot be seen here
	// (a command named at run time, an unparsable script): deny and ask
	// rules may match it.
	hidden bool
}

// maxDepth bounds scripts within scripts (sh -c '...') that are read.
const maxDepth = 4

// analyze reads a bash script.
func analyze(src string) *analysis {
	a := &analysis{}
	a.parse(src, 0)
	return a
}

func (a *analysis) doubt(why string) {
	if a.unsure == "" {
		a.unsure = why
	}
}

// conceal notes code that cannot be seen.
func (a *analysis) conceal(why string) {
	a.doubt(why)
	a.hidden = true
}

func (a *analysis) parse(src string, depth int) {
	if depth > maxDepth {
		a.conceal("it nests scripts too deep to follow")
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		a.conceal("the script does not parse")
		return
	}
	w := walker{a: a, depth: depth}
	w.stmts(f.Stmts, false)
}

type walker struct {
	a     *analysis
	depth int
}

func (w walker) stmts(list []*syntax.Stmt, piped bool) {
	for _, s := range list {
		w.stmt(s, piped)
	}
}

func (w walker) stmt(s *syntax.Stmt, piped bool) {
	a := w.a
	if s.Coprocess || s.Disown {
		a.doubt("it runs a coprocess")
	}
	stdin := piped
	for _, r := range s.Redirs {
		if w.redirect(r) {
			stdin = true
		}
	}
	switch c := s.Cmd.(type) {
	case nil: // redirections alone
	case *syntax.CallExpr:
		w.call(c, stdin)
	case *syntax.BinaryCmd:
		w.stmt(c.X, piped)
		w.stmt(c.Y, piped || c.Op == syntax.Pipe || c.Op == syntax.PipeAll)
	case *syntax.Block:
		w.stmts(c.Stmts, stdin)
	case *syntax.Subshell:
		w.stmts(c.Stmts, stdin)
	case *syntax.IfClause:
		for ; c != nil; c = c.Else {
			w.stmts(c.Cond, stdin)
			w.stmts(c.Then, stdin)
		}
	case *syntax.WhileClause:
		w.stmts(c.Cond, stdin)
		w.stmts(c.Do, stdin)
	case *syntax.ForClause:
		switch l := c.Loop.(type) {
		case *syntax.WordIter:
			w.variable(l.Name.Value, false)
			for _, item := range l.Items {
				w.word(item)
			}
		case *syntax.CStyleLoop:
			a.conceal("it does arithmetic, which bash can make run commands")
			w.arith(l.Init)
			w.arith(l.Cond)
			w.arith(l.Post)
		default:
			a.conceal("a loop the rules cannot read")
		}
		w.stmts(c.Do, stdin)
	case *syntax.CaseClause:
		w.word(c.Word)
		for _, item := range c.Items {
			for _, p := range item.Patterns {
				w.word(p)
			}
			w.stmts(item.Stmts, stdin)
		}
	case *syntax.FuncDecl:
		a.doubt("it defines a function")
		w.stmt(c.Body, false)
	case *syntax.ArithmCmd:
		a.conceal("it does arithmetic, which bash can make run commands")
		w.arith(c.X)
	case *syntax.LetClause:
		a.conceal("it does arithmetic, which bash can make run commands")
		for _, x := range c.Exprs {
			w.arith(x)
		}
	case *syntax.TestClause:
		w.test(c.X)
	case *syntax.DeclClause:
		w.decl(c)
	case *syntax.TimeClause:
		if c.Stmt != nil {
			w.stmt(c.Stmt, piped)
		}
	case *syntax.CoprocClause:
		a.doubt("it runs a coprocess")
		w.stmt(c.Stmt, false)
	default:
		a.conceal(fmt.Sprintf("a construct the rules cannot read (%T)", c))
	}
}

// harmless are the files output may be redirected to without writing any.
var harmless = []string{"/dev/null", "/dev/stdout", "/dev/stderr"}

// redirect checks a redirection and reports whether it gives the command
// its input.
func (w walker) redirect(r *syntax.Redirect) (input bool) {
	a := w.a
	if r.N != nil && strings.HasPrefix(r.N.Value, "{") {
		a.doubt("it redirects to a file descriptor named by a variable")
	}
	switch r.Op {
	case syntax.RdrIn:
		t := w.word(r.Word)
		if t.dynamic || strings.HasPrefix(t.lit, "/dev/tcp/") || strings.HasPrefix(t.lit, "/dev/udp/") {
			a.doubt("it redirects input from a place known only when it runs, or the network")
		}
		return true
	case syntax.Hdoc, syntax.DashHdoc:
		if r.Hdoc != nil {
			w.word(r.Hdoc) // an unquoted here-document expands $(...)
		}
		return true
	case syntax.WordHdoc:
		w.word(r.Word)
		return true
	case syntax.DplIn, syntax.DplOut:
		t := w.word(r.Word)
		if t.dynamic || t.lit != "-" && strings.Trim(t.lit, "0123456789") != "" {
			a.doubt("it redirects output to a file")
		}
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrInOut,
		syntax.RdrAll, syntax.AppAll, syntax.RdrAllClob, syntax.AppAllClob:
		t := w.word(r.Word)
		if t.dynamic || !slices.Contains(harmless, t.lit) {
			a.doubt("it redirects output to a file")
		}
	default:
		a.conceal("a redirection the rules cannot read")
	}
	return false
}

// word reads a word, noting what in it the rules cannot allow.
func (w walker) word(x *syntax.Word) word {
	var b strings.Builder
	dynamic := false
	head := 0
	for i, p := range x.Parts {
		w.part(p, &b, &dynamic, false, i == 0)
		if !dynamic {
			head = b.Len()
		}
	}
	return word{lit: b.String(), dynamic: dynamic, head: b.String()[:head]}
}

func (w walker) part(p syntax.WordPart, b *strings.Builder, dynamic *bool, quoted, first bool) {
	a := w.a
	switch p := p.(type) {
	case *syntax.Lit:
		if quoted {
			unescapeQuoted(p.Value, b)
		} else if unescape(p.Value, b, first) {
			*dynamic = true
		}
	case *syntax.SglQuoted:
		if p.Dollar {
			*dynamic = true // $'...': escapes this package does not decode
		}
		b.WriteString(p.Value)
	case *syntax.DblQuoted:
		if p.Dollar {
			*dynamic = true // $"...": translated
		}
		for _, q := range p.Parts {
			w.part(q, b, dynamic, true, false)
		}
	case *syntax.ParamExp:
		*dynamic = true
		w.param(p)
	case *syntax.CmdSubst:
		*dynamic = true
		if p.Backquotes {
			a.doubt("it runs a command in backticks")
		} else {
			a.doubt("it runs a command in $(...)")
		}
		w.stmts(p.Stmts, false)
	case *syntax.ArithmExp:
		*dynamic = true
		a.conceal("it does arithmetic, which bash can make run commands")
		w.arith(p.X)
	case *syntax.ProcSubst:
		*dynamic = true
		a.doubt("it runs a command in a process substitution")
		w.stmts(p.Stmts, false)
	case *syntax.ExtGlob:
		*dynamic = true
	default:
		*dynamic = true
		a.conceal(fmt.Sprintf("a word the rules cannot read (%T)", p))
	}
}

// unescape writes an unquoted literal with its backslashes removed, and
// reports whether the shell would expand it (a glob, braces, a tilde).
func unescape(v string, b *strings.Builder, first bool) (expands bool) {
	if v == "[" {
		b.WriteString(v) // the test command, not a glob
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\\' && i+1 < len(v) {
			i++
			if v[i] != '\n' {
				b.WriteByte(v[i])
			}
			continue
		}
		switch {
		case c == '*', c == '?', c == '[', c == '{':
			expands = true
		case c == '~' && i == 0 && first:
			expands = true
		}
		b.WriteByte(c)
	}
	return expands
}

// unescapeQuoted writes a literal from within double quotes, where a
// backslash escapes only $ ` " \ and a newline.
func unescapeQuoted(v string, b *strings.Builder) {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\\' && i+1 < len(v) && strings.IndexByte("$`\"\\\n", v[i+1]) >= 0 {
			i++
			if v[i] != '\n' {
				b.WriteByte(v[i])
			}
			continue
		}
		b.WriteByte(c)
	}
}

// param checks a parameter expansion. Those that evaluate a subscript, a
// name held in a variable, or a prompt string can run commands hidden in
// a variable's value (x='a[$(id)]'; echo ${!x}).
func (w walker) param(p *syntax.ParamExp) {
	a := w.a
	if p.Excl || p.Index != nil || p.Slice != nil || p.Names != 0 || p.NestedParam != nil ||
		p.Flags != nil || p.Width || p.IsSet || len(p.Modifiers) > 0 ||
		p.Split != syntax.OptUnset || p.GlobSubst != syntax.OptUnset || p.RcExpand != syntax.OptUnset {
		a.conceal("a ${...} expansion that can evaluate code")
	}
	if p.Index != nil {
		w.arith(p.Index)
	}
	if p.Slice != nil {
		w.arith(p.Slice.Offset)
		w.arith(p.Slice.Length)
	}
	if p.Repl != nil {
		if p.Repl.Orig != nil {
			w.word(p.Repl.Orig)
		}
		if p.Repl.With != nil {
			w.word(p.Repl.With)
		}
	}
	if p.Exp != nil {
		switch p.Exp.Op {
		case syntax.AssignUnset, syntax.AssignUnsetOrNull:
			a.doubt("a ${x:=...} expansion sets a variable")
		case syntax.OtherParamOps:
			a.conceal("a ${x@...} expansion, which can run commands")
		}
		if p.Exp.Word != nil {
			w.word(p.Exp.Word)
		}
	}
}

// arith walks an arithmetic expression for the commands in it.
func (w walker) arith(x syntax.ArithmExpr) {
	switch x := x.(type) {
	case nil:
	case *syntax.Word:
		w.word(x)
	case *syntax.BinaryArithm:
		w.arith(x.X)
		w.arith(x.Y)
	case *syntax.UnaryArithm:
		w.arith(x.X)
	case *syntax.ParenArithm:
		w.arith(x.X)
	case *syntax.FlagsArithm:
		w.arith(x.X)
	default:
		w.a.conceal("arithmetic the rules cannot read")
	}
}

// test reads a [[ ]] test. Its arithmetic comparisons and -v evaluate
// their operands as arithmetic, which can run commands.
func (w walker) test(x syntax.TestExpr) {
	switch x := x.(type) {
	case *syntax.BinaryTest:
		if x.Op >= syntax.TsEql && x.Op <= syntax.TsGtr {
			w.a.conceal("a [[ ]] comparison that does arithmetic, which bash can make run commands")
		}
		w.test(x.X)
		w.test(x.Y)
	case *syntax.UnaryTest:
		if x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar {
			w.a.conceal("a [[ -v ]] test, which can evaluate a subscript")
		}
		w.test(x.X)
	case *syntax.ParenTest:
		w.test(x.X)
	case *syntax.Word:
		w.word(x)
	default:
		w.a.conceal("a test the rules cannot read")
	}
}

// safeEnv lists the environment variables a command may be given
// (X=1 cmd, env X=1 cmd) and still match a rule: they change how a
// program reports or formats, not what it runs. Anything else (PATH,
// LD_PRELOAD, GOFLAGS=-toolexec=..., NODE_OPTIONS) can make an allowed
// command run other code.
var safeEnv = []string{
	"CI", "NODE_ENV", "DEBUG", "VERBOSE", "TZ", "TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR",
	"CLICOLOR", "CLICOLOR_FORCE", "COLUMNS", "LINES", "LANG", "LANGUAGE",
	"GOOS", "GOARCH", "CGO_ENABLED", "GO111MODULE", "GOMAXPROCS",
	"RUST_BACKTRACE", "RUST_LOG", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED",
}

func isSafeEnv(name string) bool {
	return slices.Contains(safeEnv, name) || strings.HasPrefix(name, "LC_")
}

// variable checks an assignment to a shell variable: env says it goes
// into a command's environment. A shell variable may have any name with
// a lowercase letter (environment variables are upper case); one in
// capitals could be an exported variable such as PATH.
func (w walker) variable(name string, env bool) {
	switch {
	case isSafeEnv(name):
	case env:
		w.a.doubt(fmt.Sprintf("it gives a command the variable %s", name))
	case strings.ToUpper(name) == name:
		w.a.doubt(fmt.Sprintf("it sets %s, which may be an environment variable", name))
	}
}

func (w walker) assign(as *syntax.Assign, env bool) {
	if as.Name == nil {
		w.a.conceal("an assignment the rules cannot read")
	} else {
		w.variable(as.Name.Value, env)
	}
	if as.Index != nil {
		w.a.conceal("an array subscript, which bash evaluates as arithmetic")
		w.arith(as.Index)
	}
	if as.Value != nil {
		w.word(as.Value)
	}
	if as.Array != nil {
		for _, e := range as.Array.Elems {
			if e.Index != nil {
				w.a.conceal("an array subscript, which bash evaluates as arithmetic")
				w.arith(e.Index)
			}
			if e.Value != nil {
				w.word(e.Value)
			}
		}
	}
}

// decl reads export, local, readonly (and declare, typeset, nameref,
// whose options can make later assignments evaluate arithmetic).
func (w walker) decl(d *syntax.DeclClause) {
	variant := d.Variant.Value
	if variant != "export" && variant != "local" && variant != "readonly" {
		w.a.conceal(variant + " can make variables evaluate code")
	}
	env := variant == "export"
	for _, as := range d.Args {
		switch {
		case as.Naked && as.Name != nil && as.Index == nil:
			w.variable(as.Name.Value, env)
		case as.Naked:
			w.a.doubt(variant + " with options or names known only when it runs")
			if as.Value != nil {
				w.word(as.Value)
			}
			if as.Index != nil {
				w.a.conceal("an array subscript, which bash evaluates as arithmetic")
				w.arith(as.Index)
			}
		default:
			w.assign(as, env)
		}
	}
}

func (w walker) call(c *syntax.CallExpr, stdin bool) {
	if len(c.Args) == 0 {
		for _, as := range c.Assigns {
			w.assign(as, false)
		}
		return
	}
	for _, as := range c.Assigns {
		w.assign(as, true)
	}
	words := make([]word, len(c.Args))
	for i, x := range c.Args {
		words[i] = w.word(x)
	}
	w.command(words, stdin, false)
}

// parseCommand reads a bash rule's pattern: words, as the shell would
// split and unquote them, the last of which may be * (any further words;
// a final :*, as in Claude Code's npm run test:*, means the same).
func parseCommand(p string) (words []string, tail bool, err error) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(p), "")
	if err != nil {
		return nil, false, fmt.Errorf("the pattern does not parse as a command: %v", err)
	}
	if len(f.Stmts) != 1 {
		return nil, false, errors.New("a bash rule is one command; write a rule for each")
	}
	s := f.Stmts[0]
	c, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || s.Negated || s.Background || s.Coprocess || s.Disown || len(s.Redirs) > 0 {
		return nil, false, errors.New("a bash rule is one simple command, without redirections, pipes or operators")
	}
	if len(c.Assigns) > 0 {
		return nil, false, errors.New("a bash rule cannot set variables; X=1 before a command is allowed for the variables docs/config.md lists")
	}
	a := &analysis{}
	wk := walker{a: a}
	for i, x := range c.Args {
		if i == len(c.Args)-1 {
			if lit := x.Lit(); lit == "*" {
				return words, true, nil
			} else if before, ok := strings.CutSuffix(lit, ":*"); ok && before != "" && !strings.ContainsAny(before, `*?[{~\`) {
				return append(words, before), true, nil
			}
		}
		v := wk.word(x)
		if v.dynamic || a.unsure != "" {
			return nil, false, fmt.Errorf("word %d holds something the shell expands ($, *, ?, [, {, ~ or quotes with $); quote it to mean it literally, and write * alone as the last word for any further words", i+1)
		}
		words = append(words, v.lit)
	}
	if len(words) == 0 {
		return nil, false, errors.New("a bash rule names a command")
	}
	return words, false, nil
}

// allowedBy reports whether rules allow every command of the script.
func (a *analysis) allowedBy(rs List) bool {
	if a.unsure != "" {
		return false
	}
	for _, c := range a.cmds {
		if c.query || c.wrapper {
			continue
		}
		if !slices.ContainsFunc(rs, func(r Rule) bool { return r.allowsCmd(c) }) {
			return false
		}
	}
	return true
}

// allowsCmd matches a command against an allow rule: the rule's words
// are the command's first words, exactly, and the command has no other
// words unless the rule ends in *.
func (r Rule) allowsCmd(c cmd) bool {
	if r.kind != command || len(c.words) < len(r.words) || !r.tail && (len(c.words) != len(r.words) || c.open) {
		return false
	}
	for i, w := range r.words {
		if c.words[i].dynamic || c.words[i].lit != w {
			return false
		}
	}
	return true
}

// matchedBy reports whether a deny or ask rule matches a command of the
// script; hidden code makes it a Maybe.
func (a *analysis) matchedBy(rs List) (Verdict, Rule) {
	best, which := No, Rule{}
	for _, c := range a.cmds {
		for _, r := range rs {
			switch r.matchCmd(c) {
			case Yes:
				return Yes, r
			case Maybe:
				if best == No {
					best, which = Maybe, r
				}
			}
		}
	}
	if best == No && a.hidden && len(rs) > 0 {
		return Maybe, rs[0]
	}
	return best, which
}

// matchCmd matches a command against a deny or ask rule, which errs on
// the side of matching: the command's name, or its base name, is the
// rule's first word, and the rule's other words are among its arguments,
// in order (so that git -C dir push still matches git push). Whether the
// rule ends in * makes no difference.
func (r Rule) matchCmd(c cmd) Verdict {
	if r.kind != command {
		return No
	}
	if len(r.words) == 0 {
		return Yes
	}
	name := c.words[0]
	if name.dynamic {
		return Maybe
	}
	if name.lit != r.words[0] && path.Base(name.lit) != r.words[0] {
		return No
	}
	j, unknown := 1, c.open
	for _, w := range c.words[1:] {
		if j == len(r.words) {
			break
		}
		if w.dynamic {
			unknown = true
			continue
		}
		if w.lit == r.words[j] {
			j++
		}
	}
	switch {
	case j == len(r.words):
		return Yes
	case unknown:
		return Maybe
	}
	return No
}
