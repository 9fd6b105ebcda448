package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/hooks"
)

func init() {
	register("hooks: pre_tool overhead", benchHooks)
}

// benchHooks times a call of the real file-read-tool as the agent makes
// it, without hooks and after one pre_tool hook that has no opinion, in
// process and interleaved: a hook that is a compiled program (true), one
// that is a shell script, and a configured command (sh -c).
func benchHooks(b *bench) error {
	args, err := smallRead(b)
	if err != nil {
		return err
	}
	dir := filepath.Join(b.work, "hooks")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	trueBin, err := lookTrue()
	if err != nil {
		return err
	}
	if err := os.Symlink(trueBin, filepath.Join(dir, "pre_tool-true-hook")); err != nil {
		return err
	}
	script := filepath.Join(b.work, "script")
	if err := os.MkdirAll(script, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(script, "pre_tool-noop-hook"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		return err
	}
	configured, err := hooks.NewHook(hooks.PreTool, "hooks.pre_tool[0]", "config", hooks.UserScope, "file_read", "true", 0)
	if err != nil {
		return err
	}

	type variant struct {
		label string
		set   *hooks.Set
		times []time.Duration
	}
	variants := []*variant{
		{label: "file_read, no hook"},
		{label: "file_read after a pre_tool hook that is a program (" + trueBin + ")", set: hooks.Find(hooks.Dirs{User: dir}, nil)},
		{label: "file_read after a pre_tool hook that is a shell script", set: hooks.Find(hooks.Dirs{User: script}, nil)},
		{label: `file_read after a configured pre_tool hook, "command": "true" (sh -c)`, set: &hooks.Set{Hooks: []hooks.Hook{configured}}},
	}
	for _, v := range variants[1:] {
		if len(v.set.Hooks) != 1 {
			return fmt.Errorf("%s: %d hooks found, want 1", v.label, len(v.set.Hooks))
		}
	}
	tool := execute.Program{Name: "file_read", Path: b.Tool("file-read")}
	in := hooks.Input{Event: hooks.PreTool, ToolName: "file_read", ToolInput: json.RawMessage(args), ToolUseID: "toolu_bench"}
	for i := range b.Runs(300) + 1 {
		for _, v := range variants {
			start := time.Now()
			res := v.set.Run(context.Background(), in)
			env := tool.Run(context.Background(), json.RawMessage(args), 10*time.Second)
			d := time.Since(start)
			if !env.Success {
				return fmt.Errorf("%s: %s", v.label, env.JSON())
			}
			for _, r := range res.Runs {
				if r.Failure != "" || r.Decision != "" {
					return fmt.Errorf("%s: the hook %s: %s", v.label, r.Outcome(), r.Reason)
				}
			}
			if i > 0 { // the first round warms up
				v.times = append(v.times, d)
			}
		}
	}
	median := func(t []time.Duration) time.Duration {
		t = slices.Clone(t)
		slices.Sort(t)
		return t[len(t)/2]
	}
	base := median(variants[0].times)
	b.Printf("| call | median | ratio to no hook | overhead | target |\n|---|---|---|---|---|\n")
	for i, v := range variants {
		m := median(v.times)
		target := ""
		if i > 0 {
			target = "< 3 ms: " + Verdict(m-base < 3*time.Millisecond)
		}
		b.Printf("| %s | %s | %.2f× | %s | %s |\n", v.label, Dur(m), float64(m)/float64(base), Dur(m-base), target)
	}
	b.Printf("\n%d runs of each in process (hooks.Set.Run, then execute.Program.Run, as the agent makes a call), interleaved.\n\n",
		len(variants[0].times))
	return nil
}

// lookTrue returns the path of the true program, the least a process can
// do.
func lookTrue() (string, error) {
	for _, p := range []string{"/usr/bin/true", "/bin/true"} {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no true program in /usr/bin or /bin")
}
