// Command bench times ikigai's tools and agent, side by side with the peer
// tools a developer would otherwise use, in one run, and writes the results
// as Markdown. The machines it runs on are shared and noisy, so it reports
// medians of interleaved runs and ratios to peers measured in the same run,
// not single absolute times.
//
// Each suite lives in its own suite_*.go file and registers itself in init.
//
//	go run ./bench -o bench/RESULTS.md          # every suite
//	go run ./bench -run grep                    # suites whose name matches
//	go run ./bench -run peers                   # beside Claude Code, gemini-cli, Codex
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"time"
)

// A suite measures one capability and writes a Markdown section about it.
type suite struct {
	name string
	run  func(b *bench) error
}

var suites []suite

func register(name string, run func(b *bench) error) {
	suites = append(suites, suite{name, run})
}

func main() {
	out := flag.String("o", "", "write the results to this file as well as stdout")
	filter := flag.String("run", "", "run only the suites whose name matches this regular expression")
	scale := flag.Float64("scale", 1, "multiply the number of runs of every measurement")
	flag.Parse()
	if err := run(*out, *filter, *scale); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(out, filter string, scale float64) error {
	match, err := regexp.Compile(filter)
	if err != nil {
		return err
	}
	root, err := repoRoot()
	if err != nil {
		return err
	}
	work, err := os.MkdirTemp("", "ikigai-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)

	spawn := filepath.Join(work, "spawn")
	build := exec.Command("go", "build", "-o", spawn, "./bench/spawn")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("building the spawner: %v\n%s", err, out)
	}
	if err := startSpawner(spawn); err != nil {
		return err
	}
	defer stopSpawner()

	var doc bytes.Buffer
	fmt.Fprintf(&doc, "# Benchmark results\n\n")
	fmt.Fprintf(&doc, "Written by `make bench` on %s. Machine: %d cores (%s), %s, %s/%s.\n",
		time.Now().UTC().Format("2006-01-02"), runtime.NumCPU(), cpuModel(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(&doc, "Times are medians of interleaved runs; ratios compare commands measured side by side in the same run.\n")
	fmt.Fprintf(&doc, "Peak RSS is what the kernel reports for a command, which cannot be less than that of the small process launching it (bench/spawn): about 5 MiB.\n")
	for _, s := range suites {
		if !match.MatchString(s.name) {
			continue
		}
		fmt.Fprintf(os.Stderr, "bench: %s\n", s.name)
		b := &bench{root: root, work: filepath.Join(work, sanitize(s.name)), scale: scale}
		if err := os.MkdirAll(b.work, 0o755); err != nil {
			return err
		}
		fmt.Fprintf(&b.doc, "\n## %s\n\n", s.name)
		if err := s.run(b); err != nil {
			fmt.Fprintf(&b.doc, "\nFailed: %v\n", err)
			fmt.Fprintf(os.Stderr, "bench: %s: %v\n", s.name, err)
		}
		doc.Write(b.doc.Bytes())
	}
	os.Stdout.Write(doc.Bytes())
	if out != "" {
		return os.WriteFile(out, doc.Bytes(), 0o644)
	}
	return nil
}

// bench is what a suite works with: the built tree, a scratch directory,
// and the section it writes.
type bench struct {
	root  string // repository root; bin/ and libexec/ikigai/ are built there
	work  string // scratch directory for this suite, removed afterwards
	scale float64
	doc   bytes.Buffer
}

// Libexec returns the build tree's system tool directory.
func (b *bench) Libexec() string { return filepath.Join(b.root, "libexec", "ikigai") }

// Tool returns the path of a built core tool, e.g. Tool("bash").
func (b *bench) Tool(name string) string { return filepath.Join(b.Libexec(), name+"-tool") }

// Ikigai returns the path of the built agent binary.
func (b *bench) Ikigai() string { return filepath.Join(b.root, "bin", "ikigai") }

// Runs scales a number of runs by the -scale flag.
func (b *bench) Runs(n int) int { return max(1, int(float64(n)*b.scale)) }

// Printf adds text to the suite's section.
func (b *bench) Printf(format string, args ...any) { fmt.Fprintf(&b.doc, format, args...) }

// Have reports whether a peer command is installed, and notes it in the
// section when it is not.
func (b *bench) Have(command, debianPackage string) bool {
	if _, err := exec.LookPath(command); err == nil {
		return true
	}
	b.Printf("`%s` is not installed (Debian package %s); its comparison is skipped.\n\n", command, debianPackage)
	return false
}

// Build compiles a package of this repository into the suite's scratch
// directory and returns the binary's path.
func (b *bench) Build(pkg string) (string, error) {
	bin := filepath.Join(b.work, filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	cmd.Dir = b.root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building %s: %v\n%s", pkg, err, out)
	}
	return bin, nil
}

func repoRoot() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		return "", fmt.Errorf("finding the repository: %v", err)
	}
	return strings.TrimSpace(strings.Split(string(out), "\n")[0]), nil
}

func cpuModel() string {
	data, _ := os.ReadFile("/proc/cpuinfo")
	for line := range strings.SplitSeq(string(data), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, s)
}
