// Package skills finds the skills a user can load into a conversation:
// Markdown files that teach the model something (a domain, a procedure,
// the tools that go with them). A skill is NAME.md, or NAME/SKILL.md, in
// the system, user or project skills directory; a project's skill replaces
// a user's of the same name, which replaces the system's.
package skills

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/ikigai-tools/ikigai/internal/buildinfo"
)

// MaxSize is the largest skill that can be loaded: a skill is read into
// the conversation whole, and must leave room for the work.
const MaxSize = 256 << 10

// Source says which directory a skill came from.
type Source string

const (
	System  Source = "system"
	User    Source = "user"
	Project Source = "project"
)

// Dirs are the directories skills are found in; an empty or missing one
// holds none. Project is set only for a trusted directory.
type Dirs struct {
	System, User, Project string
}

// SystemDir returns the directory of the skills installed with ikigai:
// ../share/ikigai/skills next to the running executable when it exists (a
// build tree, or any installation prefix), else the one the build was
// configured for.
func SystemDir() string {
	if exe, err := os.Executable(); err == nil {
		if exe, err := filepath.EvalSymlinks(exe); err == nil {
			dir := filepath.Join(filepath.Dir(exe), "..", "share", "ikigai", "skills")
			if info, err := os.Stat(dir); err == nil && info.IsDir() {
				return dir
			}
		}
	}
	return filepath.Join(buildinfo.DataDir, "ikigai", "skills")
}

// A Skill is one skill file.
type Skill struct {
	Name        string `json:"name"`
	Source      Source `json:"source"`
	Path        string `json:"path"`
	Description string `json:"description"`
	// Tools are the tools the skill's front matter names (tools: [a, b]):
	// those of its domain, which loading it offers.
	Tools []string `json:"tools,omitempty"`
}

// List returns the skills in d, one per name, sorted by name.
func List(d Dirs) []Skill {
	byName := map[string]Skill{}
	for _, dir := range []struct {
		path string
		src  Source
	}{{d.System, System}, {d.User, User}, {d.Project, Project}} {
		for _, s := range listDir(dir.path, dir.src) {
			byName[s.Name] = s // later directories win
		}
	}
	list := make([]Skill, 0, len(byName))
	for _, s := range byName {
		list = append(list, s)
	}
	slices.SortFunc(list, func(a, b Skill) int { return strings.Compare(a.Name, b.Name) })
	return list
}

// Find returns the skill called name.
func Find(d Dirs, name string) (Skill, bool) {
	for _, s := range List(d) {
		if s.Name == name {
			return s, true
		}
	}
	return Skill{}, false
}

// Read returns the skill's text.
func (s Skill) Read() (string, error) {
	f, err := os.Open(s.Path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	switch {
	case err != nil:
		return "", err
	case len(data) > MaxSize:
		return "", fmt.Errorf("skill '%s' is larger than %d KiB", s.Name, MaxSize>>10)
	}
	return strings.ToValidUTF8(string(data), "\uFFFD"), nil
}

// listDir returns the skills directly in dir: NAME.md files and NAME/SKILL.md.
func listDir(dir string, src Source) []Skill {
	if dir == "" {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var list []Skill
	for _, e := range entries {
		name, path := e.Name(), filepath.Join(dir, e.Name())
		if e.IsDir() || e.Type()&fs.ModeSymlink != 0 && isDir(path) {
			path = filepath.Join(path, "SKILL.md")
		} else if name, _ = strings.CutSuffix(name, ".md"); name == e.Name() {
			continue
		}
		if !validName(name) {
			continue
		}
		desc, tools, err := describe(path)
		if err != nil {
			continue
		}
		list = append(list, Skill{Name: name, Source: src, Path: path, Description: desc, Tools: tools})
	}
	return list
}

func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}

// validName reports whether name can be typed after /load: printable, no
// spaces, not hidden.
func validName(name string) bool {
	if name == "" || strings.HasPrefix(name, ".") {
		return false
	}
	for _, r := range name {
		if unicode.IsSpace(r) || !unicode.IsPrint(r) {
			return false
		}
	}
	return true
}

// describe returns a one-line description of the skill at path (the
// description field of its front matter, else its first line of text, less
// any heading marks) and the tools its front matter names. It fails when
// the file cannot be read as a skill.
func describe(path string) (desc string, tools []string, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return "", nil, err
	}
	if !info.Mode().IsRegular() {
		return "", nil, errors.New("not a regular file")
	}
	sc := bufio.NewScanner(io.LimitReader(f, 16<<10))
	front, inTools := false, false
	for n := 0; sc.Scan(); n++ {
		raw := string(bytes.ToValidUTF8(sc.Bytes(), []byte("\uFFFD")))
		line := strings.TrimSpace(raw)
		switch {
		case n == 0 && line == "---":
			front = true
		case front && line == "---":
			front = false
		case front && inTools && strings.HasPrefix(line, "- "):
			tools = append(tools, unquote(strings.TrimPrefix(line, "- ")))
		case front:
			inTools = false
			key, v, _ := strings.Cut(line, ":")
			v = strings.TrimSpace(v)
			switch strings.TrimSpace(key) {
			case "description":
				desc = unquote(v)
			case "tools":
				if list, ok := strings.CutPrefix(v, "["); ok {
					for _, t := range strings.Split(strings.TrimSuffix(list, "]"), ",") {
						if t = unquote(t); t != "" {
							tools = append(tools, t)
						}
					}
				} else {
					inTools = v == "" // a block list follows
				}
			}
		case line != "" && desc == "":
			return strings.TrimSpace(strings.TrimLeft(line, "#")), tools, nil
		case line != "":
			return desc, tools, nil
		}
	}
	return desc, tools, nil
}

// unquote trims a YAML scalar's spaces and quotes.
func unquote(s string) string {
	return strings.Trim(strings.TrimSpace(s), `"'`)
}
