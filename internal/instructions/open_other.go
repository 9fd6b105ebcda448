//go:build !linux

package instructions

import "os"

// openBeneath opens name inside root for reading without blocking,
// refusing a path whose symbolic links lead out of root.
func openBeneath(root, name string) (*os.File, error) { return openResolved(root, name) }
