package rules

import (
	"path"
	"slices"
	"strings"
)

// shells are the programs that run a script the rules would have to read.
var shells = []string{"sh", "bash", "zsh", "dash", "ksh", "mksh", "pdksh", "ash", "yash", "posh", "fish", "csh", "tcsh", "rbash", "busybox"}

// asOther are the programs that run a command as another user.
var asOther = []string{"sudo", "doas", "su", "pkexec", "run0"}

// A wrapper runs the command in its arguments; its options are listed so
// that the command can be found.
type wrapper struct {
	flags  []string // options alone
	values []string // options followed by a value (-n 5, -n5, --max-args=5)
	arg    bool     // a positional argument comes before the command (timeout's duration)
	open   bool     // the command gets more arguments when it runs
	none   bool     // without a command it runs nothing
}

var wrappers = map[string]wrapper{
	"builtin": {},
	"exec":    {flags: []string{"-c", "-l"}, values: []string{"-a"}, none: true},
	"nohup":   {},
	"nice":    {values: []string{"-n", "--adjustment"}},
	"timeout": {flags: []string{"--preserve-status", "--foreground", "-v", "--verbose"}, values: []string{"-k", "--kill-after", "-s", "--signal"}, arg: true},
	"time":    {flags: []string{"-p", "-v", "--portability", "--verbose"}},
	"xargs": {
		flags:  []string{"-0", "--null", "-r", "--no-run-if-empty", "-t", "--verbose", "-x", "--exit", "-p", "--interactive"},
		values: []string{"-n", "--max-args", "-L", "--max-lines", "-P", "--max-procs", "-s", "--max-chars", "-d", "--delimiter", "-E", "-a", "--arg-file"},
		open:   true,
	},
	// sudo and its kind are followed only for deny and ask rules: allow
	// rules never match them.
	"sudo":   {flags: []string{"-E", "-H", "-n", "-S", "-b", "-k", "-P", "-A", "-i", "-s"}, values: []string{"-u", "--user", "-g", "--group", "-h", "--host", "-p", "--prompt", "-C", "-D", "--chdir", "-r", "-t", "-T", "-U"}},
	"doas":   {flags: []string{"-n", "-s"}, values: []string{"-u", "-C"}},
	"pkexec": {flags: []string{"--disable-internal-agent", "--keep-cwd"}, values: []string{"--user"}},
	"run0":   {values: []string{"-u", "--user", "-g", "--group", "--chdir", "-D"}},
}

// watch runs its command through sh -c.
var watch = wrapper{
	flags:  []string{"-b", "--beep", "-c", "--color", "-C", "--no-color", "-e", "--errexit", "-g", "--chgexit", "-p", "--precise", "-t", "--no-title", "-w", "--no-wrap", "-x", "--exec", "-d", "--differences"},
	values: []string{"-n", "--interval", "-q", "--equexit"},
}

func isWrapper(name string) bool {
	_, ok := wrappers[name]
	return ok
}

// skip returns the index of the command a wrapper runs, past its options.
func (wr wrapper) skip(ws []word) (int, bool) {
	i := 1
	for ; i < len(ws); i++ {
		w := ws[i]
		if w.dynamic {
			return 0, false
		}
		if w.lit == "--" {
			i++
			break
		}
		if !strings.HasPrefix(w.lit, "-") || w.lit == "-" {
			break
		}
		switch {
		case slices.Contains(wr.flags, w.lit):
		case slices.Contains(wr.values, w.lit):
			i++
		case slices.ContainsFunc(wr.values, func(v string) bool {
			return strings.HasPrefix(v, "--") && strings.HasPrefix(w.lit, v+"=") ||
				!strings.HasPrefix(v, "--") && strings.HasPrefix(w.lit, v)
		}):
		case wr.values != nil && slices.Contains(wr.values, "-n") && strings.Trim(w.lit[1:], "0123456789") == "":
			// nice -10
		default:
			return 0, false
		}
	}
	if wr.arg {
		if i >= len(ws) {
			return 0, false
		}
		i++
	}
	return i, true
}

