//go:build !linux

package sandbox

import (
	"errors"
	"os/exec"
)

// Start starts cmd, which c must leave unconfined: only Linux has Landlock.
func Start(cmd *exec.Cmd, c *Confinement) error {
	if c == nil {
		return cmd.Start()
	}
	if c.Refused != "" {
		return &Error{Err: errors.New(c.Refused)}
	}
	return &Error{Err: errors.New("this system has no sandbox: Landlock is Linux's")}
}

func landlockABI() (int, string) { return 0, "Landlock is Linux's" }

func probeNetNS() error { return errors.New("network namespaces are Linux's") }

func onConfinedThread(*Confinement, func() error) error {
	return &Error{Err: errors.New("no Landlock: it is Linux's")}
}
