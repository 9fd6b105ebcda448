package mcp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ikigai-tools/ikigai/internal/config"
	"github.com/ikigai-tools/ikigai/internal/sandbox"
)

// A confined server runs, and writes only where its confinement allows: the
// test server records its start in a file, which read-only denies.
func TestConfinedServer(t *testing.T) {
	if s := sandbox.Detect(); s.ABI == 0 {
		t.Skipf("no Landlock: %s", s.Missing)
	}
	for _, tc := range []struct {
		name    string
		box     *sandbox.Confinement
		records bool
	}{
		{name: "read-only", box: &sandbox.Confinement{Mode: sandbox.ReadOnly, Network: true}},
		{name: "allowed to write", box: &sandbox.Confinement{Mode: sandbox.ReadOnly, Network: true}, records: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			starts := filepath.Join(dir, "starts")
			if tc.records {
				tc.box.Write = []string{dir}
			}
			cfg := testServer("", starts)
			cfg.Confinement = tc.box
			r := registryOf(t, start(t, map[string]config.MCPServer{"t": cfg}))
			env := r.Call(t.Context(), "mcp--t--echo", []byte(`{"text":"hi"}`), 0)
			if !env.Success || !strings.Contains(string(env.Result), `"said":"hi"`) {
				t.Fatalf("echo: %s", env.JSON())
			}
			_, err := os.Stat(starts)
			if tc.records != (err == nil) {
				t.Errorf("the server's record of its start: %v, want written %v", err, tc.records)
			}
		})
	}
}