// command reads one simple command: its name and arguments, quotes
// removed. Wrappers (env, timeout, xargs, ...) are looked through to the
// command they run.
func (w walker) command(ws []word, stdin, open bool) {
	a := w.a
	here := cmd{words: ws, stdin: stdin, open: open}
	name := ws[0]
	if name.dynamic {
		a.conceal("the command's name is known only when it runs")
		a.cmds = append(a.cmds, here)
		return
	}
	base := path.Base(name.lit)
	args := ws[1:]
	switch {
	case slices.Contains(shells, base):
		a.doubt("it runs a shell, whose script the rules cannot check")
		w.shell(args)
	case base == "eval":
		a.doubt("it runs eval")
		w.script(args)
	case base == "source" || base == ".":
		a.conceal("it runs a script file")
	case base == "trap":
		a.doubt("it sets a trap, which runs code later")
		if len(args) > 0 {
			w.script(args[:1])
		}
	case base == "watch":
		a.doubt("it runs watch, which runs its command through a shell")
		if i, ok := watch.skip(ws); ok && i < len(ws) {
			w.script(ws[i:])
		} else {
			a.conceal("watch with options the rules cannot follow")
		}
	case base == "su":
		a.doubt("it runs a command as another user")
		if i := slices.IndexFunc(args, func(x word) bool { return x.lit == "-c" }); i >= 0 && i+1 < len(args) {
			w.script(args[i+1 : i+2])
		} else {
			a.conceal("su runs a shell")
		}
	case base == "env":
		if w.env(here) {
			return
		}
	case base == "command":
		if w.commandBuiltin(here) {
			return
		}
	case isWrapper(base):
		if slices.Contains(asOther, base) {
			a.doubt("it runs a command as another user")
		}
		wr := wrappers[base]
		i, ok := wr.skip(ws)
		switch {
		case !ok:
			a.conceal(base + " with options the rules cannot follow")
		case i < len(ws):
			here.wrapper = true
			a.cmds = append(a.cmds, here)
			w.command(ws[i:], stdin, open || wr.open)
			return
		case wr.none:
			return // exec with redirections alone
		}
	case base == "find":
		w.find(ws)
	}
	w.builtinNames(base, args)
	a.cmds = append(a.cmds, here)
}

// env looks through env [-i] [-u NAME] [--] [NAME=VALUE]... COMMAND; it
// reports whether it did.
func (w walker) env(here cmd) bool {
	ws := here.words
	i := 1
options:
	for ; i < len(ws); i++ {
		v := ws[i].lit
		switch {
		case ws[i].dynamic:
			break options
		case v == "-i", v == "-", v == "--ignore-environment":
		case v == "-u", v == "--unset", v == "-C", v == "--chdir":
			i++
		case strings.HasPrefix(v, "--unset="), strings.HasPrefix(v, "--chdir="),
			strings.HasPrefix(v, "-u"), strings.HasPrefix(v, "-C"):
		case v == "--":
			i++
			break options
		case strings.HasPrefix(v, "-"):
			w.a.conceal("env with options the rules cannot follow (" + v + ")")
			return false
		default:
			break options
		}
	}
	for ; i < len(ws); i++ {
		name, _, ok := strings.Cut(ws[i].head, "=")
		if !ok || !isName(name) {
			if ws[i].dynamic {
				w.a.conceal("env with a word known only when it runs")
				return false
			}
			break
		}
		w.variable(name, true)
	}
	if i >= len(ws) {
		return false // env alone prints the environment
	}
	here.wrapper = true
	w.a.cmds = append(w.a.cmds, here)
	w.command(ws[i:], here.stdin, here.open)
	return true
}

