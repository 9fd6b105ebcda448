package sandbox

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"golang.org/x/sys/unix"
)

// Report is what `ikigai sandbox check` prints: what the machine supports,
// what a confined process is really refused, and the settings in force.
type Report struct {
	Kernel string `json:"kernel"`
	// LandlockABI is 0 when the kernel has no Landlock, and
	// LandlockMissing says why.
	LandlockABI     int       `json:"landlock_abi"`
	LandlockMissing string    `json:"landlock_missing,omitempty"`
	Features        []Feature `json:"features"`
	NetNS           bool      `json:"network_namespace"`
	NetNSMissing    string    `json:"network_namespace_missing,omitempty"`
	// Probes are confinements tried for real on this machine.
	Probes   []Probe  `json:"probes"`
	Settings Settings `json:"settings"`
	// Notice is what ikigai says at start about these settings on this
	// machine; "" when they can be had.
	Notice string `json:"notice,omitempty"`
}

// Feature is something Landlock does from an ABI version on.
type Feature struct {
	Name      string `json:"name"`
	ABI       int    `json:"abi"`
	Available bool   `json:"available"`
}

// Probe is one confinement tried for real.
type Probe struct {
	Name string `json:"name"`
	OK   bool   `json:"ok"`
	// Detail says what happened when it did not go as it should, or why
	// it was not tried.
	Detail string `json:"detail,omitempty"`
}

// Settings are the sandbox settings in force.
type Settings struct {
	Sandbox  Mode     `json:"sandbox"`
	Network  string   `json:"sandbox_network"`
	Fallback Fallback `json:"sandbox_fallback"`
}

var features = []Feature{
	{Name: "reads allowed, writes confined", ABI: 1},
	{Name: "files moved between writable directories", ABI: 2},
	{Name: "truncation confined", ABI: 3},
	{Name: "TCP connect and bind refused with the network off", ABI: 4},
	{Name: "ioctl on devices confined", ABI: 5},
	{Name: "signals and abstract unix sockets kept inside", ABI: 6},
}

// Check finds out what this machine supports and tries it.
func Check(p *Policy) Report {
	s := Detect()
	s.DetectNetNS()
	r := Report{Kernel: kernel(), LandlockABI: s.ABI, LandlockMissing: s.Missing, NetNS: s.NetNS, NetNSMissing: s.NetNSMissing}
	for _, f := range features {
		f.Available = s.ABI >= f.ABI
		r.Features = append(r.Features, f)
	}
	r.Probes = probes(s)
	network := "on"
	if !p.Network {
		network = "off"
	}
	mode := p.Mode
	if mode == "" {
		mode = Off
	}
	fallback := p.Fallback
	if fallback == "" {
		fallback = Warn
	}
	r.Settings = Settings{Sandbox: mode, Network: network, Fallback: fallback}
	r.Notice = p.Notice()
	return r
}

// OK reports whether every probe went as it should.
func (r Report) OK() bool {
	for _, p := range r.Probes {
		if !p.OK {
			return false
		}
	}
	return r.LandlockABI > 0
}

// WriteText writes the report for people.
func (r Report) WriteText(w io.Writer) {
	yes := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	fmt.Fprintf(w, "kernel: %s\n", r.Kernel)
	if r.LandlockABI == 0 {
		fmt.Fprintf(w, "Landlock: no (%s)\n", r.LandlockMissing)
	} else {
		fmt.Fprintf(w, "Landlock: ABI %d\n", r.LandlockABI)
	}
	for _, f := range r.Features {
		fmt.Fprintf(w, "  %s (ABI %d): %s\n", f.Name, f.ABI, yes(f.Available))
	}
	if r.NetNS {
		fmt.Fprintln(w, "network namespaces: yes")
	} else {
		fmt.Fprintf(w, "network namespaces: no (%s)\n", r.NetNSMissing)
	}
	fmt.Fprintln(w, "tried:")
	for _, p := range r.Probes {
		line := fmt.Sprintf("  %s: %s", p.Name, yes(p.OK))
		if p.Detail != "" {
			line += " (" + p.Detail + ")"
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintf(w, "settings: sandbox %s, sandbox_network %s, sandbox_fallback %s\n", r.Settings.Sandbox, r.Settings.Network, r.Settings.Fallback)
	if r.Notice != "" {
		fmt.Fprintln(w, r.Notice)
	}
}

func kernel() string {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return runtime.GOOS
	}
	return unix.ByteSliceToString(u.Sysname[:]) + " " + unix.ByteSliceToString(u.Release[:])
}

// probes confines a thread of this process as a tool would be, and tries
// what the confinement should refuse and allow.
func probes(s Support) []Probe {
	const (
		refused = "a write outside the writable paths is refused"
		allowed = "a write to the temporary directory works"
		tcp     = "a TCP connection with the network off is refused"
		netns   = "a process starts in a network namespace of its own"
	)
	if s.ABI == 0 {
		return []Probe{{Name: refused, Detail: "no Landlock"}}
	}
	var list []Probe
	tmp, err := os.MkdirTemp("", "ikigai-sandbox-check-")
	if err != nil {
		return []Probe{{Name: refused, Detail: err.Error()}}
	}
	defer os.RemoveAll(tmp)
	outside, inside := filepath.Join(tmp, "outside"), filepath.Join(tmp, "inside")
	os.Mkdir(outside, 0o700)
	os.Mkdir(inside, 0o700)
	c := &Confinement{Mode: ReadOnly, TempDir: inside}
	err = onConfinedThread(c, func() error { return os.WriteFile(filepath.Join(outside, "x"), nil, 0o600) })
	list = append(list, expect(refused, err, unix.EACCES))
	err = onConfinedThread(c, func() error { return os.WriteFile(filepath.Join(inside, "x"), nil, 0o600) })
	list = append(list, expect(allowed, err, nil))

	if s.ABI < 4 {
		list = append(list, Probe{Name: tcp, OK: s.NetNS, Detail: fmt.Sprintf("Landlock ABI %d has no TCP rules; left to the network namespace", s.ABI)})
	} else if l, err := net.Listen("tcp4", "127.0.0.1:0"); err != nil {
		list = append(list, Probe{Name: tcp, Detail: "no loopback listener: " + err.Error()})
	} else {
		err = onConfinedThread(c, func() error {
			conn, err := net.Dial("tcp4", l.Addr().String())
			if err == nil {
				conn.Close()
			}
			return err
		})
		l.Close()
		list = append(list, expect(tcp, err, unix.EACCES))
	}
	p := Probe{Name: netns, OK: s.NetNS, Detail: s.NetNSMissing}
	return append(list, p)
}

// expect is the probe called name whose attempt ended in err, which should
// be want.
func expect(name string, err, want error) Probe {
	switch {
	case want == nil && err == nil, want != nil && errors.Is(err, want):
		return Probe{Name: name, OK: true}
	case err == nil:
		return Probe{Name: name, Detail: "it was not refused"}
	}
	return Probe{Name: name, Detail: strings.TrimPrefix(err.Error(), "sandbox: ")}
}
