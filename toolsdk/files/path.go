package files

import (
	"fmt"
	"strings"

	"github.com/ikigai-tools/ikigai/toolsdk"
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
		return &toolsdk.Error{Code: CodeInvalidPath, Op: op, Path: path[:64] + "...",
			Reason: fmt.Sprintf("path is longer than %d bytes", MaxPathLen)}
	case strings.IndexByte(path, 0) >= 0:
		reason = "path contains a NUL byte"
	case hasDotDot(path):
		reason = "path contains a '..' component"
	default:
		return nil
	}
	return &toolsdk.Error{Code: CodeInvalidPath, Op: op, Path: path, Reason: reason}
}

func hasDotDot(path string) bool {
	for part := range strings.SplitSeq(path, "/") {
		if part == ".." {
			return true
		}
	}
	return false
}
