// Package lazyregexp compiles a package's regular expressions on first
// use rather than when the program starts: every ikigai command pays for
// each package-level regexp.MustCompile in the binary, and most use none
// of them.
package lazyregexp

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr the first time it is called,
// panicking if it is invalid as regexp.MustCompile does, and returns the
// same *regexp.Regexp every time.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
