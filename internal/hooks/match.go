package hooks

import (
	"encoding/json"
	"os"
	"strings"

	"github.com/ikigai-tools/ikigai/internal/rules"
)

// A Matcher reports whether a rule accepts a call of tool with args.
type Matcher func(tool string, args json.RawMessage) bool

// ParseMatch compiles a rule in the approval rule syntax (package rules):
// a glob on the tool's name (file_*, mcp--github--*), optionally followed
// by a pattern for the call in parentheses (bash(git push *)). A call
// matches as it would a deny rule: any command of a bash script, inside
// $(...) and sh -c too, and a command chosen only at run time, since a
// hook would rather see a call too many than one too few. "" and "*"
// accept every call.
func ParseMatch(rule string) (Matcher, error) {
	rule = strings.TrimSpace(rule)
	if rule == "" || rule == "*" {
		return func(string, json.RawMessage) bool { return true }, nil
	}
	r, err := rules.Parse(rule)
	if err != nil {
		return nil, err
	}
	list := rules.List{r}
	return func(tool string, args json.RawMessage) bool {
		// ikigai never changes its working directory: relative paths in
		// the arguments start there.
		dir, _ := os.Getwd()
		home, _ := os.UserHomeDir()
		v, _ := list.Match(rules.Call{Tool: tool, Args: args, Dir: dir, Home: home})
		return v != rules.No
	}, nil
}
