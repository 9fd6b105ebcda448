// Package sandbox confines the processes ikigai starts for tools and MCP
// servers with the kernel's Landlock LSM: they may read everywhere, write
// only where their mode allows (nowhere but a private temporary directory
// in read-only mode; the project too in workspace-write), and reach no
// network when it is off. A Policy holds the user's settings and decides
// the Confinement of each tool; Start starts a process within one, so that
// everything the process starts is confined too.
package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Mode is how much a confined process may write.
type Mode string

const (
	// Off runs processes as they are.
	Off Mode = "off"
	// ReadOnly lets a process write nowhere but its private temporary
	// directory.
	ReadOnly Mode = "read-only"
	// WorkspaceWrite lets a process write in the project (the working
	// directory) and its private temporary directory as well.
	WorkspaceWrite Mode = "workspace-write"
)

// Modes lists the modes, for messages and completion.
var Modes = []string{string(Off), string(ReadOnly), string(WorkspaceWrite)}

// ParseMode checks a mode's name from the configuration or a flag.
func ParseMode(s string) (Mode, error) {
	if slices.Contains(Modes, s) {
		return Mode(s), nil
	}
	return "", fmt.Errorf("sandbox mode %q: want off, read-only or workspace-write", s)
}

// Fallback is what happens where the sandbox cannot be had.
type Fallback string

const (
	// Warn says so once and runs the process unconfined.
	Warn Fallback = "warn"
	// Require says so once and refuses to run the process.
	Require Fallback = "require"
)

// Needs is what a tool's schema says it needs (its "sandbox" object).
type Needs struct {
	// Write lists where the tool writes, besides its temporary directory;
	// nil when the schema does not say.
	Write []string
	// Network says whether the tool uses the network; nil when the
	// schema does not say.
	Network *bool
}

// Setting is the user's sandbox setting for one tool or MCP server; each
// field that is set replaces what the mode and the schema would give.
type Setting struct {
	Mode    Mode     // "" for the mode that applies
	Write   []string // nil for what the mode and the schema give
	Network *bool
}

// Variables a path in Needs or a Setting may start with, besides ~.
const (
	// WorkspaceVar stands for the project: the working directory.
	WorkspaceVar = "$WORKSPACE"
	// TempVar stands for the call's private temporary directory, which is
	// always writable.
	TempVar = "$TMPDIR"
)

// CheckPath reports why p cannot name a writable path in a schema or a
// setting, or nil: it must be absolute, or start with ~/, $WORKSPACE or
// $TMPDIR, since a relative path would mean a different place in each
// directory, and without .. (which would lead out of $WORKSPACE).
func CheckPath(p string) error {
	if slices.Contains(strings.Split(p, "/"), "..") {
		return fmt.Errorf("%q has a .. component", p)
	}
	for _, prefix := range []string{"~", WorkspaceVar, TempVar} {
		if p == prefix || strings.HasPrefix(p, prefix+"/") {
			return nil
		}
	}
	if filepath.IsAbs(p) {
		return nil
	}
	return fmt.Errorf("%q is neither absolute nor under ~/, %s or %s", p, WorkspaceVar, TempVar)
}

// Policy is the user's sandbox settings, and what this machine supports.
type Policy struct {
	Mode     Mode
	Network  bool
	Fallback Fallback
	// Workspace is the project directory, which WorkspaceWrite makes
	// writable; Home is what ~ means.
	Workspace, Home string
	// Tools holds the user's settings for single tools, by name.
	Tools map[string]Setting
	// Support is what the machine supports; nil means it is detected when
	// first needed.
	Support *Support

	once, netnsOnce sync.Once
}

// support returns what the machine supports, detected once; whether a
// network namespace can be made only when netns is set, which costs a
// process.
func (p *Policy) support(netns bool) *Support {
	p.once.Do(func() {
		if p.Support == nil {
			s := Detect()
			p.Support = &s
		}
	})
	if netns {
		p.netnsOnce.Do(p.Support.DetectNetNS)
	}
	return p.Support
}

// anyNetworkOff reports whether the network is off for some tool.
func (p *Policy) anyNetworkOff() bool {
	if !p.Network {
		return true
	}
	for _, s := range p.Tools {
		if s.Network != nil && !*s.Network {
			return true
		}
	}
	return false
}

// Active reports whether the policy confines anything at all.
func (p *Policy) Active() bool {
	if p == nil {
		return false
	}
	if p.Mode != Off && p.Mode != "" {
		return true
	}
	for _, s := range p.Tools {
		if s.Mode != "" && s.Mode != Off {
			return true
		}
	}
	return false
}

// For returns how the tool called name is confined, given whether its
// schema says it is read-only and what it declares it needs; nil when it
// runs unconfined.
//
// The user's setting for the tool decides first. Otherwise, with the
// sandbox on, a read-only tool runs ReadOnly and any other in the
// configured mode. ReadOnly writes only the temporary directory;
// WorkspaceWrite writes the paths the tool declares, else the workspace.
// The network is the configured one, unless the tool declares it needs
// none.
func (p *Policy) For(name string, readOnly bool, needs *Needs) *Confinement {
	if p == nil {
		return nil
	}
	if needs == nil {
		needs = &Needs{}
	}
	set := p.Tools[name]
	mode := p.Mode
	switch {
	case set.Mode != "":
		mode = set.Mode
	case mode == "" || mode == Off:
		return nil
	case readOnly:
		mode = ReadOnly
	}
	if mode == Off {
		return nil
	}
	var write []string
	switch {
	case set.Write != nil:
		write = set.Write
	case mode == ReadOnly:
	case needs.Write != nil:
		write = needs.Write
	default:
		write = []string{WorkspaceVar}
	}
	network := p.Network && (needs.Network == nil || *needs.Network)
	if set.Network != nil {
		network = *set.Network
	}
	return p.confinement(mode, write, network)
}

