package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// Limits on what a project may hold to be pinned: a tree bigger than this
// is not one a user reviews before trusting.
const (
	maxPinned   = 10000     // files
	maxPinBytes = 512 << 20 // bytes hashed in all
)

// ProjectFiles are the files of a project directory that hold code or
// settings ikigai uses once the directory is trusted, besides everything
// in its .ikigai directory: Claude Code's project MCP file.
var ProjectFiles = []string{".mcp.json"}

// A Pin is what was trusted of one file: its content's hash, or where a
// symbolic link led, and what identified the file then, so that an
// unchanged file is not read again.
type Pin struct {
	SHA256 string `json:"sha256,omitempty"`
	Link   string `json:"link,omitempty"`
	Size   int64  `json:"size"`
	Mtime  int64  `json:"mtime_ns"`
	Ctime  int64  `json:"ctime_ns"`
	Ino    uint64 `json:"ino"`
}

// Pins are the pins of a project, by path relative to its directory.
type Pins map[string]Pin

// ChangeKind says how a project differs from what was trusted.
type ChangeKind string

const (
	Added    ChangeKind = "added"
	Removed  ChangeKind = "removed"
	Changed  ChangeKind = "changed"
	Foreign  ChangeKind = "owned by another user"
	Unpinned ChangeKind = "trusted before ikigai recorded what it trusts"
	TooLarge ChangeKind = "too large to pin"
)

// A Change is one way a project differs from what was trusted.
type Change struct {
	Path string
	Kind ChangeKind
}

func (c Change) String() string {
	if c.Path == "" {
		return string(c.Kind)
	}
	return fmt.Sprintf("%s: %s", c.Kind, c.Path)
}

// Scan reads what a trusted project in dir consists of: every file under
// its .ikigai (tools, configuration, hooks, commands, skills) and the
// ProjectFiles, each with its owner. A file, or .ikigai itself, owned by
// someone other than the user is a change whatever the pins say, as git's
// safe.directory has it: another user could have planted it. old, if set,
// spares hashing the files whose identity has not changed since;
// anyOwner lets files of other users be (the user trusted the directory
// knowing they were there).
func Scan(dir string, old Pins, anyOwner bool) (Pins, []Change, error) {
	pins := Pins{}
	var problems []Change
	uid := uint32(os.Geteuid())
	foreign := func(st *syscall.Stat_t) bool { return st != nil && st.Uid != uid && !anyOwner }
	var hashed int64
	add := func(rel, path string, info fs.FileInfo) error {
		if len(pins) >= maxPinned {
			problems = append(problems, Change{Kind: TooLarge})
			return filepath.SkipAll
		}
		st, _ := info.Sys().(*syscall.Stat_t)
		if foreign(st) {
			problems = append(problems, Change{rel, Foreign})
		}
		p := Pin{Size: info.Size(), Mtime: info.ModTime().UnixNano()}
		if st != nil {
			p.Ctime, p.Ino = st.Ctim.Nano(), st.Ino
		}
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			if err != nil {
				return err
			}
			p.Link = target
		case info.Mode().IsRegular():
			if o, ok := old[rel]; ok && o.SHA256 != "" && o.Size == p.Size && o.Mtime == p.Mtime && o.Ctime == p.Ctime && o.Ino == p.Ino {
				p.SHA256 = o.SHA256
				break
			}
			if hashed += p.Size; hashed > maxPinBytes {
				problems = append(problems, Change{rel, TooLarge})
				return filepath.SkipAll
			}
			sum, err := hashFile(path)
			if err != nil {
				return err
			}
			p.SHA256 = sum
		default:
			return nil // directories are pinned by what they hold
		}
		pins[rel] = p
		return nil
	}
	ikigai := filepath.Join(dir, ".ikigai")
	if info, err := os.Lstat(ikigai); err == nil {
		if st, _ := info.Sys().(*syscall.Stat_t); foreign(st) {
			problems = append(problems, Change{".ikigai", Foreign})
		}
		err := filepath.WalkDir(ikigai, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, path)
			if d.IsDir() {
				if st, _ := info.Sys().(*syscall.Stat_t); foreign(st) && path != ikigai {
					problems = append(problems, Change{rel, Foreign})
				}
				return nil
			}
			return add(rel, path, info)
		})
		if err != nil {
			return nil, nil, err
		}
	}
	for _, name := range ProjectFiles {
		path := filepath.Join(dir, name)
		if info, err := os.Lstat(path); err == nil && !info.IsDir() {
			if err := add(name, path, info); err != nil && err != filepath.SkipAll {
				return nil, nil, err
			}
		}
	}
	return pins, problems, nil
}

// hashFile returns the SHA-256 of the file at path, in hex.
func hashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Diff returns how now differs from what was pinned, sorted by path.
func Diff(pinned, now Pins) []Change {
	var out []Change
	for rel, p := range now {
		o, ok := pinned[rel]
		switch {
		case !ok:
			out = append(out, Change{rel, Added})
		case o.SHA256 != p.SHA256 || o.Link != p.Link:
			out = append(out, Change{rel, Changed})
		}
	}
	for rel := range pinned {
		if _, ok := now[rel]; !ok {
			out = append(out, Change{rel, Removed})
		}
	}
	slices.SortFunc(out, func(a, b Change) int { return strings.Compare(a.Path, b.Path) })
	return out
}
