package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
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

func runOnce(c Cmd) (time.Duration, int64, []byte, error) {
	// stdin and stdout are files, not pipes, so no copying goroutines run
	// in this process while the command does.
	stdin, err := os.Open(os.DevNull)
	if c.Stdin != nil {
		stdin, err = fileWith(c.Stdin)
	}
	if err != nil {
		return 0, 0, nil, err
	}
	defer stdin.Close()
	stdout, err := os.CreateTemp("", "bench-stdout-")
	if err != nil {
		return 0, 0, nil, err
	}
	defer os.Remove(stdout.Name())
	defer stdout.Close()
	var stderr bytes.Buffer
	cmd := exec.Command(c.Argv[0], c.Argv[1:]...)
	cmd.Dir = c.Dir
	if c.Env != nil {
		cmd.Env = append(cmd.Environ(), c.Env...)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, &stderr
	start := time.Now()
	err = cmd.Run()
	elapsed := time.Since(start)
	if err != nil {
		if _, isExit := err.(*exec.ExitError); !isExit || c.Check == nil {
			return 0, 0, nil, fmt.Errorf("%s: %v: %s", c.Label, err, strings.TrimSpace(stderr.String()))
		}
	}
	out, err := os.ReadFile(stdout.Name())
	if err != nil {
		return 0, 0, nil, err
	}
	if c.Check != nil {
		if err := c.Check(out); err != nil {
			return 0, 0, nil, fmt.Errorf("%s: wrong output: %v", c.Label, err)
		}
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss
	}
	return elapsed, rss, out, nil
}

// fileWith returns a file holding data, positioned at its start.
func fileWith(data []byte) (*os.File, error) {
	f, err := os.CreateTemp("", "bench-stdin-")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return nil, err
	}
	_, err = f.Seek(0, 0)
	return f, err
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
