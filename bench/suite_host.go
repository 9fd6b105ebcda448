package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ikigai-tools/ikigai/internal/discovery"
)

func init() {
	register("host: discovery", benchDiscovery)
	register("host: tools call", benchToolsCall)
}

// listing checks that ikigai tools listed n tools and nothing failed.
func listing(n int) func([]byte) error {
	return func(out []byte) error {
		var doc struct {
			Tools  []json.RawMessage `json:"tools"`
			Failed []json.RawMessage `json:"failed"`
		}
		if err := json.Unmarshal(out, &doc); err != nil {
			return err
		}
		if len(doc.Tools) != n || len(doc.Failed) != 0 {
			return fmt.Errorf("listed %d tools and %d failures, want %d and none", len(doc.Tools), len(doc.Failed), n)
		}
		return nil
	}
}

// writeTools fills dir with n shell-script tools whose --schema runs body
// first and then prints a small schema.
func writeTools(dir string, n int, body string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i := range n {
		name := fmt.Sprintf("t%03d", i)
		script := fmt.Sprintf("#!/bin/sh\n%s\necho '{\"name\":\"%s\",\"description\":\"tool %d\",\"parameters\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"string\"}}}}'\n", body, name, i)
		if err := os.WriteFile(filepath.Join(dir, name+"-tool"), []byte(script), 0o755); err != nil {
			return err
		}
	}
	return nil
}

// benchDiscovery times ikigai tools (the whole command: start, discovery,
// listing) over the core tools and over 200 script tools, next to a shell
// loop that asks the same tools for their schemas one at a time, as the C
// implementation scanned them.
func benchDiscovery(b *bench) error {
	home := filepath.Join(b.work, "home")
	serial := func(dir string) []string {
		return []string{"sh", "-c", `for t in "$1"/*-tool; do "$t" --schema >/dev/null; done`, "sh", dir}
	}
	ikigai := func(dir string) Cmd {
		return Cmd{Label: "ikigai tools", Argv: []string{b.Ikigai(), "tools", "--json"}, Dir: b.work,
			Env: []string{"HOME=" + home, "IKIGAI_LIBEXEC_DIR=" + dir, "IKIGAI_SYSTEM_CONFIG=/nonexistent"}}
	}

	core, _ := filepath.Glob(filepath.Join(b.root, "libexec", "ikigai", "*-tool"))
	coreDir := filepath.Dir(b.Tool("bash"))
	run := ikigai(coreDir)
	run.Label, run.Check = fmt.Sprintf("ikigai tools, the core tools (%d)", len(core)), listing(len(core))
	samples, err := Compare(b.Runs(100), Cmd{Label: "one at a time (sh loop)", Argv: serial(coreDir)}, run)
	if err != nil {
		return err
	}
	b.Table(samples, nil)

	// Discovery itself, as the agent runs it in the background: no process
	// start, no listing.
	var scans []time.Duration
	for range b.Runs(100) {
		start := time.Now()
		reg := discovery.Scan(context.Background(), discovery.Dirs{System: coreDir})
		scans = append(scans, time.Since(start))
		if n := len(reg.Tools()); n != len(core) {
			return fmt.Errorf("discovery found %d core tools, want %d", n, len(core))
		}
	}
	scan := median(scans)
	many := filepath.Join(b.work, "many")
	if err := writeTools(many, 200, ":"); err != nil {
		return err
	}
	warmCore, err := warmScan(b, discovery.Dirs{System: coreDir}, len(core))
	if err != nil {
		return err
	}
	warmMany, err := warmScan(b, discovery.Dirs{System: many}, 200)
	if err != nil {
		return err
	}
	b.Printf("| measurement | median | target |\n|---|---|---|\n")
	b.Printf("| discovery of the core tools (%d), in process | %s | < 20 ms: %s |\n", len(core), Dur(scan), Verdict(scan < 20*time.Millisecond))
	b.Printf("| the same, the schemas cached (no tool run) | %s | < 3 ms: %s |\n", Dur(warmCore), Verdict(warmCore < 3*time.Millisecond))
	b.Printf("| discovery of 200 tools, in process, the schemas cached | %s | < 15 ms: %s |\n\n", Dur(warmMany), Verdict(warmMany < 15*time.Millisecond))
	b.Printf("The `ikigai tools` runs below keep the schema cache between runs, as a user's does: after the first, no tool is run.\n\n")

	for _, set := range []struct {
		name, body, about string
	}{
		{"instant", ":", "200 shell scripts that print their schema at once: all CPU, so two cores bound the gain"},
		{"waiting", "sleep 0.02", "200 shell scripts that wait 20 ms before answering, as an interpreter loading its modules from a cold disk does"},
	} {
		dir := filepath.Join(b.work, set.name)
		if err := writeTools(dir, 200, set.body); err != nil {
			return err
		}
		run := ikigai(dir)
		run.Label, run.Check = "ikigai tools, 200 tools", listing(200)
		samples, err := Compare(b.Runs(10), Cmd{Label: "one at a time (sh loop)", Argv: serial(dir)}, run)
		if err != nil {
			return err
		}
		b.Printf("%s:\n\n", strings.ToUpper(set.about[:1])+set.about[1:])
		speedup := float64(samples[0].Median()) / float64(samples[1].Median())
		b.Table(samples, map[string]string{run.Label: fmt.Sprintf("< 500 ms: %s; ≥ 5× faster than one at a time: %.1f×, %s",
			Verdict(samples[1].Median() < 500*time.Millisecond), speedup, Verdict(speedup >= 5))})
	}
	return nil
}