// commandBuiltin reads command [-p] COMMAND, which runs it, and
// command -v/-V NAME..., which only says what the names are; it reports
// whether it dealt with the command.
func (w walker) commandBuiltin(here cmd) bool {
	ws := here.words
	i := 1
	query := false
options:
	for ; i < len(ws); i++ {
		x := ws[i]
		if x.dynamic || !strings.HasPrefix(x.lit, "-") || x.lit == "-" {
			break
		}
		switch x.lit {
		case "-p":
		case "-v", "-V", "-pv", "-pV", "-vp", "-Vp":
			query = true
		case "--":
			i++
			break options
		default:
			w.a.conceal("command with options the rules cannot follow")
			return false
		}
	}
	if i >= len(ws) {
		return false
	}
	if query {
		here.query = true
		w.a.cmds = append(w.a.cmds, here)
		return true
	}
	here.wrapper = true
	w.a.cmds = append(w.a.cmds, here)
	w.command(ws[i:], here.stdin, here.open)
	return true
}

func isName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	return strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == ""
}

// find reads the commands find runs: -exec COMMAND ... ; and the like.
func (w walker) find(ws []word) {
	for i := 1; i < len(ws); i++ {
		switch ws[i].lit {
		case "-exec", "-execdir", "-ok", "-okdir":
		default:
			continue
		}
		end := slices.IndexFunc(ws[i+1:], func(x word) bool { return !x.dynamic && (x.lit == ";" || x.lit == "+") })
		if end <= 0 {
			w.a.conceal("find -exec whose command the rules cannot find")
			return
		}
		w.command(ws[i+1:i+1+end], false, true)
		i += end + 1
	}
}

// shell reads the script of sh -c SCRIPT, for deny and ask rules.
func (w walker) shell(args []word) {
	c := false
	for i, x := range args {
		switch {
		case x.dynamic:
			w.a.conceal("a shell whose script is known only when it runs")
			return
		case strings.HasPrefix(x.lit, "-") && !strings.HasPrefix(x.lit, "--"):
			c = c || strings.Contains(x.lit, "c")
		case strings.HasPrefix(x.lit, "--"):
		case c:
			w.script(args[i : i+1])
			return
		default:
			w.a.conceal("a shell that runs a script file")
			return
		}
	}
	w.a.conceal("a shell that reads its script from its input")
}

// script reads words that will be run as a script (eval's, sh -c's).
func (w walker) script(args []word) {
	var parts []string
	for _, x := range args {
		if x.dynamic {
			w.a.conceal("a script known only when it runs")
			return
		}
		parts = append(parts, x.lit)
	}
	w.a.parse(strings.Join(parts, " "), w.depth+1)
}

// builtinNames guards against bash's builtins that take a variable's name
// and evaluate a subscript in it: unset 'a[$(id)]' runs id, and so does
// read with a name held in a variable.
func (w walker) builtinNames(base string, args []word) {
	// hasOption reports whether an option among the leading ones starts
	// with flag (or might).
	hasOption := func(flag string) bool {
		for _, x := range args {
			switch {
			case x.dynamic:
				return true
			case !strings.HasPrefix(x.lit, "-"):
				return false
			case strings.HasPrefix(x.lit, flag):
				return true
			}
		}
		return false
	}
	switch base {
	case "unset", "read", "mapfile", "readarray", "getopts":
		if slices.ContainsFunc(args, func(x word) bool { return x.dynamic || strings.Contains(x.lit, "[") }) {
			w.a.conceal(base + " with a subscript, which bash evaluates as arithmetic")
		}
		if base != "unset" {
			// They set the variables they name, as an assignment would.
			for _, x := range args {
				if isName(x.lit) {
					w.variable(x.lit, false)
				}
			}
		}
	case "printf":
		if hasOption("-v") {
			w.a.conceal("printf -v, which can evaluate a subscript")
		}
	case "wait":
		if hasOption("-p") {
			w.a.conceal("wait -p, which can evaluate a subscript")
		}
	case "test", "[":
		if slices.ContainsFunc(args, func(x word) bool { return x.lit == "-v" || x.lit == "-R" }) {
			w.a.conceal(base + " -v, which can evaluate a subscript")
		}
	case "declare", "typeset", "local", "export", "readonly", "let", "nameref":
		w.a.conceal(base + " can make variables evaluate code")
	}
}
