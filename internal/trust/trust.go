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

// Contains reports whether dir, as Canonical returns it, is trusted.
func (s *Store) Contains(dir string) (bool, error) {
	dirs, err := s.List()
	return slices.Contains(dirs, dir), err
}

// Add trusts dir, as Canonical returns it, declined before or not.
func (s *Store) Add(dir string) error {
	doc, err := s.read()
	if err != nil {
		return err
	}
	if !slices.Contains(doc.Directories, dir) {
		doc.Directories = append(doc.Directories, dir)
		slices.Sort(doc.Directories)
	}
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
