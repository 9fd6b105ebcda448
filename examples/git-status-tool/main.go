// Command git-status-tool is an ikigai tool that reports a git work tree's
// branch and changed files as JSON. It is written as any third-party tool
// author would write one, on toolsdk alone (and its files package, for the
// core tools' rule on path arguments).
//
// Install it where ikigai looks for user tools:
//
//	go build -o ~/.ikigai/tools/git-status-tool .
package main

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strconv"
	"strings"

	"github.com/ikigai-tools/ikigai/toolsdk"
	"github.com/ikigai-tools/ikigai/toolsdk/files"
)

type params struct {
	Path string `json:"path,omitempty" description:"A directory inside the repository (default: the working directory)"`
}

type status struct {
	Branch    string `json:"branch" description:"The current branch; empty when HEAD is detached"`
	Commit    string `json:"commit,omitempty" description:"The commit HEAD points to; absent before the first commit"`
	Upstream  string `json:"upstream,omitempty" description:"The branch this one tracks"`
	Ahead     int    `json:"ahead" description:"Commits on this branch not on its upstream"`
	Behind    int    `json:"behind" description:"Commits on the upstream not on this branch"`
	Clean     bool   `json:"clean" description:"Nothing is staged, changed or untracked"`
	Files     []file `json:"files" description:"Changed, staged, conflicted and untracked files"`
	Truncated bool   `json:"truncated,omitempty" description:"More files changed than are listed"`
	Count     int    `json:"count" description:"How many files changed in all"`
}

type file struct {
	Path     string `json:"path"`
	From     string `json:"from,omitempty" description:"The original path of a rename or copy"`
	Staged   string `json:"staged,omitempty" description:"added, modified, deleted, renamed, copied or type_changed in the index"`
	Unstaged string `json:"unstaged,omitempty" description:"modified, deleted, type_changed, untracked or conflict in the work tree"`
}

// maxFiles keeps the result readable in a huge dirty tree.
const maxFiles = 500

// The tool's error codes.
const (
	codeGitNotFound    = "GIT_NOT_FOUND"    // git is not installed
	codeNotARepository = "NOT_A_REPOSITORY" // path is not in a git work tree
	codeGitFailed      = "GIT_FAILED"       // git failed for another reason
)

const op = "reading repository"

var tool = toolsdk.New(toolsdk.Schema{
	Name:        "git_status",
	Description: "Show a git repository's current branch, upstream, ahead/behind counts and changed files.",
	Annotations: &toolsdk.Annotations{ReadOnlyHint: true, IdempotentHint: true},
}, run)

func main() { tool.Main() }

func run(ctx context.Context, p params) (status, error) {
	dir := p.Path
	if dir == "" {
		dir = "."
	}
	if err := files.CheckPath(op, dir); err != nil {
		return status{}, err
	}
	cmd := exec.CommandContext(ctx, "git", "-C", dir, "status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exitErr *exec.ExitError
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return status{}, toolsdk.Errorf(codeGitNotFound, "Error: running git: git is not installed")
	case errors.As(err, &exitErr) && strings.Contains(stderr.String(), "not a git repository"):
		return status{}, &toolsdk.Error{Code: codeNotARepository, Op: op, Path: dir, Reason: "not a git repository"}
	case err != nil:
		return status{}, &toolsdk.Error{Code: codeGitFailed, Op: op, Path: dir, Reason: firstLine(stderr.String(), err)}
	}
	return parse(out), nil
}

// parse reads `git status --porcelain=v2 --branch -z`.
func parse(out []byte) status {
	s := status{Files: []file{}}
	fields := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	for i := 0; i < len(fields); i++ {
		line := fields[i]
		var f file
		switch {
		case line == "":
			continue
		case strings.HasPrefix(line, "# branch.oid "):
			if oid := strings.TrimPrefix(line, "# branch.oid "); oid != "(initial)" {
				s.Commit = oid
			}
			continue
		case strings.HasPrefix(line, "# branch.head "):
			if head := strings.TrimPrefix(line, "# branch.head "); head != "(detached)" {
				s.Branch = head
			}
			continue
		case strings.HasPrefix(line, "# branch.upstream "):
			s.Upstream = strings.TrimPrefix(line, "# branch.upstream ")
			continue
		case strings.HasPrefix(line, "# branch.ab "):
			ab := strings.Fields(strings.TrimPrefix(line, "# branch.ab "))
			if len(ab) == 2 {
				s.Ahead, _ = strconv.Atoi(strings.TrimPrefix(ab[0], "+"))
				s.Behind, _ = strconv.Atoi(strings.TrimPrefix(ab[1], "-"))
			}
			continue
		case strings.HasPrefix(line, "1 "): // 1 XY sub mH mI mW hH hI path
			parts := strings.SplitN(line, " ", 9)
			if len(parts) < 9 {
				continue
			}
			f = file{Path: parts[8], Staged: change(parts[1][0]), Unstaged: change(parts[1][1])}
		case strings.HasPrefix(line, "2 "): // 2 XY sub mH mI mW hH hI Xscore path, then origPath
			parts := strings.SplitN(line, " ", 10)
			if len(parts) < 10 || i+1 >= len(fields) {
				continue
			}
			i++
			f = file{Path: parts[9], From: fields[i], Staged: change(parts[1][0]), Unstaged: change(parts[1][1])}
		case strings.HasPrefix(line, "u "): // u XY sub m1 m2 m3 mW h1 h2 h3 path
			parts := strings.SplitN(line, " ", 11)
			if len(parts) < 11 {
				continue
			}
			f = file{Path: parts[10], Unstaged: "conflict"}
		case strings.HasPrefix(line, "? "):
			f = file{Path: line[2:], Unstaged: "untracked"}
		default:
			continue
		}
		s.Count++
		if len(s.Files) < maxFiles {
			s.Files = append(s.Files, f)
		} else {
			s.Truncated = true
		}
	}
	s.Clean = s.Count == 0
	return s
}

func change(c byte) string {
	switch c {
	case 'A':
		return "added"
	case 'M':
		return "modified"
	case 'D':
		return "deleted"
	case 'R':
		return "renamed"
	case 'C':
		return "copied"
	case 'T':
		return "type_changed"
	}
	return ""
}

func firstLine(s string, err error) string {
	if line, _, _ := strings.Cut(strings.TrimSpace(s), "\n"); line != "" {
		return line
	}
	return err.Error()
}
