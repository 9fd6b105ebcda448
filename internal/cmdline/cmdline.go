// Package cmdline reads ikigai's command line the way users type it:
// flags anywhere, "--" to end them, and a word that looks like a mistyped
// command caught before it goes to the model as a prompt.
package cmdline

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ikigai-tools/ikigai/internal/lazyregexp"
	"github.com/urfave/cli/v2"
)

// CompletionFlag is what the shell completion scripts add to the words
// typed so far.
const CompletionFlag = "--generate-bash-completion"

// PromptMark leads the root command's arguments when they are a prompt the
// user set apart with --, so that a prompt whose first word is a command's
// name ("ikigai -- sessions") is not taken for that command: the root
// action drops it (see Prompt).
const PromptMark = ""

// Arrange reorders a command line so that every flag comes before the
// arguments of the command it belongs to, which is where the command line
// library looks for them: users type flags anywhere ("ikigai -p 'fix it'
// --yes", "ikigai tools check FILE --args '{}'"). A flag goes to the
// nearest command on the path that has it, so a root flag may follow a
// subcommand; an unknown flag stays with the command it follows, which
// reports it. "--" ends the flags: what follows is arguments, even when it
// starts with "-". Each command's arguments come after a "--" of their own.
// A flag that needs a value and ends the line ends the arranged line too,
// so that the library reports the missing value rather than taking the
// next command's name or that "--" for it.
func Arrange(app *cli.App, args []string) []string {
	if len(args) == 0 || slices.Contains(args, CompletionFlag) {
		return args
	}
	type level struct {
		flags    []cli.Flag
		cmds     []*cli.Command
		name     string
		flagArgs []string
		posArgs  []string
	}
	help := []cli.Flag{cli.HelpFlag}
	root := &level{flags: append(slices.Clone(app.Flags), help...), cmds: app.Commands}
	if app.Version != "" {
		root.flags = append(root.flags, cli.VersionFlag)
	}
	path := []*level{root}
	dashes := false     // the user's "--" was seen
	var dangling *level // the level of a last flag missing its value
	for i := 1; i < len(args); i++ {
		arg, cur := args[i], path[len(path)-1]
		switch {
		case dashes:
			cur.posArgs = append(cur.posArgs, arg)
		case arg == "--":
			dashes = true
			if len(cur.posArgs) == 0 && cur == root {
				cur.posArgs = append(cur.posArgs, PromptMark)
			}
		case len(arg) > 1 && arg[0] == '-':
			name, _, hasValue := strings.Cut(strings.TrimLeft(arg, "-"), "=")
			owner, f := cur, cli.Flag(nil)
			for j := len(path) - 1; j >= 0 && f == nil; j-- {
				if f = findFlag(path[j].flags, name); f != nil {
					owner = path[j]
				}
			}
			owner.flagArgs = append(owner.flagArgs, arg)
			switch {
			case f == nil || hasValue || !takesValue(f):
			case i+1 < len(args):
				i++
				owner.flagArgs = append(owner.flagArgs, args[i])
			default:
				dangling = owner
			}
		default:
			// The first argument that names a subcommand, before any other
			// argument, starts it.
			if len(cur.posArgs) == 0 {
				if cmd := findCommand(cur.cmds, arg); cmd != nil {
					flags := append(slices.Clone(cmd.Flags), help...)
					path = append(path, &level{flags: flags, cmds: cmd.Subcommands, name: arg})
					continue
				}
			}
			cur.posArgs = append(cur.posArgs, arg)
		}
	}
	out := []string{args[0]}
	for i, l := range path {
		if i > 0 {
			out = append(out, l.name)
		}
		out = append(out, l.flagArgs...)
		if l == dangling {
			break // its last flag, missing its value, ends the line
		}
		// Only the last command can have arguments: a subcommand starts
		// only before any.
		if len(l.posArgs) > 0 {
			out = append(append(out, "--"), l.posArgs...)
		}
	}
	return out
}

func findFlag(flags []cli.Flag, name string) cli.Flag {
	for _, f := range flags {
		if slices.Contains(f.Names(), name) {
			return f
		}
	}
	return nil
}

func takesValue(f cli.Flag) bool {
	d, ok := f.(cli.DocGenerationFlag)
	return ok && d.TakesValue()
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

// commandWord is what a mistyped command can look like.
var commandWord = lazyregexp.New(`^[a-z][a-z-]*$`)

// Suggest returns the command that a single word given to the root
// command was most likely meant to be, as git does: a word within two
// edits (a swap of neighbours counts as one) of a command's name, and
// fewer edits than half its length, so that short prompts ("hi") are
// never taken for a command. help is left out: "hello" is a prompt.
func Suggest(cmds []*cli.Command, word string) string {
	if !commandWord().MatchString(word) {
		return ""
	}
	best, bestDist := "", 3
	for _, c := range cmds {
		if c.Name == "help" || c.Hidden {
			continue
		}
		if d := editDistance(word, c.Name); d < bestDist && 2*d < len(word) {
			best, bestDist = c.Name, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and swaps of neighbours.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// Prompt returns the words of the root command's arguments, and whether
// the user set them apart with "--" (so they are a prompt whatever they
// look like).
func Prompt(args []string) (words []string, marked bool) {
	if len(args) > 0 && args[0] == PromptMark {
		return args[1:], true
	}
	return args, false
}

// UsageError reports a command line that cannot be parsed in one line,
// with exit status 2, instead of the whole help: the library's
// OnUsageError for every command.
func UsageError(c *cli.Context, err error, _ bool) error {
	name := c.App.HelpName
	if c.Command != nil && c.Command.HelpName != "" {
		name = c.Command.HelpName
	}
	return cli.Exit(fmt.Sprintf("%s (see %s --help)", flagMessage(err.Error()), name), 2)
}

// flagMessage puts a message of the flag parser in the words the user
// typed: "flag needs an argument: -model" becomes "--model needs a value".
func flagMessage(msg string) string {
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		return "unknown flag " + dashed(name)
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return dashed(name) + " needs a value"
	}
	if m := invalidValue().FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("%s: invalid value \"%s\"", dashed(m[2]), m[1]) // m[1] is quoted already
	}
	return msg
}

// invalidValue matches the parser's message for a value it cannot read:
// the value, and the flag's name.
var invalidValue = lazyregexp.New(`^invalid value "(.*)" for flag -([^:]+): `)

// dashed is a flag's name as it is typed: -m, --model.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// SetUsageError makes UsageError the usage error handler of cmds and
// their subcommands.
func SetUsageError(cmds []*cli.Command) {
	for _, cmd := range cmds {
		cmd.OnUsageError = UsageError
		SetUsageError(cmd.Subcommands)
	}
}

// ExitError prints an error the way every command does, one "NAME: " line
// per problem, and exits with status 1 unless the error carries its own:
// the library's ExitErrHandler.
func ExitError(c *cli.Context, err error) {
	if err == nil {
		return
	}
	var coder cli.ExitCoder
	code := 1
	if errors.As(err, &coder) {
		code = coder.ExitCode()
	}
	if msg := err.Error(); msg != "" {
		fmt.Fprintln(c.App.ErrWriter, c.App.Name+": "+msg)
	}
	cli.OsExiter(code)
}
