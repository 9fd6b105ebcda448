//go:build !linux

package main

import "syscall"

// adoptOrphans does nothing where there is no subreaper.
func adoptOrphans() {}

// killTree does nothing where there is no /proc to find descendants in:
// the signals to the command's process group are all there is.
func killTree(syscall.Signal) {}
