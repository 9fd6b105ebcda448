package walk

import "strings"

// The outcomes of wildmatch's recursion, as git's wildmatch.c has them:
// besides a match and a mismatch, two ways to stop trying other splits of
// the text early when no split can match.
const (
	wmMatch = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
)

// wildmatch reports whether text matches the glob pattern, as git matches
// ignore patterns (wildmatch.c): * and ? match any characters and one
// character, [...] a set (with ranges, [!...] or [^...] to negate, and
// [:alpha:]-style classes), \ quotes the character after it. With
// pathname, as for patterns that hold a slash, none of these match a
// slash, and ** matches any number of directories where it stands for
// whole components (a/**/b, **/b, a/**); elsewhere ** is *.
func wildmatch(pattern, text string, pathname bool) bool {
	return dowild(pattern, text, pathname) == wmMatch
}

// dowild matches text against p, which is the whole pattern or, in a
// recursive call, what is left of it after a run of stars.
func dowild(p, text string, pathname bool) int {
	for i := 0; i < len(p); i, text = i+1, text[1:] {
		pc := p[i]
		if text == "" && pc != '*' {
			return wmAbortAll
		}
		var tc byte
		if text != "" {
			tc = text[0]
		}
		switch pc {
		case '\\':
			// The next character, literally. A backslash that ends the
			// pattern matches nothing.
			if i++; i == len(p) || tc != p[i] {
				return wmNoMatch
			}
		case '?':
			if pathname && tc == '/' {
				return wmNoMatch
			}
		case '*':
			first := i
			for i+1 < len(p) && p[i+1] == '*' {
				i++
			}
			rest := p[i+1:]
			matchSlash := !pathname
			if pathname && i > first &&
				(first == 0 || p[first-1] == '/') &&
				(rest == "" || rest[0] == '/' || strings.HasPrefix(rest, `\/`)) {
				// ** as a whole component matches any number of them. In
				// a/**/b that can be none: try that first.
				if rest != "" && rest[0] == '/' && dowild(rest[1:], text, pathname) == wmMatch {
					return wmMatch
				}
				matchSlash = true
			}
			if rest == "" {
				// A trailing ** matches everything, a trailing * what has
				// no more slashes.
				if !matchSlash && strings.IndexByte(text, '/') >= 0 {
					return wmNoMatch
				}
				return wmMatch
			}
			if !matchSlash && rest[0] == '/' {
				// One * before a slash matches up to the next slash, which
				// the loop then matches.
				j := strings.IndexByte(text, '/')
				if j < 0 {
					return wmNoMatch
				}
				text = text[j:]
				i++ // at the slash: the loop moves past both
				continue
			}
			for text != "" {
				// A literal after the stars: skip to where it occurs next
				// (without matching slashes, not past the next one).
				if c := rest[0]; !isGlobSpecial(c) {
					j := 0
					for j < len(text) && (matchSlash || text[j] != '/') && text[j] != c {
						j++
					}
					if j == len(text) || text[j] != c {
						return wmNoMatch
					}
					text = text[j:]
				}
				switch m := dowild(rest, text, pathname); {
				case m == wmNoMatch:
					if !matchSlash && text[0] == '/' {
						return wmAbortToStarStar
					}
				case !matchSlash || m != wmAbortToStarStar:
					return m
				}
				text = text[1:]
			}
			return wmAbortAll
		case '[':
			end, ok, in := matchSet(p[i+1:], tc)
			if !ok {
				return wmAbortAll
			}
			if !in || pathname && tc == '/' {
				return wmNoMatch
			}
			i += 1 + end // at the closing ]
		default:
			if tc != pc {
				return wmNoMatch
			}
		}
	}
	if text != "" {
		return wmNoMatch
	}
	return wmMatch
}

// matchSet matches c against the set whose text, after the opening [, is
// at the start of p. It returns the index in p of the ] that closes the
// set, whether the set is well formed, and whether c is in it (negation
// applied).
func matchSet(p string, c byte) (end int, ok, in bool) {
	i := 0
	negated := i < len(p) && (p[i] == '!' || p[i] == '^')
	if negated {
		i++
	}
	var prev byte
	matched := false
	// The first character is in the set even if it is ].
	for first := true; first || i < len(p) && p[i] != ']'; first, i = false, i+1 {
		if i == len(p) {
			return 0, false, false
		}
		pc := p[i]
		switch {
		case pc == '\\':
			if i++; i == len(p) {
				return 0, false, false
			}
			pc = p[i]
			matched = matched || c == pc
		case pc == '-' && prev != 0 && i+1 < len(p) && p[i+1] != ']':
			i++
			hi := p[i]
			if hi == '\\' {
				if i++; i == len(p) {
					return 0, false, false
				}
				hi = p[i]
			}
			matched = matched || prev <= c && c <= hi
			pc = 0 // a range does not start another
		case pc == '[' && i+1 < len(p) && p[i+1] == ':':
			j := strings.IndexByte(p[i+2:], ']')
			if j < 0 {
				return 0, false, false
			}
			name, isClass := strings.CutSuffix(p[i+2:i+2+j], ":")
			if !isClass {
				// No :] before the next ]: the [ is itself.
				matched = matched || c == '['
				break
			}
			class, known := classes[name]
			if !known {
				return 0, false, false
			}
			matched = matched || class(c)
			i += 2 + j // at the ] that ends the class
			pc = 0
		default:
			matched = matched || c == pc
		}
		prev = pc
	}
	if i == len(p) {
		return 0, false, false
	}
	return i, true, matched != negated
}

// classes are the character classes a set may name, in the C locale.
var classes = map[string]func(c byte) bool{
	"alnum":  func(c byte) bool { return isAlpha(c) || isDigit(c) },
	"alpha":  isAlpha,
	"blank":  func(c byte) bool { return c == ' ' || c == '\t' },
	"cntrl":  func(c byte) bool { return c < 0x20 || c == 0x7f },
	"digit":  isDigit,
	"graph":  func(c byte) bool { return c > 0x20 && c < 0x7f },
	"lower":  func(c byte) bool { return 'a' <= c && c <= 'z' },
	"print":  func(c byte) bool { return c >= 0x20 && c < 0x7f },
	"punct":  func(c byte) bool { return c > 0x20 && c < 0x7f && !isAlpha(c) && !isDigit(c) },
	"space":  func(c byte) bool { return c == ' ' || '\t' <= c && c <= '\r' },
	"upper":  func(c byte) bool { return 'A' <= c && c <= 'Z' },
	"xdigit": func(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' },
}

func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isGlobSpecial(c byte) bool { return c == '*' || c == '?' || c == '[' || c == '\\' }
