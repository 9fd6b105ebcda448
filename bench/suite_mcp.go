package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

func init() {
	register("mcp: ikigai mcp serve", benchMCPServe)
}

// benchMCPServe times calls of one tool through a long-lived ikigai mcp
// serve, driven by a client on the official MCP SDK, next to ikigai tools
// call (a process per call) and to the tool run directly, interleaved by
// that client.
func benchMCPServe(b *bench) error {
	args, err := smallRead(b)
	if err != nil {
		return err
	}
	name := "file_read"
	client, err := b.Build("./bench/mcpclient")
	if err != nil {
		return err
	}
	home := filepath.Join(b.work, "home")
	cmd := exec.Command(client, "-n", fmt.Sprint(b.Runs(300)), b.Ikigai(), b.Tool("file-read"), name, args)
	cmd.Dir = b.work
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_STATE_HOME=", "IKIGAI_SYSTEM_CONFIG=/nonexistent")
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return fmt.Errorf("%v: %s", err, ee.Stderr)
		}
		return err
	}
	var times map[string][]time.Duration
	if err := json.Unmarshal(out, &times); err != nil {
		return err
	}
	median := func(kind string) time.Duration { return Sample{Times: times[kind]}.Median() }
	direct, call, serve := median("direct"), median("tools_call"), median("serve")

	b.Printf("Per-call medians of %d calls of %s each, interleaved by one client process:\n\n", len(times["serve"]), name)
	b.Printf("| path | median per call | ratio to direct | target |\n|---|---|---|---|\n")
	b.Printf("| %s tool run directly | %s | 1.00× | |\n", name, Dur(direct))
	b.Printf("| ikigai tools call (a process per call) | %s | %.2f× | |\n", Dur(call), float64(call)/float64(direct))
	b.Printf("| ikigai mcp serve (one process, MCP over stdio) | %s | %.2f× | ≤ tools call + 2 ms: %s |\n\n",
		Dur(serve), float64(serve)/float64(direct), Verdict(serve <= call+2*time.Millisecond))
	b.Printf("Through mcp serve a call costs %s more than running the tool directly (JSON-RPC, the registry, "+
		"the envelope, the log line), and %s less than ikigai tools call, which starts a process per call.\n",
		Dur(serve-direct), Dur(call-serve))
	return nil
}
