package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Cmd is one command to time.
type Cmd struct {
	Label string
	Argv  []string
	Stdin []byte
	Dir   string
	Env   []string // added to the environment
	// Check, if set, validates one run's stdout; a failing check aborts the
	// measurement, so a fast wrong answer is never reported as a result.
	Check func(stdout []byte) error
}

// Sample is the timing of a command over several runs.
type Sample struct {
	Cmd     Cmd
	Times   []time.Duration
	MaxRSS  int64 // peak resident set of the largest run, in KiB
	LastOut []byte
}

// Median returns the median wall time.
func (s Sample) Median() time.Duration {
	t := slices.Clone(s.Times)
	slices.Sort(t)
	if len(t) == 0 {
		return 0
	}
	return t[len(t)/2]
}

// Compare runs each command runs times, interleaved (a, b, c, a, b, c, ...)
// so that noise on the machine falls on all of them alike, after one
// warm-up run each.
func Compare(runs int, cmds ...Cmd) ([]Sample, error) {
	samples := make([]Sample, len(cmds))
	for i, c := range cmds {
		samples[i].Cmd = c
		if _, _, _, err := runOnce(c); err != nil {
			return nil, err
		}
	}
	for range runs {
		for i, c := range cmds {
			d, rss, out, err := runOnce(c)
			if err != nil {
				return nil, err
			}
			samples[i].Times = append(samples[i].Times, d)
			samples[i].MaxRSS = max(samples[i].MaxRSS, rss)
			samples[i].LastOut = out
		}
	}
	return samples, nil
}

// spawner runs the commands for runOnce; see bench/spawn.
var spawner struct {
	mu  sync.Mutex
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

// startSpawner starts bench/spawn, built at bin.
func startSpawner(bin string) error {
	cmd := exec.Command(bin)
	in, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	spawner.cmd, spawner.in, spawner.out = cmd, in, bufio.NewScanner(out)
	spawner.out.Buffer(make([]byte, 1<<20), 64<<20)
	return nil
}

// stopSpawner ends the spawner: it exits when its stdin closes.
func stopSpawner() {
	spawner.in.Close()
	spawner.cmd.Wait()
}

func runOnce(c Cmd) (time.Duration, int64, []byte, error) {
	r, err := spawnRun(c, append(os.Environ(), c.Env...), 0, 0)
	if err != nil {
		return 0, 0, nil, err
	}
	return r.Wall, r.MaxRSS, r.Stdout, nil
}

// A spawned is what the spawner reports about one run of a command.
type spawned struct {
	Start    time.Time // just before the process started
	Wall     time.Duration
	MaxRSS   int64 // KiB, of the largest process (the kernel's ru_maxrss)
	TreePeak int64 // KiB, the largest sum of PSS over the process tree, if sampled
	Strays   int   // descendants that had left the process group, killed
	Exit     int
	Stdout   []byte
	Stderr   string
}

// spawnRun runs c through the spawner with exactly the environment env,
// sampling the memory of its process tree every sampleMS milliseconds if
// that is positive, and killing it after timeout if that is. Its Env field
// is not used.
func spawnRun(c Cmd, env []string, sampleMS int, timeout time.Duration) (spawned, error) {
	dir, err := os.MkdirTemp("", "bench-run-")
	if err != nil {
		return spawned{}, err
	}
	defer os.RemoveAll(dir)
	stdin, stdout := os.DevNull, filepath.Join(dir, "stdout")
	if c.Stdin != nil {
		stdin = filepath.Join(dir, "stdin")
		if err := os.WriteFile(stdin, c.Stdin, 0o644); err != nil {
			return spawned{}, err
		}
	}
	req, err := json.Marshal(map[string]any{"argv": c.Argv, "dir": c.Dir, "env": env, "stdin": stdin, "stdout": stdout,
		"sample_ms": sampleMS, "timeout_ms": timeout.Milliseconds()})
	if err != nil {
		return spawned{}, err
	}
	var rep struct {
		Start    int64  `json:"start_unix_nano"`
		Nanos    int64  `json:"nanos"`
		MaxRSS   int64  `json:"maxrss_kib"`
		TreePeak int64  `json:"tree_peak_kib"`
		Strays   int    `json:"strays"`
		TimedOut bool   `json:"timed_out"`
		Exit     int    `json:"exit"`
		Error    string `json:"error"`
		Stderr   string `json:"stderr"`
	}
	spawner.mu.Lock()
	_, err = spawner.in.Write(append(req, '\n'))
	ok := err == nil && spawner.out.Scan()
	spawner.mu.Unlock()
	if !ok {
		return spawned{}, fmt.Errorf("%s: the spawner stopped: %v", c.Label, err)
	}
	if err := json.Unmarshal(spawner.out.Bytes(), &rep); err != nil {
		return spawned{}, err
	}
	if rep.TimedOut {
		return spawned{}, fmt.Errorf("%s: killed after %v: %s", c.Label, timeout, strings.TrimSpace(rep.Stderr))
	}
	if rep.Error != "" || rep.Exit != 0 && c.Check == nil {
		return spawned{}, fmt.Errorf("%s: exit %d %s: %s", c.Label, rep.Exit, rep.Error, strings.TrimSpace(rep.Stderr))
	}
	out, err := os.ReadFile(stdout)
	if err != nil {
		return spawned{}, err
	}
	if c.Check != nil {
		if err := c.Check(out); err != nil {
			return spawned{}, fmt.Errorf("%s: wrong output: %v", c.Label, err)
		}
	}
	return spawned{Start: time.Unix(0, rep.Start), Wall: time.Duration(rep.Nanos), MaxRSS: rep.MaxRSS, TreePeak: rep.TreePeak,
		Strays: rep.Strays, Exit: rep.Exit, Stdout: out, Stderr: rep.Stderr}, nil
}

// Table writes samples as a Markdown table, each with its ratio to the
// first sample (the baseline), and an optional target column.
func (b *bench) Table(samples []Sample, targets map[string]string) {
	b.Printf("| command | median | ratio to %s | peak RSS | target |\n|---|---|---|---|---|\n", samples[0].Cmd.Label)
	base := samples[0].Median()
	for _, s := range samples {
		b.Printf("| %s | %s | %.2f× | %s | %s |\n", s.Cmd.Label, Dur(s.Median()), float64(s.Median())/float64(base),
			KiB(s.MaxRSS), targets[s.Cmd.Label])
	}
	b.Printf("\n")
}

// Dur formats a duration with a precision that suits it.
func Dur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%.1f µs", float64(d)/float64(time.Microsecond))
	}
}

// KiB formats a size given in KiB.
func KiB(k int64) string {
	if k >= 1024 {
		return fmt.Sprintf("%.1f MiB", float64(k)/1024)
	}
	return fmt.Sprintf("%d KiB", k)
}

// Verdict says whether a measured value meets its target.
func Verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "**missed**"
}
