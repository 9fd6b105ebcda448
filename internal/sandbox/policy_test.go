package sandbox

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func yes() *bool { b := true; return &b }
func no() *bool  { b := false; return &b }

// full is a machine with everything: Landlock with TCP rules, and network
// namespaces.
var full = Support{ABI: 7, NetNS: true, NetNSChecked: true}

func TestFor(t *testing.T) {
	const ws, home = "/work/p", "/home/u"
	type row struct {
		name     string
		policy   *Policy
		tool     string
		readOnly bool
		needs    *Needs
		want     *Confinement
	}
	for _, r := range []row{
		{name: "off runs unconfined", policy: &Policy{Mode: Off, Network: true}, tool: "bash"},
		{name: "unset mode is off", policy: &Policy{Network: true}, tool: "bash"},
		{name: "workspace-write writes the workspace", policy: &Policy{Mode: WorkspaceWrite, Network: true}, tool: "bash",
			want: &Confinement{Mode: WorkspaceWrite, Write: []string{ws}, Network: true}},
		{name: "read-only writes nothing", policy: &Policy{Mode: ReadOnly, Network: true}, tool: "bash",
			want: &Confinement{Mode: ReadOnly, Network: true}},
		{name: "a read-only tool runs read-only under workspace-write", policy: &Policy{Mode: WorkspaceWrite, Network: true},
			tool: "grep", readOnly: true, want: &Confinement{Mode: ReadOnly, Network: true}},
		{name: "a read-only tool runs unconfined with the sandbox off", policy: &Policy{Mode: Off, Network: true},
			tool: "grep", readOnly: true},
		{name: "declared paths replace the workspace", policy: &Policy{Mode: WorkspaceWrite, Network: true}, tool: "gotest",
			needs: &Needs{Write: []string{"$WORKSPACE", "~/.cache/go-build", "$TMPDIR", "/var/cache/x/"}},
			want:  &Confinement{Mode: WorkspaceWrite, Write: []string{ws, home + "/.cache/go-build", "/var/cache/x"}, Network: true}},
		{name: "declaring no paths narrows to the temporary directory", policy: &Policy{Mode: WorkspaceWrite, Network: true},
			tool: "fmt", needs: &Needs{Write: []string{}}, want: &Confinement{Mode: WorkspaceWrite, Network: true}},
		{name: "declared paths are not granted under read-only", policy: &Policy{Mode: ReadOnly, Network: true}, tool: "gotest",
			needs: &Needs{Write: []string{"~/.cache"}}, want: &Confinement{Mode: ReadOnly, Network: true}},
		{name: "network off", policy: &Policy{Mode: ReadOnly}, tool: "bash",
			want: &Confinement{Mode: ReadOnly, NetNS: true}},
		{name: "a declaration cannot turn the network on", policy: &Policy{Mode: WorkspaceWrite}, tool: "fetch",
			needs: &Needs{Network: yes()}, want: &Confinement{Mode: WorkspaceWrite, Write: []string{ws}, NetNS: true}},
		{name: "a declaration turns the network off", policy: &Policy{Mode: WorkspaceWrite, Network: true}, tool: "fmt",
			needs: &Needs{Network: no()}, want: &Confinement{Mode: WorkspaceWrite, Write: []string{ws}, NetNS: true}},
		{name: "the user's mode wins over the hint", tool: "grep", readOnly: true,
			policy: &Policy{Mode: ReadOnly, Network: true, Tools: map[string]Setting{"grep": {Mode: WorkspaceWrite}}},
			want:   &Confinement{Mode: WorkspaceWrite, Write: []string{ws}, Network: true}},
		{name: "the user's mode confines a tool with the sandbox off", tool: "bash",
			policy: &Policy{Mode: Off, Network: true, Tools: map[string]Setting{"bash": {Mode: ReadOnly}}},
			want:   &Confinement{Mode: ReadOnly, Network: true}},
		{name: "the user's off frees a tool", tool: "bash",
			policy: &Policy{Mode: ReadOnly, Tools: map[string]Setting{"bash": {Mode: Off}}}},
		{name: "a setting without a mode does not turn the sandbox on", tool: "bash",
			policy: &Policy{Mode: Off, Network: true, Tools: map[string]Setting{"bash": {Write: []string{"/x"}}}}},
		{name: "the user's paths replace the declared ones, in any mode", tool: "gotest",
			policy: &Policy{Mode: ReadOnly, Network: true, Tools: map[string]Setting{"gotest": {Write: []string{"~/go"}}}},
			needs:  &Needs{Write: []string{"/elsewhere"}},
			want:   &Confinement{Mode: ReadOnly, Write: []string{home + "/go"}, Network: true}},
		{name: "the user's network wins over the declaration and the default", tool: "fetch",
			policy: &Policy{Mode: ReadOnly, Tools: map[string]Setting{"fetch": {Network: yes()}}},
			needs:  &Needs{Network: no()}, want: &Confinement{Mode: ReadOnly, Network: true}},
	} {
		t.Run(r.name, func(t *testing.T) {
			p := r.policy
			p.Workspace, p.Home = ws, home
			s := full
			p.Support = &s
			got := p.For(r.tool, r.readOnly, r.needs)
			if diff := cmp.Diff(r.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("For (-want +got):\n%s", diff)
			}
		})
	}
}

