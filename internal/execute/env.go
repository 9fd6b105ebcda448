package execute

import (
	"os"
	"path"
	"slices"
	"strings"
)

// ProviderVars are the variables ikigai reads for its model providers:
// their keys, and the base URLs that may carry credentials of a proxy. No
// process started for a tool gets them.
var ProviderVars = []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY",
	"ANTHROPIC_BASE_URL", "OPENAI_BASE_URL", "GOOGLE_GEMINI_BASE_URL"}

// Env is the environment of every process ikigai starts for a tool: an
// executable (its calls and its --schema), an MCP server, a hook. It is
// ikigai's own environment less ProviderVars and the variables whose names
// match Exclude. The zero Env leaves out ProviderVars only.
type Env struct {
	// Exclude holds glob patterns (path.Match syntax, matched against the
	// whole name: "AWS_*", "*_TOKEN") of variables to leave out.
	Exclude []string
}

// Environ returns ikigai's environment less what e leaves out, then extra
// ("NAME=value"), which is never left out: a tool's IKIGAI_TOOL_NAME, an
// MCP server's own env entries. A later entry of a name wins, as in
// os/exec.
func (e Env) Environ(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !e.Excludes(name) {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

// Excludes reports whether the variable called name is left out.
func (e Env) Excludes(name string) bool {
	if slices.Contains(ProviderVars, name) {
		return true
	}
	for _, pattern := range e.Exclude {
		if ok, _ := path.Match(pattern, name); ok {
			return true
		}
	}
	return false
}
