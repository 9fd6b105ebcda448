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
	"github.com/ikigai-tools/ikigai/internal/fserr"
	"github.com/ikigai-tools/ikigai/internal/registry"
	"github.com/ikigai-tools/ikigai/internal/sandbox"
	// How a file name makes a tool's name, and what a name may be, are the
	// protocol's rules: discovery takes them from their one home on purpose.
	"github.com/ikigai-tools/ikigai/toolsdk"
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
	// Sandbox decides how each tool's calls are confined; nil for not at
	// all.
	Sandbox *sandbox.Policy
	// Cache remembers the tools' schemas between scans; nil for none.
	Cache *SchemaCache
	// Env is what of the agent's environment the tools get, for --schema
	// and for their calls.
	Env execute.Env
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
	problems := make([]*Problem, len(found))
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i, e := range found {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			tools[i] = registry.Tool{Entry: e, Runner: execute.Program{Name: e.Name, Path: e.Path}}
			tools[i].Schema, tools[i].Warnings, problems[i] = d.Cache.probe(ctx, e.Name, e.Path, d.SchemaTimeout, d.Env)
		})
	}
	wg.Wait()
	d.Cache.forget([]string{d.System, d.User, d.Project})
	d.Cache.Save() // a cache that cannot be written only costs time
	var usable []registry.Tool
	for i, t := range tools {
		if problems[i] != nil {
			failed = append(failed, registry.Failure{Entry: t.Entry, Reason: problems[i].Reason})
			continue
		}
		t.Runner = d.Program(t.Entry, t.Schema)
		usable = append(usable, t)
	}
	sources.Wait()
	usable = append(usable, slices.Concat(moreTools...)...)
	failed = append(failed, slices.Concat(moreFailed...)...)
	return registry.New(usable, failed, untrusted)
}

// Program returns how to run the tool at e, whose schema is s: confined
// as the sandbox policy says for it. A project's tool is code from the
// directory ikigai runs in, which a confined tool may have written: the
// paths it declares count only inside the workspace.
func (d Dirs) Program(e registry.Entry, s registry.Schema) execute.Program {
	needs := s.Sandbox
	if needs != nil && needs.Write != nil && e.Source == registry.Project {
		inside := &sandbox.Needs{Write: []string{}, Network: needs.Network}
		for _, p := range needs.Write {
			for _, v := range []string{sandbox.WorkspaceVar, sandbox.TempVar} {
				if p == v || strings.HasPrefix(p, v+"/") {
					inside.Write = append(inside.Write, p)
				}
			}
		}
		needs = inside
	}
	return execute.Program{Name: e.Name, Path: e.Path, Env: d.Env, Sandbox: d.Sandbox.For(e.Name, s.Annotations.ReadOnly(), needs)}
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
// alone because the project is not trusted; with a name (want), only the
// tools of that name.
func (d Dirs) list(want string) (found []registry.Entry, failed []registry.Failure, untrusted []registry.Entry) {
	for _, dir := range []struct {
		path string
		src  registry.Source
	}{{d.Project, registry.Project}, {d.User, registry.User}, {d.System, registry.System}} {
		f, bad := listDir(dir.path, dir.src, want)
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
// files named like tools that cannot be ones; with a name (want), only the
// tools of that name.
func listDir(dir string, src registry.Source, want string) (found []registry.Entry, failed []registry.Failure) {
	if dir == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			failed = append(failed, registry.Failure{Entry: registry.Entry{Source: src, Path: dir}, Reason: "cannot read directory: " + fserr.Reason(err).Error()})
		}
		return nil, failed
	}
	seen := map[string]string{}
	for _, de := range entries {
		base := de.Name()
		name, ok := toolsdk.ToolName(base)
		if !ok {
			continue
		}
		e := registry.Entry{Name: name, Source: src, Path: filepath.Join(dir, base)}
		if want != "" && name != want {
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
		return problem("", "%s", fserr.Reason(err))
	case info.IsDir():
		return errSkip
	case !info.Mode().IsRegular():
		return problem("make it a regular executable file", "not a regular file")
	case info.Mode().Perm()&0o111 == 0:
		return problem("chmod +x "+path, "not executable")
	}
	return nil
}

// CheckName reports why name cannot be a tool's name, or nil: see
// toolsdk.ValidName.
func CheckName(name string) *Problem {
	if !toolsdk.ValidName(name) {
		return problem("rename the file NAME-tool with NAME of 1 to 64 letters, digits, hyphens or underscores",
			"invalid name %q: models accept only letters, digits and underscores, at most 64", name)
	}
	return nil
}