func TestForServer(t *testing.T) {
	for _, r := range []struct {
		name string
		mode Mode
		set  *Setting
		want *Confinement
	}{
		{name: "off", mode: Off},
		{name: "read-only with the network by default", mode: WorkspaceWrite, want: &Confinement{Mode: ReadOnly, Network: true}},
		{name: "its own setting", mode: ReadOnly, set: &Setting{Mode: WorkspaceWrite, Network: no()},
			want: &Confinement{Mode: WorkspaceWrite, Write: []string{"/work/p"}, NetNS: true}},
		{name: "paths for npx", mode: ReadOnly, set: &Setting{Write: []string{"~/.npm"}},
			want: &Confinement{Mode: ReadOnly, Write: []string{"/home/u/.npm"}, Network: true}},
		{name: "its own setting with the sandbox off", mode: Off, set: &Setting{Mode: ReadOnly},
			want: &Confinement{Mode: ReadOnly, Network: true}},
	} {
		t.Run(r.name, func(t *testing.T) {
			s := full
			p := &Policy{Mode: r.mode, Workspace: "/work/p", Home: "/home/u", Support: &s}
			if diff := cmp.Diff(r.want, p.ForServer(r.set), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("ForServer (-want +got):\n%s", diff)
			}
		})
	}
}

// The fallback where the machine lacks what the policy asks for: warn runs
// unconfined (or with the network), require refuses.
func TestFallback(t *testing.T) {
	noLandlock := Support{Missing: "the kernel was built without it", NetNSChecked: true, NetNSMissing: "x"}
	oldKernel := Support{ABI: 3, NetNSChecked: true, NetNSMissing: "not permitted to make one"}
	tcpOnly := Support{ABI: 4, NetNSChecked: true, NetNSMissing: "not permitted to make one"}
	for _, r := range []struct {
		name     string
		support  Support
		fallback Fallback
		network  bool
		want     *Confinement
		notice   string
	}{
		{name: "no Landlock, warn", support: noLandlock, fallback: Warn, network: true,
			notice: "sandbox: Landlock is not available (the kernel was built without it): tools run unconfined (sandbox_fallback is warn); `ikigai sandbox check` says more"},
		{name: "no Landlock, require", support: noLandlock, fallback: Require, network: true,
			want:   &Confinement{Mode: ReadOnly, Network: true, Refused: "Landlock is not available (the kernel was built without it) and sandbox_fallback is require"},
			notice: "sandbox: Landlock is not available (the kernel was built without it): tool calls are refused (sandbox_fallback is require); `ikigai sandbox check` says more"},
		{name: "no way to turn the network off, warn", support: oldKernel, fallback: Warn,
			want:   &Confinement{Mode: ReadOnly, Network: true},
			notice: "sandbox: the network cannot be turned off here (no network namespace: not permitted to make one; Landlock ABI 3 has no TCP rules): the network stays on (sandbox_fallback is warn)"},
		{name: "no way to turn the network off, require", support: oldKernel, fallback: Require,
			want: &Confinement{Mode: ReadOnly, Refused: "the network cannot be turned off (no network namespace: not permitted to make one; " +
				"Landlock ABI 3 has no TCP rules) and sandbox_fallback is require"},
			notice: "sandbox: the network cannot be turned off here (no network namespace: not permitted to make one; Landlock ABI 3 has no TCP rules): calls that need it off are refused (sandbox_fallback is require)"},
		{name: "TCP rules without a namespace", support: tcpOnly, fallback: Require, want: &Confinement{Mode: ReadOnly}},
		{name: "all there", support: full, fallback: Require, network: true, want: &Confinement{Mode: ReadOnly, Network: true}},
	} {
		t.Run(r.name, func(t *testing.T) {
			s := r.support
			p := &Policy{Mode: ReadOnly, Network: r.network, Fallback: r.fallback, Support: &s}
			if diff := cmp.Diff(r.want, p.For("bash", false, nil), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("For (-want +got):\n%s", diff)
			}
			if got := p.Notice(); got != r.notice {
				t.Errorf("Notice:\n got %q\nwant %q", got, r.notice)
			}
		})
	}
}

func TestCheckPath(t *testing.T) {
	for _, p := range []string{"/abs", "~", "~/x", "$WORKSPACE", "$WORKSPACE/build", "$TMPDIR/x"} {
		if err := CheckPath(p); err != nil {
			t.Errorf("CheckPath(%q) = %v", p, err)
		}
	}
	for _, p := range []string{"", ".", "rel/x", "~user", "$HOME/x", "$WORKSPACEX", "$WORKSPACE/../x", "/a/../b"} {
		if err := CheckPath(p); err == nil {
			t.Errorf("CheckPath(%q) = nil, want an error", p)
		}
	}
}