// ForServer returns how an MCP server is confined, given the user's
// setting for it (nil for none); nil when it runs unconfined. With the
// sandbox on, a server runs ReadOnly with the network unless its setting
// says otherwise: a server is a program the user installed, which talks
// to services more often than not.
func (p *Policy) ForServer(set *Setting) *Confinement {
	if p == nil {
		return nil
	}
	if set == nil {
		set = &Setting{}
	}
	mode := ReadOnly
	switch {
	case set.Mode != "":
		mode = set.Mode
	case p.Mode == "" || p.Mode == Off:
		return nil
	}
	if mode == Off {
		return nil
	}
	var write []string
	switch {
	case set.Write != nil:
		write = set.Write
	case mode == WorkspaceWrite:
		write = []string{WorkspaceVar}
	}
	network := true
	if set.Network != nil {
		network = *set.Network
	}
	return p.confinement(mode, write, network)
}

// confinement builds a confinement the machine can enforce, or, where it
// cannot, falls back as the policy says.
func (p *Policy) confinement(mode Mode, write []string, network bool) *Confinement {
	c := &Confinement{Mode: mode, Network: network}
	for _, w := range write {
		if w == TempVar || strings.HasPrefix(w, TempVar+"/") {
			continue // the temporary directory is always writable
		}
		if path := p.expand(w); !slices.Contains(c.Write, path) {
			c.Write = append(c.Write, path)
		}
	}
	s := p.support(!network)
	switch {
	case s.ABI == 0:
		if p.Fallback == Require {
			c.Refused = "Landlock is not available (" + s.Missing + ") and sandbox_fallback is require"
			return c
		}
		return nil
	case !network && s.NetNS:
		c.NetNS = true
	case !network && s.ABI < 4:
		if p.Fallback == Require {
			c.Refused = "the network cannot be turned off (no network namespace: " + s.NetNSMissing + "; Landlock ABI " +
				fmt.Sprint(s.ABI) + " has no TCP rules) and sandbox_fallback is require"
			return c
		}
		c.Network = true
	}
	return c
}

// expand makes a path of a schema or a setting absolute.
func (p *Policy) expand(path string) string {
	switch {
	case path == "~" || strings.HasPrefix(path, "~/"):
		return filepath.Join(p.Home, path[1:])
	case path == WorkspaceVar || strings.HasPrefix(path, WorkspaceVar+"/"):
		return filepath.Join(p.Workspace, path[len(WorkspaceVar):])
	}
	return filepath.Clean(path)
}

// Notice is what the user is told once, at start, when the sandbox they
// asked for cannot be had on this machine; "" when it can.
func (p *Policy) Notice() string {
	if !p.Active() {
		return ""
	}
	s := p.support(p.anyNetworkOff())
	consequence := "tools run unconfined (sandbox_fallback is warn)"
	if p.Fallback == Require {
		consequence = "tool calls are refused (sandbox_fallback is require)"
	}
	if s.ABI == 0 {
		return fmt.Sprintf("sandbox: Landlock is not available (%s): %s; `ikigai sandbox check` says more", s.Missing, consequence)
	}
	if p.anyNetworkOff() && !s.NetNS && s.ABI < 4 {
		consequence = "the network stays on (sandbox_fallback is warn)"
		if p.Fallback == Require {
			consequence = "calls that need it off are refused (sandbox_fallback is require)"
		}
		return fmt.Sprintf("sandbox: the network cannot be turned off here (no network namespace: %s; Landlock ABI %d has no TCP rules): %s",
			s.NetNSMissing, s.ABI, consequence)
	}
	return ""
}

// Confinement is what one process may do: read everywhere, write in Write
// and TempDir, and use the network if Network is set.
type Confinement struct {
	Mode Mode
	// Write lists the absolute paths the process may write besides its
	// temporary directory. One that does not exist when the process starts
	// stays unwritable.
	Write   []string
	Network bool
	// NetNS says the network is turned off by a network namespace of the
	// process's own, as well as by Landlock where the kernel has TCP rules.
	NetNS bool
	// TempDir is the private temporary directory of one run (see
	// WithTempDir); "" for none.
	TempDir string
	// Refused, if set, says why the process may not run at all: the sandbox
	// is required and cannot be had.
	Refused string
}

// WithTempDir returns a copy of c for one run with a private temporary
// directory, which done removes with everything in it.
func (c *Confinement) WithTempDir(name string) (run *Confinement, done func(), err error) {
	dir, err := os.MkdirTemp("", "ikigai-"+name+"-")
	if err != nil {
		return nil, nil, &Error{Err: fmt.Errorf("making the temporary directory: %w", err)}
	}
	run = new(Confinement)
	*run = *c
	run.TempDir = dir
	return run, func() { os.RemoveAll(dir) }, nil
}

// Env returns the variables a confined process gets: TMPDIR names its
// temporary directory, where programs that make temporary files put them.
func (c *Confinement) Env() []string {
	if c == nil || c.TempDir == "" {
		return nil
	}
	return []string{"TMPDIR=" + c.TempDir}
}

// Error is a process that could not be confined, and so was not started.
type Error struct {
	Err error
}

func (e *Error) Error() string { return "sandbox: " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// IsError reports whether err says a process was not started because it
// could not be confined.
func IsError(err error) bool {
	var e *Error
	return errors.As(err, &e)
}
