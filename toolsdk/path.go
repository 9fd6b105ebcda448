package toolsdk

import (
	"strings"
)

// MaxPathLen is the longest path a core tool accepts, in bytes.
const MaxPathLen = 4096

// CheckPath validates a path argument by the core tools' rules: not empty,
// at most MaxPathLen bytes, no NUL byte, and no ".." component, so a path
// cannot climb out of where it points. Absolute and relative paths are both
// fine and symlinks are followed later, as usual. op names the operation
// for the message ("reading file"); the error's code is INVALID_PATH.
func CheckPath(op, path string) error {
	var reason string
	switch {
	case path == "":
		reason = "path is empty"
	case len(path) > MaxPathLen:
		return Errorf("INVALID_PATH", "Error: %s '%s...': path is longer than %d bytes", op, path[:64], MaxPathLen)
	case strings.IndexByte(path, 0) >= 0:
		reason = "path contains a NUL byte"
	case hasDotDot(path):
		reason = "path contains a '..' component"
	default:
		return nil
	}
	return Errorf("INVALID_PATH", "Error: %s '%s': %s", op, path, reason)
}

func hasDotDot(path string) bool {
	for part := range strings.SplitSeq(path, "/") {
		if part == ".." {
			return true
		}
	}
	return false
}
