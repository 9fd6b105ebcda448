package execute_test

import (
	"slices"
	"testing"

	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/provider/anthropic"
	"github.com/ikigai-tools/ikigai/internal/provider/gemini"
	"github.com/ikigai-tools/ikigai/internal/provider/openai"
)

// Every key a provider reads is kept from the tools.
func TestProviderVars(t *testing.T) {
	for _, key := range []string{anthropic.KeyEnv, openai.KeyEnv, gemini.KeyEnv, gemini.AltKeyEnv, gemini.BaseURLEnv} {
		if !slices.Contains(execute.ProviderVars, key) || !(execute.Env{}).Excludes(key) {
			t.Errorf("%s is not in execute.ProviderVars", key)
		}
	}
}
