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
}

// List returns the trusted directories, sorted.
func (s *Store) List() ([]string, error) {
	data, err := os.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var doc document
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", s.path, err)
	}
	return doc.Directories, nil
}

// Contains reports whether dir, as Canonical returns it, is trusted.
func (s *Store) Contains(dir string) (bool, error) {
	dirs, err := s.List()
	return slices.Contains(dirs, dir), err
}

// Add trusts dir, as Canonical returns it.
func (s *Store) Add(dir string) error {
	dirs, err := s.List()
	if err != nil || slices.Contains(dirs, dir) {
		return err
	}
	dirs = append(dirs, dir)
	slices.Sort(dirs)
	return s.write(dirs)
}

// Remove stops trusting dir, and reports whether it was trusted.
func (s *Store) Remove(dir string) (bool, error) {
	dirs, err := s.List()
	i := slices.Index(dirs, dir)
	if err != nil || i < 0 {
		return false, err
	}
	return true, s.write(slices.Delete(dirs, i, i+1))
}

// write replaces the file atomically, so a crash leaves the old list or the
// new one.
func (s *Store) write(dirs []string) error {
	data, err := json.MarshalIndent(document{Directories: dirs}, "", "  ")
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
