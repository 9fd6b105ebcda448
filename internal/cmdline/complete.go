package cmdline

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

// Shells are the shells Completion writes a script for.
var Shells = []string{"bash", "zsh", "fish"}

// bashCompletion asks ikigai itself for the words that may come next.
const bashCompletion = `# ikigai completion for bash; in ~/.bashrc: eval "$(ikigai completion bash)"
_ikigai() {
	local cur=${COMP_WORDS[COMP_CWORD]}
	local words=("${COMP_WORDS[@]:1:COMP_CWORD-1}")
	if [[ $cur == -* ]]; then
		words+=("$cur")
	fi
	COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" "${words[@]}" ` + CompletionFlag + ` 2>/dev/null)" -- "$cur"))
}
complete -o default -F _ikigai ikigai
`

// zshCompletion runs the bash completion through zsh's bash emulation.
const zshCompletion = `# ikigai completion for zsh; in ~/.zshrc: eval "$(ikigai completion zsh)"
autoload -U +X bashcompinit && bashcompinit
`

// Completion returns the completion script of app for shell, one of
// Shells.
func Completion(app *cli.App, shell string) (string, error) {
	switch shell {
	case "bash":
		return bashCompletion, nil
	case "zsh":
		return zshCompletion + bashCompletion, nil
	case "fish":
		return app.ToFishCompletion()
	}
	return "", fmt.Errorf("no completion for the shell %q", shell)
}
