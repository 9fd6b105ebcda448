package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/sandbox"
)

func init() {
	register("sandbox: call overhead", benchSandbox)
}

// benchSandbox times a call of the real file-read-tool in process, as the
// agent makes it, unconfined and in the sandbox, interleaved; and, as a
// peer, bubblewrap's least confinement around true, next to true.
func benchSandbox(b *bench) error {
	if s := sandbox.Detect(); s.ABI == 0 {
		b.Printf("This machine has no Landlock (%s); nothing to measure.\n\n", s.Missing)
		return nil
	}
	support := sandbox.Detect()
	support.DetectNetNS()
	args, err := smallRead(b)
	if err != nil {
		return err
	}
	tool := b.Tool("file-read")
	type variant struct {
		label string
		box   *sandbox.Confinement
		times []time.Duration
	}
	variants := []*variant{
		{label: "file_read, unconfined"},
		{label: "file_read, read-only", box: &sandbox.Confinement{Mode: sandbox.ReadOnly, Network: true}},
		{label: "file_read, read-only, network off (Landlock TCP rules only)", box: &sandbox.Confinement{Mode: sandbox.ReadOnly}},
	}
	if support.NetNS {
		variants = append(variants, &variant{label: "file_read, read-only, network off (network namespace)",
			box: &sandbox.Confinement{Mode: sandbox.ReadOnly, NetNS: true}})
	}
	want := ""
	for i := range b.Runs(300) + 1 {
		for _, v := range variants {
			p := execute.Program{Name: "file_read", Path: tool, Sandbox: v.box}
			start := time.Now()
			env := p.Run(context.Background(), json.RawMessage(args), 10*time.Second)
			d := time.Since(start)
			if !env.Success {
				return fmt.Errorf("%s: %s", v.label, env.JSON())
			}
			if want == "" {
				want = string(env.JSON())
			} else if got := string(env.JSON()); got != want {
				return fmt.Errorf("%s: got %s, want %s", v.label, got, want)
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
	b.Printf("| call | median | ratio to unconfined | overhead | target |\n|---|---|---|---|---|\n")
	var worst time.Duration
	for i, v := range variants {
		m := median(v.times)
		target := ""
		if i > 0 {
			worst = max(worst, m-base)
			target = "≤ 1 ms: " + Verdict(m-base <= time.Millisecond)
		}
		b.Printf("| %s | %s | %.2f× | %s | %s |\n", v.label, Dur(m), float64(m)/float64(base), Dur(m-base), target)
	}
	b.Printf("\n%d runs of each in process (execute.Program.Run, as the agent calls a tool), interleaved, as %s.\n\n",
		len(variants[0].times), who())

	if !b.Have("bwrap", "bubblewrap") {
		return nil
	}
	samples, err := Compare(b.Runs(300),
		Cmd{Label: "true", Argv: []string{"true"}},
		Cmd{Label: "bwrap --ro-bind / / true", Argv: []string{"bwrap", "--ro-bind", "/", "/", "true"}},
	)
	if err != nil {
		return err
	}
	b.Table(samples, nil)
	bwrap := samples[1].Median() - samples[0].Median()
	b.Printf("bubblewrap's least confinement costs %s over running true; ikigai's sandbox costs %s (%.2f× that) over an unconfined call, at most.\n",
		Dur(bwrap), Dur(worst), float64(worst)/float64(bwrap))
	return nil
}

func who() string {
	if os.Geteuid() == 0 {
		return "root (a network namespace needs no user namespace)"
	}
	return "an unprivileged user (a network namespace comes with a user namespace)"
}
