package toolsdk

import "strings"

// MaxNameLen is the longest tool name, in bytes: model APIs accept no more.
const MaxNameLen = 64

// suffix ends the file name of every tool.
const suffix = "-tool"

// ToolName returns the name of the tool whose executable is called file
// (a file name, not a path): the name minus -tool, with hyphens as
// underscores, so that file-read-tool is file_read. It reports false when
// file is not named like a tool: NAME-tool with NAME not empty. The name
// may still be one models reject; see [ValidName].
func ToolName(file string) (string, bool) {
	stem, ok := strings.CutSuffix(file, suffix)
	if !ok || stem == "" {
		return "", false
	}
	return strings.ReplaceAll(stem, "-", "_"), true
}

// FileName returns the file name of the executable of the tool called
// name: file_read is file-read-tool. [ToolName] of it gives name back.
func FileName(name string) string {
	return strings.ReplaceAll(name, "_", "-") + suffix
}

// ValidName reports whether name can be a tool's name: 1 to [MaxNameLen]
// ASCII letters, digits and underscores, ^[a-zA-Z0-9_]{1,64}$, what every
// model API accepts. A tool whose file name gives another name is not used.
func ValidName(name string) bool {
	if len(name) == 0 || len(name) > MaxNameLen {
		return false
	}
	for _, c := range []byte(name) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}
