package files

import (
	"fmt"
	"unicode/utf8"

	"github.com/ikigai-tools/ikigai/toolsdk"
)

// MaxPatternLen is the longest pattern, a regular expression or a glob, a
// core tool accepts, in characters.
const MaxPatternLen = 1024

// CheckPattern validates a pattern argument by the core tools' rules: not
// empty and at most MaxPatternLen characters. what names the argument for
// the message ("pattern", "glob"); the error's code is INVALID_PATTERN.
func CheckPattern(what, pattern string) error {
	switch n := utf8.RuneCountInString(pattern); {
	case n == 0:
		return &toolsdk.Error{Code: CodeInvalidPattern, Op: "invalid " + what, Reason: what + " is empty"}
	case n > MaxPatternLen:
		return &toolsdk.Error{Code: CodeInvalidPattern, Op: "invalid " + what, Path: firstRunes(pattern, 64) + "...",
			Reason: fmt.Sprintf("%s is longer than %d characters", what, MaxPatternLen)}
	}
	return nil
}

// firstRunes returns the first n characters of s.
func firstRunes(s string, n int) string {
	i := 0
	for ; n > 0 && i < len(s); n-- {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}
