package display

import (
	"encoding/json"
	"testing"

	"github.com/ikigai-tools/ikigai/internal/hooks"
)

func TestHook(t *testing.T) {
	guard := hooks.Hook{Event: hooks.PreTool, Name: "pre_tool-guard-hook", Source: hooks.User}
	stop := hooks.Hook{Event: hooks.Stop, Name: "hooks.stop[0]", Source: "~/.ikigai/config.json"}
	for _, tt := range []struct {
		run  hooks.Run
		want string
	}{
		{hooks.Run{Hook: guard, Decision: hooks.Deny, Reason: "rm is not allowed"}, "hook pre_tool-guard-hook (user): denied the call: rm is not allowed"},
		{hooks.Run{Hook: guard, Decision: hooks.Allow, Input: json.RawMessage(`{"command":"ls"}`)}, `hook pre_tool-guard-hook (user): rewrote the arguments: {"command":"ls"}; allowed the call`},
		{hooks.Run{Hook: guard, Failure: hooks.FailedTimeout, Reason: "timed out after 1s and was stopped"}, "hook pre_tool-guard-hook (user): failed: timed out after 1s and was stopped"},
		{hooks.Run{Hook: stop, Decision: hooks.Block, Reason: "tests fail:\nTestA\nTestB\nTestC\nTestD"},
			"hook hooks.stop[0] (~/.ikigai/config.json): sent the model back to work: tests fail:\n  TestA\n  TestB\n  TestC\n  … 1 more line"},
		{hooks.Run{Hook: stop, Message: "tests pass"}, "hook hooks.stop[0] (~/.ikigai/config.json): tests pass"},
	} {
		if got := Hook(&tt.run); got != tt.want {
			t.Errorf("Hook(%+v) =\n%s\nwant\n%s", tt.run, got, tt.want)
		}
	}
}
