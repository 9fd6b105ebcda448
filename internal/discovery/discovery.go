// Package discovery finds the tools in the system, user and project
// directories, asks each for its schema, and builds the registry. Project
// tools run, even for --schema, only when their directory is trusted.
package discovery

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ikigai-tools/ikigai/internal/buildinfo"
	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/registry"
)

// parallel bounds the --schema calls running at once: enough to overlap
// tools that wait on something, few enough not to swamp the machine when a
// directory holds hundreds.
const parallel = 32

// Dirs are the directories to look in. An empty path or a missing
// directory holds no tools.
type Dirs struct {
	System, User, Project string
	// TrustProject allows running the project directory's tools.
	TrustProject bool
	// SchemaTimeout is how long each tool has to answer --schema;
	// zero means DefaultSchemaTimeout.
	SchemaTimeout time.Duration
}

// SystemDir returns the directory of the tools installed with ikigai:
// override if set, else ../libexec/ikigai next to the running executable
// when it exists (a build tree, or any installation prefix), else the
// directory the build was configured for.
func SystemDir(override string) string {
	if override != "" {
		return override
	}
	if exe, err := os.Executable(); err == nil {
		if exe, err := filepath.EvalSymlinks(exe); err == nil {
			dir := filepath.Join(filepath.Dir(exe), "..", "libexec", "ikigai")
			if info, err := os.Stat(dir); err == nil && info.IsDir() {
				return dir
			}
		}
	}
	return filepath.Join(buildinfo.LibexecDir, "ikigai")
}

// ToolSource offers tools that are not executables in the tool
// directories, such as the tools of MCP servers.
type ToolSource interface {
	// Tools returns the usable tools and the ones that are not, with why.
	Tools(ctx context.Context) ([]registry.Tool, []registry.Failure)
}

// Scan finds every tool in d, runs each usable one's --schema in parallel,
// asks the sources in more for theirs meanwhile, and returns the registry.
// The executables take about as long as the slowest one, which is at most
// the schema timeout; a source takes as long as it takes. A source's tools
// come after the executables in precedence.
func Scan(ctx context.Context, d Dirs, more ...ToolSource) *registry.Registry {
	moreTools := make([][]registry.Tool, len(more))
	moreFailed := make([][]registry.Failure, len(more))
	var sources sync.WaitGroup
	for i, m := range more {
		sources.Go(func() { moreTools[i], moreFailed[i] = m.Tools(ctx) })
	}
	found, failed, untrusted := d.list("")
	tools := make([]registry.Tool, len(found))
	problems := make([]error, len(found))
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i, e := range found {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			tools[i] = registry.Tool{Entry: e, Runner: execute.Program{Name: e.Name, Path: e.Path}}
			tools[i].Schema, tools[i].Warnings, problems[i] = Probe(ctx, e.Name, e.Path, d.SchemaTimeout)
		})
	}
	wg.Wait()
	var usable []registry.Tool
	for i, t := range tools {
		if problems[i] != nil {
			failed = append(failed, registry.Failure{Entry: t.Entry, Reason: problems[i].Error()})
			continue
		}
		usable = append(usable, t)
	}
	sources.Wait()
	usable = append(usable, slices.Concat(moreTools...)...)
	failed = append(failed, slices.Concat(moreFailed...)...)
	return registry.New(usable, failed, untrusted)
}

// Locate finds the executable of the tool called name without running
// anything: what a call by name needs, at the cost of a directory listing.
func Locate(d Dirs, name string) (registry.Entry, bool) {
	found, _, _ := d.list(name)
	if len(found) == 0 {
		return registry.Entry{}, false
	}
	return found[0], true
}

// Names returns the sorted names of the tools in d, without running any.
func Names(d Dirs) []string {
	found, _, _ := d.list("")
	var names []string
	for _, e := range found {
		names = append(names, e.Name)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// list returns the tools to probe in order of precedence (project, user,
// system), the files that cannot be tools, and the project tools left
// alone because the project is not trusted; only those called only, if set.
func (d Dirs) list(only string) (found []registry.Entry, failed []registry.Failure, untrusted []registry.Entry) {
	for _, dir := range []struct {
		path string
		src  registry.Source
	}{{d.Project, registry.Project}, {d.User, registry.User}, {d.System, registry.System}} {
		f, bad := listDir(dir.path, dir.src, only)
		failed = append(failed, bad...)
		if dir.src == registry.Project && !d.TrustProject {
			untrusted = f
			continue
		}
		found = append(found, f...)
	}
	return found, failed, untrusted
}

// listDir returns the candidate tools in dir in file name order, and the
// files named like tools that cannot be ones; only those called only, if
// set.
func listDir(dir string, src registry.Source, only string) (found []registry.Entry, failed []registry.Failure) {
	if dir == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			failed = append(failed, registry.Failure{Entry: registry.Entry{Source: src, Path: dir}, Reason: "cannot read directory: " + unwrap(err)})
		}
		return nil, failed
	}
	seen := map[string]string{}
	for _, de := range entries {
		base := de.Name()
		stem, ok := strings.CutSuffix(base, "-tool")
		if !ok || stem == "" {
			continue
		}
		e := registry.Entry{Name: strings.ReplaceAll(stem, "-", "_"), Source: src, Path: filepath.Join(dir, base)}
		if only != "" && e.Name != only {
			continue
		}
		if p := checkFile(de, e.Path); p != nil {
			if p != errSkip {
				failed = append(failed, registry.Failure{Entry: e, Reason: p.Reason})
			}
			continue
		}
		if p := CheckName(e.Name); p != nil {
			failed = append(failed, registry.Failure{Entry: e, Reason: p.Reason})
			continue
		}
		if first, dup := seen[e.Name]; dup {
			failed = append(failed, registry.Failure{Entry: e, Reason: fmt.Sprintf("same tool name as %s", filepath.Base(first))})
			continue
		}
		seen[e.Name] = e.Path
		found = append(found, e)
	}
	return found, failed
}

// errSkip marks a file that is not a tool and not worth reporting: a
// directory named like one.
var errSkip = &Problem{Reason: "not a file"}

// checkFile reports why the file at path, listed as de, cannot be run as a
// tool, or nil.
func checkFile(de fs.DirEntry, path string) *Problem {
	info, err := de.Info()
	if err == nil && de.Type()&fs.ModeSymlink != 0 {
		info, err = os.Stat(path)
		if err != nil {
			return problem("point the link at an executable, or remove it", "broken symlink")
		}
	}
	switch {
	case err != nil:
		return problem("", "%s", unwrap(err))
	case info.IsDir():
		return errSkip
	case !info.Mode().IsRegular():
		return problem("make it a regular executable file", "not a regular file")
	case info.Mode().Perm()&0o111 == 0:
		return problem("chmod +x "+path, "not executable")
	}
	return nil
}

// CheckName reports why name cannot be a tool's name, or nil: model APIs
// accept ^[a-zA-Z0-9_]{1,64}$.
func CheckName(name string) *Problem {
	ok := len(name) >= 1 && len(name) <= 64
	for _, c := range []byte(name) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			ok = false
		}
	}
	if !ok {
		return problem("rename the file NAME-tool with NAME of 1 to 64 letters, digits, hyphens or underscores",
			"invalid name %q: models accept only letters, digits and underscores, at most 64", name)
	}
	return nil
}

// unwrap returns the system's reason without the path an fs error carries.
func unwrap(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