// warmScan returns the median time of discovery in dirs with a schema
// cache that already holds every tool: the first scan fills it.
func warmScan(b *bench, dirs discovery.Dirs, n int) (time.Duration, error) {
	dirs.Cache = discovery.OpenCache(filepath.Join(b.work, fmt.Sprintf("schemas-%d.json", n)))
	var scans []time.Duration
	for i := range b.Runs(100) + 1 {
		start := time.Now()
		reg := discovery.Scan(context.Background(), dirs)
		if i > 0 {
			scans = append(scans, time.Since(start))
		}
		if got := len(reg.Tools()); got != n {
			return 0, fmt.Errorf("discovery found %d tools, want %d", got, n)
		}
	}
	return median(scans), nil
}

// smallRead writes a small file and returns file_read's arguments for it:
// the call the suites that compare ways of calling a tool make.
func smallRead(b *bench) (string, error) {
	file := filepath.Join(b.work, "small.txt")
	if err := os.WriteFile(file, []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		return "", err
	}
	return fmt.Sprintf(`{"file_path":%q}`, file), nil
}

// benchToolsCall times ikigai tools call next to running the same tool
// directly and to the least a Go program in between can cost.
func benchToolsCall(b *bench) error {
	args, err := smallRead(b)
	if err != nil {
		return err
	}
	name, tool := "file_read", b.Tool("file-read")
	floor, err := b.Build("./bench/startup/gocall")
	if err != nil {
		return err
	}
	var direct []byte // what the tool prints, which the envelope must carry
	env := []string{"HOME=" + filepath.Join(b.work, "home"), "IKIGAI_SYSTEM_CONFIG=/nonexistent"}
	label := "ikigai tools call " + name
	samples, err := Compare(b.Runs(300),
		Cmd{Label: name + " tool directly", Argv: []string{tool}, Stdin: []byte(args),
			Check: func(out []byte) error { direct = out; return nil }},
		Cmd{Label: "minimal Go program running it", Argv: []string{floor, tool, args}},
		Cmd{Label: label, Argv: []string{b.Ikigai(), "tools", "call", name, args}, Env: env,
			Check: func(out []byte) error {
				want := `{"tool_success":true,"result":` + string(bytes.TrimSpace(direct)) + "}\n"
				return expect(out, want)
			}},
	)
	if err != nil {
		return err
	}
	call, floorTime, base := samples[2].Median(), samples[1].Median(), samples[0].Median()
	ratio, floorRatio := float64(call)/float64(base), float64(floorTime)/float64(base)
	b.Table(samples, map[string]string{label: fmt.Sprintf("≤ 1.5× direct: %.2f×, %s (the floor: %.2f×)",
		ratio, Verdict(ratio <= 1.5), floorRatio)})
	b.Printf("ikigai adds %s to a call; a Go program that does nothing but run the tool adds %s, so no Go program "+
		"in between can be within %.2f× of running the tool directly here. ikigai's own start (`ikigai version`) is in "+
		"\"agent: start to first request\".\n",
		Dur(call-base), Dur(floorTime-base), floorRatio)
	return nil
}
