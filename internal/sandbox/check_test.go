package sandbox

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// On this machine the check tries each confinement for real; every one
// that the kernel supports must go as it should.
func TestCheck(t *testing.T) {
	s := Detect()
	s.DetectNetNS()
	r := Check(&Policy{Mode: WorkspaceWrite, Fallback: Require})
	var text bytes.Buffer
	r.WriteText(&text)
	t.Log("\n" + text.String())
	if s.ABI == 0 {
		if r.OK() {
			t.Error("OK without Landlock")
		}
		return
	}
	want := []string{
		"a write outside the writable paths is refused: yes",
		"a write to the temporary directory works: yes",
	}
	if s.ABI >= 4 {
		want = append(want, "a TCP connection with the network off is refused: yes")
	}
	if s.NetNS {
		want = append(want, "a process starts in a network namespace of its own: yes")
	}
	want = append(want, "settings: sandbox workspace-write, sandbox_network off, sandbox_fallback require")
	for _, line := range want {
		if !strings.Contains(text.String(), line) {
			t.Errorf("the report lacks %q", line)
		}
	}
	if !strings.Contains(text.String(), fmt.Sprintf("Landlock: ABI %d\n", s.ABI)) {
		t.Errorf("the report does not give ABI %d", s.ABI)
	}
	if s.ABI >= 4 && s.NetNS && !r.OK() {
		t.Error("not OK on a machine with everything")
	}
}
