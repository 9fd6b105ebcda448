package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/creack/pty"
)

func init() {
	register("repl: start to a usable prompt", benchREPLStart)
}

// benchREPLStart times ikigai's terminal UI in a pseudo-terminal from the
// process's start until the prompt is drawn, and until discovery (the core
// tools and ten user tools) and the choice of provider are done and the
// status line names the model, next to ikigai version in the same
// pseudo-terminal as the floor: what starting the binary costs at all.
func benchREPLStart(b *bench) error {
	home := filepath.Join(b.work, "home")
	if err := writeTools(filepath.Join(home, ".ikigai", "tools"), 10, ""); err != nil {
		return err
	}
	env := append(os.Environ(), "HOME="+home, "TERM=xterm-256color", "IKIGAI_PROVIDER=anthropic",
		"ANTHROPIC_API_KEY=unused", "IKIGAI_MODEL=bench-model", "XDG_STATE_HOME="+filepath.Join(b.work, "state"))
	ikigai := b.Ikigai()
	runs := b.Runs(20)
	var version, prompt, ready []time.Duration
	for i := range runs + 1 { // the first round warms the caches up
		v, err := ptyTime(env, b.work, []string{ikigai, "version"}, "")
		if err != nil {
			return err
		}
		marks, err := ptyTime(env, b.work, []string{ikigai}, "/help for commands", "bench-model")
		if err != nil {
			return err
		}
		if i > 0 {
			version, prompt, ready = append(version, v[0]), append(prompt, marks[0]), append(ready, marks[1])
		}
	}
	floor := Sample{Cmd: Cmd{Label: "ikigai version"}, Times: version}
	drawn := Sample{Cmd: Cmd{Label: "ikigai: prompt drawn"}, Times: prompt}
	done := Sample{Cmd: Cmd{Label: "ikigai: tools found, model chosen"}, Times: ready}
	b.Printf("In a pseudo-terminal, %d runs each, interleaved: from starting the process to the prompt on the screen, "+
		"and to the status line naming the model once discovery (the core tools and 10 user tools) is done.\n\n", runs)
	b.Printf("| measure | median | over the floor | target |\n|---|---|---|---|\n")
	b.Printf("| %s | %s | | floor |\n", floor.Cmd.Label, Dur(floor.Median()))
	for _, s := range []Sample{drawn, done} {
		target := ""
		if s.Cmd.Label == drawn.Cmd.Label {
			target = fmt.Sprintf("< 100 ms: %s", Verdict(s.Median() < 100*time.Millisecond))
		}
		b.Printf("| %s | %s | +%s (%.1f×) | %s |\n", s.Cmd.Label, Dur(s.Median()), Dur(s.Median()-floor.Median()),
			float64(s.Median())/float64(floor.Median()), target)
	}
	b.Printf("\n")
	return nil
}

// ptyTime runs argv in a pseudo-terminal and returns how long after the
// start each mark appeared in its output, in order, or, without marks, how
// long it ran. After the last mark it sends Ctrl-D and waits for the
// process to end.
func ptyTime(env []string, dir string, argv []string, marks ...string) ([]time.Duration, error) {
	times, _, err := ptyRun(env, dir, argv, marks...)
	return times, err
}

// ptyRun is ptyTime that also returns the process's peak RSS so far, in
// KiB, when the last mark appeared (its VmHWM: the kernel's ru_maxrss of a
// process started from the bench's would start at the bench's own).
func ptyRun(env []string, dir string, argv []string, marks ...string) ([]time.Duration, int64, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = env, dir
	start := time.Now()
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	var times []time.Duration
	var out []byte
	buf := make([]byte, 32<<10)
	f.SetReadDeadline(time.Now().Add(20 * time.Second))
	for len(times) < len(marks) {
		n, err := f.Read(buf)
		out = append(out, buf[:n]...)
		for len(times) < len(marks) && bytes.Contains(out, []byte(marks[len(times)])) {
			times = append(times, time.Since(start))
		}
		if err != nil && len(times) < len(marks) {
			cmd.Process.Kill()
			cmd.Wait()
			return nil, 0, fmt.Errorf("%v: %q did not appear (%v); the output was %.2000q", argv, marks[len(times)], err, out)
		}
	}
	var rss int64
	if len(marks) > 0 {
		rss = peakRSS(cmd.Process.Pid)
		f.Write([]byte{4})
	} else {
		go func() { // drain, so that the process is not held up writing
			for {
				if _, err := f.Read(buf); err != nil {
					return
				}
			}
		}()
	}
	err = cmd.Wait()
	if len(marks) == 0 {
		times = append(times, time.Since(start))
	}
	return times, rss, err
}

// peakRSS is the VmHWM of a running process, in KiB; 0 if it cannot be
// read.
func peakRSS(pid int) int64 {
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kib, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kib
		}
	}
	return 0
}
