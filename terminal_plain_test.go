package ikigai_test

import (
	"strings"
	"testing"

	"github.com/ikigai-tools/ikigai/internal/provider/providertest"
)

// What a model or a tool says cannot drive the terminal of ikigai -p or
// the plain mode: escape sequences, other control characters and the
// controls that reorder text are left out of what reaches a terminal.
func TestTerminalOneShotIsClean(t *testing.T) {
	hostile := "a\x1b[2Jb\x1b]0;pwned\x07c\u202ed\x00e"
	s := newSession(t,
		providertest.Reply{Text: "Looking.", ToolCalls: []providertest.Call{toolCall("t1", "bash", map[string]string{"command": `printf 'x\033[2Jy'`})}},
		providertest.Reply{Text: hostile},
	)
	tm := s.start("-p", "--yes", "go")
	// Everything is read before the output is looked at.
	tm.waitFor("← bash: ok: x[2Jy", "a[2Jb]0;pwnedcde")
	if code := tm.exit(); code != 0 {
		t.Fatalf("exit status %d:\n%s", code, tm.screen())
	}
	tm.mu.Lock()
	raw := tm.raw.String()
	tm.mu.Unlock()
	if strings.ContainsAny(raw, "\x1b\x07\x00\u202e") {
		t.Errorf("control characters reached the terminal: %q", raw)
	}
	for _, want := range []string{"← bash: ok: x[2Jy", "a[2Jb]0;pwnedcde"} {
		if !strings.Contains(raw, want) {
			t.Errorf("the output lacks %q: %q", want, raw)
		}
	}
}
