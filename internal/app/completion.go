package app

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// bashCompletion asks ikigai itself for the words that may come next.
const bashCompletion = `# ikigai completion for bash; in ~/.bashrc: eval "$(ikigai completion bash)"
_ikigai() {
	local cur=${COMP_WORDS[COMP_CWORD]}
	local words=("${COMP_WORDS[@]:1:COMP_CWORD-1}")
	if [[ $cur == -* ]]; then
		words+=("$cur")
	fi
	COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" "${words[@]}" --generate-bash-completion 2>/dev/null)" -- "$cur"))
}
complete -o default -F _ikigai ikigai
`

// zshCompletion runs the bash completion through zsh's bash emulation.
const zshCompletion = `# ikigai completion for zsh; in ~/.zshrc: eval "$(ikigai completion zsh)"
autoload -U +X bashcompinit && bashcompinit
`

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script (bash, zsh or fish)",
		ArgsUsage: "SHELL",
		Description: "Load it in your shell's start-up file:\n" +
			"  bash: eval \"$(ikigai completion bash)\"\n" +
			"  zsh:  eval \"$(ikigai completion zsh)\"\n" +
			"  fish: ikigai completion fish | source",
		BashComplete: func(c *cli.Context) {
			fmt.Fprintln(c.App.Writer, strings.Join([]string{"bash", "zsh", "fish"}, "\n"))
		},
		Action: func(c *cli.Context) error {
			switch shell := c.Args().First(); shell {
			case "bash":
				fmt.Fprint(c.App.Writer, bashCompletion)
			case "zsh":
				fmt.Fprint(c.App.Writer, zshCompletion+bashCompletion)
			case "fish":
				script, err := c.App.ToFishCompletion()
				if err != nil {
					return err
				}
				fmt.Fprint(c.App.Writer, script)
			default:
				return cli.Exit("usage: ikigai completion bash|zsh|fish", 2)
			}
			return nil
		},
	}
}
