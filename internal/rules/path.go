package rules

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// parseGlob reads a path rule's pattern: a doublestar glob, relative to
// the working directory, absolute, or from ~/.
func parseGlob(p string) (string, error) {
	if strings.HasSuffix(p, "/") {
		p += "**" // src/ is the directory and everything in it
	}
	if slices.Contains(strings.Split(p, "/"), "..") {
		return "", errors.New("a path pattern cannot climb out with ..; write it from / or ~/")
	}
	if !doublestar.ValidatePattern(p) {
		return "", errors.New("the pattern is not a valid glob (** any directories, * and ? within a name, [abc], {a,b})")
	}
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	if p == "" || p == "." {
		p = "**"
	}
	return p, nil
}

// matchPath matches a path argument against the rule's glob. strict (for
// allow rules) matches only where the path really leads, its symlinks
// resolved; otherwise (deny and ask rules) either that or the path as
// written is enough. A relative glob never matches a path outside the
// working directory.
func (r Rule) matchPath(p, dir, home string, strict bool) Verdict {
	glob := r.glob
	switch {
	case glob == "~" || strings.HasPrefix(glob, "~/"):
		if home == "" {
			return No
		}
		glob = filepath.ToSlash(home) + glob[1:]
	case !strings.HasPrefix(glob, "/") && dir == "":
		return No
	}
	lexical := filepath.Clean(filepath.Join(dir, p))
	if filepath.IsAbs(p) {
		lexical = filepath.Clean(p)
	}
	real := resolve(lexical)
	matches := func(path, dir string) bool {
		if !strings.HasPrefix(glob, "/") {
			rel, err := filepath.Rel(dir, path)
			if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
				return false
			}
			path = rel
		}
		ok, _ := doublestar.Match(glob, filepath.ToSlash(path))
		return ok
	}
	if matches(real, resolve(dir)) || !strict && matches(lexical, dir) {
		return Yes
	}
	return No
}

// resolve returns where path leads, its symlinks resolved as far as it
// exists (a file about to be written need not).
func resolve(path string) string {
	rest := ""
	for range 256 {
		if real, err := filepath.EvalSymlinks(path); err == nil {
			return filepath.Join(real, rest)
		} else if !errors.Is(err, os.ErrNotExist) {
			break
		}
		parent := filepath.Dir(path)
		if parent == path {
			break
		}
		rest = filepath.Join(filepath.Base(path), rest)
		path = parent
	}
	return filepath.Join(path, rest)
}

// parseDomain reads domain:HOST.
func parseDomain(p string) (string, error) {
	host, ok := strings.CutPrefix(p, "domain:")
	host = strings.ToLower(host)
	if !ok || host == "" || strings.HasPrefix(host, ".") || strings.HasSuffix(host, ".") ||
		strings.ContainsFunc(host, func(r rune) bool { return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.') }) {
		return "", errors.New("a web_fetch pattern is domain:HOST, such as domain:go.dev (its subdomains included)")
	}
	return host, nil
}

// hostMatches reports whether the http(s) URL u is on host or one of its
// subdomains.
func hostMatches(u, host string) bool {
	parsed, err := url.Parse(u)
	if err != nil || parsed.Scheme != "http" && parsed.Scheme != "https" {
		return false
	}
	h := strings.TrimSuffix(strings.ToLower(parsed.Hostname()), ".")
	return h == host || strings.HasSuffix(h, "."+host)
}
