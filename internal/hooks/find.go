package hooks

import (
	"cmp"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Suffix ends the name of every hook file: EVENT-NAME-hook.
const Suffix = "-hook"

// Dirs are the hooks directories. Project is used only when TrustProject
// is set; its hooks are listed as untrusted otherwise.
type Dirs struct {
	User, Project string
	TrustProject  bool
}

// Find returns the hooks in the directories d and configured, in the order
// they run: by scope, the project's first, and within a scope the
// configured ones before the files, which go by name. Files that cannot be
// hooks are in Broken.
func Find(d Dirs, configured []Hook) *Set {
	s := &Set{}
	user, broken := listDir(d.User, User, UserScope)
	s.Broken = append(s.Broken, broken...)
	project, broken := listDir(d.Project, Project, ProjectScope)
	s.Broken = append(s.Broken, broken...)
	if d.TrustProject {
		s.Hooks = append(s.Hooks, project...)
	} else {
		s.Untrusted = project
	}
	s.Hooks = append(s.Hooks, user...)
	s.Hooks = append(slices.Clone(configured), s.Hooks...)
	// Stable: configured hooks keep their order, and come before the
	// files of their scope.
	slices.SortStableFunc(s.Hooks, func(a, b Hook) int { return cmp.Compare(a.Scope, b.Scope) })
	return s
}

// listDir returns the hooks in dir, by file name, and the files named like
// hooks that cannot be ones.
func listDir(dir string, src Source, scope Scope) (found []Hook, broken []Broken) {
	if dir == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			broken = append(broken, Broken{Path: dir, Source: src, Reason: "cannot read the directory: " + reason(err)})
		}
		return nil, broken
	}
	for _, de := range entries {
		base := de.Name()
		stem, ok := strings.CutSuffix(base, Suffix)
		if !ok || strings.HasPrefix(base, ".") {
			continue
		}
		p := filepath.Join(dir, base)
		info, err := os.Stat(p) // a link counts as what it points at
		switch {
		case err != nil:
			broken = append(broken, Broken{Path: p, Source: src, Reason: reason(err)})
			continue
		case info.IsDir():
			continue
		case !info.Mode().IsRegular():
			broken = append(broken, Broken{Path: p, Source: src, Reason: "not a regular file"})
			continue
		}
		event, name, _ := strings.Cut(stem, "-")
		ev, err := ParseEvent(event)
		switch {
		case err != nil:
			broken = append(broken, Broken{Path: p, Source: src, Reason: "the name does not start with an event: " + err.Error()})
		case name == "":
			broken = append(broken, Broken{Path: p, Source: src, Reason: "want EVENT-NAME-hook, with a name after the event"})
		case info.Mode().Perm()&0o111 == 0:
			broken = append(broken, Broken{Path: p, Source: src, Reason: "not executable (chmod +x " + p + ")"})
		default:
			found = append(found, Hook{Event: ev, Name: base, Source: src, Scope: scope, Path: p, Timeout: DefaultTimeout})
		}
	}
	return found, broken
}

// reason is the system's reason for err, without the path.
func reason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
