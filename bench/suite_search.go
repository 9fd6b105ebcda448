package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
)

func init() {
	register("grep-tool and glob-tool on Go's source tree", benchSearch)
}

// benchSearch times grep-tool and glob-tool over $(go env GOROOT)/src next
// to ripgrep, GNU grep and fd, and checks that they find as much as the
// peer whose semantics match: rg and fd with hidden files, which outside a
// git repository (Go's tree is not one) do not read .gitignore files.
func benchSearch(b *bench) error {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return fmt.Errorf("finding GOROOT: %v", err)
	}
	corpus := strings.TrimSpace(string(out)) + "/src"
	b.Printf("Corpus: `%s`, searched from its root. grep-tool's count is checked against ripgrep's in every run.\n\n", corpus)

	haveRg, haveGrep, haveFd := b.Have("rg", "ripgrep"), b.Have("grep", "grep"), b.Have("fdfind", "fd-find")
	// Issue 21's classes of pattern: each within 1.5× of ripgrep, and
	// faster than GNU grep.
	searches := []struct {
		name, pattern string
		ignoreCase    bool
		runs          int
	}{
		{"a literal", `errors\.New`, false, 20},
		{"a regex with a literal", `func \w+\(ctx context\.Context`, false, 20},
		{"a class with a literal", `\b[A-Z][a-z]+Error\b`, false, 20},
		{"a literal, ignoring case", `errors\.new`, true, 20},
		{"alternative literals", `TODO|FIXME|XXX`, false, 20},
		{"a regex with no literal but a common byte", `\w+_\w+_\w+`, false, 10},
		{"a regex with no literal in it", `[A-Z][a-z]+[0-9]{3}`, false, 10},
	}
	for _, s := range searches {
		b.Printf("### grep for %s: `%s`%s\n\n", s.name, s.pattern, map[bool]string{true: " (ignore case)"}[s.ignoreCase])
		input, _ := json.Marshal(map[string]any{"pattern": s.pattern, "ignore_case": s.ignoreCase})
		tool := Cmd{Label: "grep-tool", Argv: []string{b.Tool("grep")}, Stdin: input, Dir: corpus}
		cmds := []Cmd{tool}
		flags := "-n"
		if s.ignoreCase {
			flags = "-ni"
		}
		if haveRg {
			want, err := rgCount(corpus, s.pattern, s.ignoreCase)
			if err != nil {
				return err
			}
			cmds[0].Check = func(out []byte) error { return checkCount(out, want) }
			cmds = append(cmds, Cmd{Label: "rg " + flags + " --hidden", Argv: []string{"rg", flags, "--hidden", s.pattern}, Dir: corpus,
				Check: func(out []byte) error { return checkLines(out, want) }})
		}
		if haveGrep {
			cmds = append(cmds, Cmd{Label: "grep -r" + flags[1:] + "E", Argv: []string{"grep", "-r" + flags[1:] + "E", s.pattern, "."}, Dir: corpus})
		}
		samples, err := Compare(b.Runs(s.runs), cmds...)
		if err != nil {
			return err
		}
		targets := map[string]string{}
		if haveRg {
			ratio := float64(samples[0].Median()) / float64(samples[1].Median())
			targets["grep-tool"] = fmt.Sprintf("≤ 1.5× rg: %.2f× %s", ratio, Verdict(ratio <= 1.5))
		}
		if haveGrep {
			targets["grep -r"+flags[1:]+"E"] = fmt.Sprintf("slower than grep-tool: %s", Verdict(samples[len(samples)-1].Median() > samples[0].Median()))
		}
		b.Table(samples, targets)
	}

	b.Printf("### glob `**/*.go`\n\n")
	tool := Cmd{Label: "glob-tool", Argv: []string{b.Tool("glob")}, Stdin: []byte(`{"pattern":"**/*.go"}`), Dir: corpus}
	cmds := []Cmd{tool}
	if haveFd {
		fd := exec.Command("fdfind", "-t", "f", "--hidden", "-g", "*.go")
		fd.Dir = corpus
		out, err := fd.Output()
		if err != nil {
			return fmt.Errorf("fdfind: %v", err)
		}
		want := bytes.Count(out, []byte("\n"))
		cmds[0].Check = func(out []byte) error { return checkCount(out, want) }
		cmds = append(cmds, Cmd{Label: "fdfind -t f --hidden -g '*.go'", Argv: fd.Args, Dir: corpus,
			Check: func(out []byte) error { return checkLines(out, want) }})
	}
	samples, err := Compare(b.Runs(20), cmds...)
	if err != nil {
		return err
	}
	targets := map[string]string{}
	if haveFd {
		ratio := float64(samples[0].Median()) / float64(samples[1].Median())
		targets["glob-tool"] = fmt.Sprintf("≤ 1.5× fdfind: %.2f× %s", ratio, Verdict(ratio <= 1.5))
	}
	b.Table(samples, targets)
	return nil
}

// rgCount is how many lines ripgrep finds matching pattern under dir.
func rgCount(dir, pattern string, ignoreCase bool) (int, error) {
	args := []string{"--count", "--hidden", "--no-filename", pattern}
	if ignoreCase {
		args = append(args, "-i")
	}
	cmd := exec.Command("rg", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("rg %v: %v", args, err)
	}
	total := 0
	for line := range strings.FieldsSeq(string(out)) {
		var n int
		fmt.Sscan(line, &n)
		total += n
	}
	return total, nil
}

// checkCount checks the count in a core tool's result.
func checkCount(out []byte, want int) error {
	var res struct {
		Count *int `json:"count"`
	}
	if err := json.Unmarshal(out, &res); err != nil || res.Count == nil {
		return fmt.Errorf("not a result: %.200s", out)
	}
	if *res.Count != want {
		return fmt.Errorf("count %d, the peer found %d", *res.Count, want)
	}
	return nil
}

// checkLines checks that a peer printed want lines.
func checkLines(out []byte, want int) error {
	if n := bytes.Count(out, []byte("\n")); n != want {
		return fmt.Errorf("%d lines, want %d", n, want)
	}
	return nil
}
