package walk

import (
	"bytes"
	"strings"
)

// pattern is one line of an ignore file, parsed as git parses it.
type pattern struct {
	glob    string // what is left of the line, for wildmatch
	negate  bool   // it started with !: what it matches is not ignored
	dirOnly bool   // it ended with /: it matches directories only
	// name means the pattern has no slash (but perhaps the final one): it
	// matches a file's name at any depth. Otherwise it matches the path
	// below the ignore file's directory.
	name bool
}

// parsePatterns reads the patterns of an ignore file, following
// gitignore(5): a blank line or one starting with # is none; trailing
// spaces are dropped unless quoted with a backslash; ! negates; a final /
// matches directories only; a leading / anchors without changing what
// matches.
func parsePatterns(data []byte) []pattern {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a byte order mark, as git allows
	var patterns []pattern
	for len(data) > 0 {
		var line []byte
		line, data, _ = bytes.Cut(data, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		s := trimTrailingSpaces(string(line))
		var p pattern
		if strings.HasPrefix(s, "!") {
			p.negate = true
			s = s[1:]
		}
		if strings.HasSuffix(s, "/") {
			p.dirOnly = true
			s = s[:len(s)-1]
		}
		p.name = !strings.Contains(s, "/")
		if !p.name {
			s = strings.TrimPrefix(s, "/")
		}
		if s == "" {
			continue
		}
		p.glob = s
		patterns = append(patterns, p)
	}
	return patterns
}

// trimTrailingSpaces drops the spaces that end s, but not one a backslash
// quotes.
func trimTrailingSpaces(s string) string {
	end := len(s)
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if end == len(s) {
				end = i
			}
			continue
		case '\\':
			i++
		}
		end = len(s)
	}
	return s[:end]
}

// match reports whether p matches the file at path, which is slash-separated
// and relative to the ignore file's directory, and whose name is name.
func (p *pattern) match(path, name string, isDir bool) bool {
	switch {
	case p.dirOnly && !isDir:
		return false
	case p.name:
		return matchName(p.glob, name)
	default:
		return wildmatch(p.glob, path, true)
	}
}

// matchName matches a pattern without slashes against a name, as git
// does, with shortcuts for the usual literal names and *.ext patterns.
func matchName(glob, name string) bool {
	if !hasGlobSpecial(glob) {
		return glob == name
	}
	if glob[0] == '*' && !hasGlobSpecial(glob[1:]) {
		return strings.HasSuffix(name, glob[1:])
	}
	return wildmatch(glob, name, false)
}

func hasGlobSpecial(s string) bool {
	return strings.ContainsAny(s, `*?[\`)
}
