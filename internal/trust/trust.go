// Package trust remembers the project directories whose own tools and
// configuration the user allowed to run. Code in a directory the user
// merely visits runs only once that directory is trusted.
package trust

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// Store is the list of trusted directories kept in a file in the user's
// configuration area.
type Store struct {
	path string
}

// At returns the store kept in the file at path.
func At(path string) *Store { return &Store{path: path} }

type document struct {
	Directories []string `json:"trusted_directories"`
	// Pins are what was trusted of each directory.
	Pins map[string]pinned `json:"pins,omitempty"`
	// Declined are the directories the user was asked about and chose not
	// to trust, so that they are not asked again.
	Declined []string `json:"declined_directories,omitempty"`
}

func (s *Store) read() (document, error) {
	var doc document
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return doc, nil
	}
	if err != nil {
		return doc, err
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return doc, fmt.Errorf("%s: %v", s.path, err)
	}
	return doc, nil
}

// List returns the trusted directories, sorted.
func (s *Store) List() ([]string, error) {
	doc, err := s.read()
	return doc.Directories, err
}

// Lists returns the trusted directories and those the user declined to
// trust when asked, each sorted.
func (s *Store) Lists() (trusted, declined []string, err error) {
	doc, err := s.read()
	return doc.Directories, doc.Declined, err
}

// Declined reports whether the user chose not to trust dir, as Canonical
// returns it, when asked.
func (s *Store) Declined(dir string) (bool, error) {
	doc, err := s.read()
	return slices.Contains(doc.Declined, dir), err
}

// Decline remembers that the user chose not to trust dir.
func (s *Store) Decline(dir string) error {
	doc, err := s.read()
	if err != nil || slices.Contains(doc.Declined, dir) {
		return err
	}
	doc.Declined = append(doc.Declined, dir)
	slices.Sort(doc.Declined)
	return s.write(doc)
}

// pinned is what was trusted of a directory.
type pinned struct {
	Files Pins `json:"files"`
	// AnyOwner says the user trusted it although some of it was another
	// user's (ikigai trust --force).
	AnyOwner bool `json:"any_owner,omitempty"`
}

// Contains reports whether dir, as Canonical returns it, is in the list of
// trusted directories, whatever has changed in it since.
func (s *Store) Contains(dir string) (bool, error) {
	dirs, err := s.List()
	return slices.Contains(dirs, dir), err
}

// Verify reports whether dir, as Canonical returns it, is trusted as it is
// now: in the list, with nothing of what was trusted (its .ikigai and the
// ProjectFiles) added, removed or changed since, and nothing of it owned by
// another user unless that was accepted. A trusted directory that changed
// is not trusted until the user trusts it again; the changes say why.
func (s *Store) Verify(dir string) (trusted bool, changes []Change, err error) {
	doc, err := s.read()
	if err != nil || !slices.Contains(doc.Directories, dir) {
		return false, nil, err
	}
	p, ok := doc.Pins[dir]
	now, problems, err := Scan(dir, p.Files, p.AnyOwner)
	if err != nil {
		return false, nil, err
	}
	changes = problems
	if !ok {
		changes = append(changes, Change{Kind: Unpinned})
	} else {
		changes = append(changes, Diff(p.Files, now)...)
	}
	if len(changes) > 0 {
		return false, changes, nil
	}
	// Same content: remember how the files look now (a checkout touched
	// them), so that they are not read again next time.
	if !samePins(p.Files, now) {
		doc.Pins[dir] = pinned{Files: now, AnyOwner: p.AnyOwner}
		s.write(doc) // only costs time next run if it fails
	}
	return true, nil, nil
}

func samePins(a, b Pins) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// Add trusts dir, as Canonical returns it, as it is now (pins, from Scan),
// declined before or not; anyOwner accepts what other users own in it.
func (s *Store) Add(dir string, pins Pins, anyOwner bool) error {
	doc, err := s.read()
	if err != nil {
		return err
	}
	if !slices.Contains(doc.Directories, dir) {
		doc.Directories = append(doc.Directories, dir)
		slices.Sort(doc.Directories)
	}
	if doc.Pins == nil {
		doc.Pins = map[string]pinned{}
	}
	doc.Pins[dir] = pinned{Files: pins, AnyOwner: anyOwner}
	doc.Declined = slices.DeleteFunc(doc.Declined, func(d string) bool { return d == dir })
	return s.write(doc)
}

// Remove stops trusting dir, and reports whether it was trusted. The user
// will be asked about it again.
func (s *Store) Remove(dir string) (bool, error) {
	doc, err := s.read()
	i := slices.Index(doc.Directories, dir)
	if err != nil || i < 0 {
		return false, err
	}
	doc.Directories = slices.Delete(doc.Directories, i, i+1)
	delete(doc.Pins, dir)
	return true, s.write(doc)
}

// write replaces the file atomically, so a crash leaves the old list or the
// new one.
func (s *Store) write(doc document) error {
	if doc.Directories == nil {
		doc.Directories = []string{}
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), ".trust-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), s.path)
}

// Canonical returns the form a directory is trusted under: absolute, with
// symbolic links resolved, so that one directory has one name. home
// replaces a leading "~/".
func Canonical(dir, home string) (string, error) {
	if dir == "~" || len(dir) > 1 && dir[:2] == "~/" {
		dir = filepath.Join(home, dir[1:])
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real, nil
	}
	return abs, nil
}
