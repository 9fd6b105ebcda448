// Command job-tool runs background jobs: shell commands that keep running
// after the call (dev servers, watchers, long builds), whose new output
// can be read later. ikigai runs them, through the host API (toolsdk/host),
// and ends them with the session unless they are kept.
package main

import (
	"context"
	"strings"

	"github.com/ikigai-tools/ikigai/toolsdk"
	"github.com/ikigai-tools/ikigai/toolsdk/host"
)

type params struct {
	Action   string `json:"action" enum:"start,read,list,kill" description:"start a command; read what job id printed since the last read; list the jobs; kill job id (its whole process group)"`
	Command  string `json:"command,omitempty" description:"start: the shell command (bash -c), run in the working directory"`
	ID       string `json:"id,omitempty" description:"read, kill: the job's id, as start returned it"`
	Keep     bool   `json:"keep,omitempty" description:"start: leave the job running when the session ends (the next session lists it)"`
	MaxBytes int    `json:"max_bytes,omitempty" description:"read: the most output to return, its end kept (default 32768)"`
}

var tool = toolsdk.New[params, any](toolsdk.Schema{
	Name: "job",
	Description: "Run a command in the background (a dev server, a watcher, a long build) and read its output later: start " +
		"returns a job id at once; read returns only what it printed since the last read, and whether it is still running. " +
		"Jobs end with the session unless kept. For a command that finishes on its own, use bash instead.",
	// Starting a job is approved through the host, where the user sees the
	// command; reading, listing and killing the session's jobs change
	// nothing else.
	Annotations: &toolsdk.Annotations{ReadOnlyHint: true},
}, run)

func main() { tool.Main() }

func run(ctx context.Context, p params) (any, error) {
	switch {
	case p.Action == "start" && strings.TrimSpace(p.Command) == "":
		return nil, toolsdk.InvalidField("command")
	case (p.Action == "read" || p.Action == "kill") && p.ID == "":
		return nil, toolsdk.InvalidField("id")
	case p.MaxBytes < 0:
		return nil, toolsdk.InvalidField("max_bytes")
	}
	c, err := host.FromEnv()
	if err != nil {
		return nil, err
	}
	var job host.Job
	switch p.Action {
	case "start":
		err = c.Call(ctx, host.OpJobStart, host.JobStart{Command: p.Command, Keep: p.Keep}, &job)
	case "read":
		err = c.Call(ctx, host.OpJobRead, host.JobRead{ID: p.ID, MaxBytes: p.MaxBytes}, &job)
	case "kill":
		err = c.Call(ctx, host.OpJobKill, host.JobRef{ID: p.ID}, &job)
	case "list":
		var list host.JobList
		err := c.Call(ctx, host.OpJobList, nil, &list)
		return list, err
	}
	return job, err
}
