package cmdline

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v2"
)

func testApp() *cli.App {
	return &cli.App{
		Name:    "ikigai",
		Version: "1",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "print", Aliases: []string{"p"}},
			&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}},
			&cli.StringFlag{Name: "provider"},
			&cli.StringFlag{Name: "base-url"},
			&cli.Float64Flag{Name: "tool-timeout"},
			&cli.BoolFlag{Name: "trust"},
			&cli.BoolFlag{Name: "json"},
		},
		Commands: []*cli.Command{
			{Name: "tools", Flags: []cli.Flag{&cli.BoolFlag{Name: "json"}}, Subcommands: []*cli.Command{
				{Name: "check", Flags: []cli.Flag{&cli.StringFlag{Name: "args"}}},
				{Name: "call", Flags: []cli.Flag{&cli.Float64Flag{Name: "timeout"}}},
			}},
			{Name: "sessions", Flags: []cli.Flag{&cli.BoolFlag{Name: "json"}}},
			{Name: "mcp", Subcommands: []*cli.Command{{Name: "serve"}}},
			{Name: "stats"},
			{Name: "trust"},
			{Name: "completion"},
			{Name: "version"},
			{Name: "help", Aliases: []string{"h"}},
		},
	}
}

func TestArrange(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"nothing", []string{}, []string{}},
		{"no arguments", []string{"ikigai"}, []string{"ikigai"}},
		{"flags after the prompt",
			[]string{"ikigai", "-p", "write the marker", "--provider", "anthropic", "--base-url", "URL", "--yes"},
			[]string{"ikigai", "-p", "--provider", "anthropic", "--base-url", "URL", "--yes", "--", "write the marker"}},
		{"flags already first",
			[]string{"ikigai", "-p", "--yes", "hi"},
			[]string{"ikigai", "-p", "--yes", "--", "hi"}},
		{"value with =", []string{"ikigai", "hi", "--provider=openai"}, []string{"ikigai", "--provider=openai", "--", "hi"}},
		{"a negative number is a value", []string{"ikigai", "hi", "--tool-timeout", "-1"}, []string{"ikigai", "--tool-timeout", "-1", "--", "hi"}},
		{"dashes end the flags",
			[]string{"ikigai", "-p", "--", "-v is a prompt", "--yes"},
			[]string{"ikigai", "-p", "--", PromptMark, "-v is a prompt", "--yes"}},
		{"dashes keep a command's name a prompt",
			[]string{"ikigai", "--", "sessions"},
			[]string{"ikigai", "--", PromptMark, "sessions"}},
		{"subcommand flag after its argument",
			[]string{"ikigai", "tools", "check", "FILE", "--args", `{"a":1}`},
			[]string{"ikigai", "tools", "check", "--args", `{"a":1}`, "--", "FILE"}},
		{"root flag after a subcommand",
			[]string{"ikigai", "tools", "call", "x", "--trust", "--timeout", "2"},
			[]string{"ikigai", "--trust", "tools", "call", "--timeout", "2", "--", "x"}},
		{"the nearest command's flag wins",
			[]string{"ikigai", "sessions", "--json"},
			[]string{"ikigai", "sessions", "--json"}},
		{"root flag before the command stays the root's",
			[]string{"ikigai", "--json", "sessions"},
			[]string{"ikigai", "--json", "sessions"}},
		{"subcommand argument that is a dash",
			[]string{"ikigai", "tools", "call", "x", "-", "--timeout", "1"},
			[]string{"ikigai", "tools", "call", "--timeout", "1", "--", "x", "-"}},
		{"an unknown flag stays with its command",
			[]string{"ikigai", "tools", "--bogus", "x"},
			[]string{"ikigai", "tools", "--bogus", "--", "x"}},
		{"help anywhere", []string{"ikigai", "tools", "call", "--help"}, []string{"ikigai", "tools", "call", "--help"}},
		{"a word after the prompt is not a command",
			[]string{"ikigai", "fix", "tools"},
			[]string{"ikigai", "--", "fix", "tools"}},
		{"a flag missing its value ends the line", []string{"ikigai", "hi", "--provider"}, []string{"ikigai", "--provider"}},
		{"a root flag missing its value after a command",
			[]string{"ikigai", "tools", "call", "x", "--provider"},
			[]string{"ikigai", "--provider"}},
		{"a command's flag missing its value",
			[]string{"ikigai", "tools", "call", "x", "--trust", "--timeout"},
			[]string{"ikigai", "--trust", "tools", "call", "--timeout"}},
		{"completion is left alone",
			[]string{"ikigai", "tools", "x", "--generate-bash-completion"},
			[]string{"ikigai", "tools", "x", "--generate-bash-completion"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Arrange(testApp(), tt.args)); diff != "" {
				t.Errorf("Arrange(%q) (-want +got):\n%s", tt.args, diff)
			}
		})
	}
}

// TestArrangeRuns checks that the library reads an arranged command line
// as meant.
func TestArrangeRuns(t *testing.T) {
	var got []string
	app := testApp()
	app.Action = func(c *cli.Context) error {
		words, marked := Prompt(c.Args().Slice())
		got = append([]string{c.String("provider"), c.String("tool-timeout")}, words...)
		if marked {
			got = append(got, "(marked)")
		}
		return nil
	}
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"ikigai", "fix it", "--provider", "x"}, []string{"x", "0", "fix it"}},
		{[]string{"ikigai", "--", "sessions"}, []string{"", "0", "sessions", "(marked)"}},
		{[]string{"ikigai", "--provider", "y", "--", "-p", "--tool-timeout"}, []string{"y", "0", "-p", "--tool-timeout", "(marked)"}},
	} {
		got = nil
		if err := app.Run(Arrange(app, tt.args)); err != nil {
			t.Fatalf("%q: %v", tt.args, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.args, diff)
		}
	}
}

func TestSuggest(t *testing.T) {
	for word, want := range map[string]string{
		"sesions":  "sessions",
		"sessoins": "sessions",
		"tols":     "tools",
		"tool":     "tools",
		"mpc":      "mcp",
		"stat":     "stats",
		"trsut":    "trust",
		"verison":  "version",
		"hi":       "",
		"hello":    "", // help is never suggested
		"hepl":     "",
		"test":     "", // two edits in four letters is a word of its own
		"fix":      "",
		"Tools":    "", // not how a command is typed
		"sessions": "sessions",
		"go on":    "",
		"":         "",
	} {
		if got := Suggest(testApp().Commands, word); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", word, got, want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"kitten", "sitting", 3},
		{"ab", "ba", 1}, {"mpc", "mcp", 1}, {"sesions", "sessions", 1}, {"test", "trust", 2},
	} {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

// The flag parser's messages are put in the words the user typed, flags
// with the dashes they take.
func TestFlagMessage(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"flag provided but not defined: -bogus", "unknown flag --bogus"},
		{"flag provided but not defined: -x", "unknown flag -x"},
		{"flag needs an argument: -model", "--model needs a value"},
		{"flag needs an argument: -m", "-m needs a value"},
		{`invalid value "soon" for flag -timeout: parse error`, `--timeout: invalid value "soon"`},
		{`invalid value "a b" for flag -t: strconv.ParseFloat: parsing "a b": invalid syntax`, `-t: invalid value "a b"`},
		{`invalid value "a\"b" for flag -t: parse error`, `-t: invalid value "a\"b"`},
		{"something else", "something else"},
	} {
		if got := flagMessage(tc.in); got != tc.want {
			t.Errorf("flagMessage(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
