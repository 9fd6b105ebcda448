// Package scaffold writes a new tool that works as written, for an author
// to change into theirs: a Python or shell script straight into a tool
// directory, or a Go module on toolsdk to build into one.
package scaffold

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ikigai-tools/ikigai/internal/buildinfo"
	"github.com/ikigai-tools/ikigai/internal/discovery"
	"github.com/ikigai-tools/ikigai/toolsdk"
)

//go:embed skeleton
var skeletons embed.FS

// Languages are the languages a tool can be written in, the default first.
var Languages = []string{"python", "go", "sh"}

// A Tool is a tool to write.
type Tool struct {
	// Name is the tool's name or its file name (NAME or NAME-tool).
	Name string
	// Lang is one of Languages.
	Lang string
	// Dir is the tool directory a script goes into, or a Go tool is to be
	// built into.
	Dir string
	// ModuleDir is the directory a Go tool's module is written in.
	ModuleDir string
	// Toolsdk is the directory of the toolsdk source a Go tool builds
	// against (ToolsdkDir's); "" to fetch it from a module proxy.
	Toolsdk string
}

// toolsdkModule is toolsdk's module path.
const toolsdkModule = "github.com/ikigai-tools/ikigai/toolsdk"

// ToolsdkDir returns the directory of the toolsdk source installed with
// ikigai: share/ikigai/toolsdk beside the running executable's prefix, or
// the toolsdk of the source tree a bin/ikigai was built in, or the data
// directory the build was made for; "" when there is none.
func ToolsdkDir() string {
	var dirs []string
	if exe, err := os.Executable(); err == nil {
		if exe, err := filepath.EvalSymlinks(exe); err == nil {
			prefix := filepath.Dir(filepath.Dir(exe))
			dirs = append(dirs, filepath.Join(prefix, "share", "ikigai", "toolsdk"), filepath.Join(prefix, "toolsdk"))
		}
	}
	dirs = append(dirs, filepath.Join(buildinfo.DataDir, "ikigai", "toolsdk"))
	for _, d := range dirs {
		if data, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && strings.Contains(string(data), "module "+toolsdkModule+"\n") {
			return d
		}
	}
	return ""
}

// names returns the tool's name and its file name.
func (t Tool) names() (name, command string) {
	name, _ = toolsdk.ToolName(strings.TrimSuffix(t.Name, "-tool") + "-tool")
	return name, toolsdk.FileName(name)
}

// Check reports what is wrong with the tool's name or language.
func (t Tool) Check() error {
	name, _ := t.names()
	if p := discovery.CheckName(name); p != nil {
		return p
	}
	if !slices.Contains(Languages, t.Lang) {
		return fmt.Errorf("--lang %s: want go, python or sh", t.Lang)
	}
	return nil
}

// Write writes the tool, which must pass Check, and returns what to tell
// its author: what was written and what to do next. It never replaces a
// file.
func Write(t Tool) (string, error) {
	if err := t.Check(); err != nil {
		return "", err
	}
	name, command := t.names()
	fill := strings.NewReplacer("TOOL_NAME", name, "TOOL_COMMAND", command).Replace
	switch t.Lang {
	case "python", "sh":
		path := filepath.Join(t.Dir, command)
		src := "skeleton/tool.py.txt"
		if t.Lang == "sh" {
			src = "skeleton/tool.sh.txt"
		}
		if err := os.MkdirAll(t.Dir, 0o755); err != nil {
			return "", err
		}
		if err := create(path, fill(mustRead(src)), 0o755); err != nil {
			return "", err
		}
		return fmt.Sprintf("Wrote %s\n\nTry it:\n  ikigai tools call %s '{\"name\": \"world\"}'\n  ikigai tools check %s\n", path, name, path), nil
	case "go":
		mod := filepath.Join(t.ModuleDir, command)
		if err := os.Mkdir(mod, 0o755); err != nil {
			return "", existing(mod, err)
		}
		for src, dst := range map[string]string{"skeleton/main.go.txt": "main.go", "skeleton/go.mod.txt": "go.mod"} {
			if err := create(filepath.Join(mod, dst), fill(mustRead(src)), 0o644); err != nil {
				return "", err
			}
		}
		if t.Toolsdk != "" {
			// toolsdk is not on a module proxy: the module builds against
			// the copy installed with ikigai, offline.
			replace := fmt.Sprintf("\nrequire %s v0.0.0\n\n// toolsdk is built from the copy installed with ikigai, so that this builds\n// offline; drop this line to take it from a module proxy.\nreplace %s => %s\n", toolsdkModule, toolsdkModule, t.Toolsdk)
			f, err := os.OpenFile(filepath.Join(mod, "go.mod"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return "", err
			}
			_, err = f.WriteString(replace)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return "", err
			}
		}
		bin := filepath.Join(t.Dir, command)
		get := ""
		if t.Toolsdk == "" {
			get = "  go get " + toolsdkModule + "\n"
		}
		return fmt.Sprintf("Wrote %s/main.go and %s/go.mod\n\nBuild it into %s:\n  cd %s\n%s  go build -o %s .\n  ikigai tools check %s\n",
			command, command, t.Dir, command, get, bin, bin), nil
	}
	panic("unreachable: Check passed " + t.Lang)
}

// create writes a new file, refusing to replace one.
func create(path, content string, mode os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return existing(path, err)
	}
	if _, err := f.WriteString(content); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// existing explains an error creating path, which is most often that it
// exists.
func existing(path string, err error) error {
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("%s already exists; choose another name or remove it", path)
	}
	return err
}

func mustRead(name string) string {
	data, err := skeletons.ReadFile(name)
	if err != nil {
		panic(err) // embedded at build time
	}
	return string(data)
}
