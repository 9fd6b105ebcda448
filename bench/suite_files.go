package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

func init() {
	register("file-read: a window at the end of a 100 MiB file", benchFileReadWindow)
	register("file-edit: one string in a 100 MiB file", benchFileEdit)
}

// writeLines writes numbered lines to path until it holds about size
// bytes, and returns how many lines it wrote.
func writeLines(path string, size int, line func(i int) string) (int, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	n, i := 0, 0
	for ; n < size; i++ {
		k, _ := w.WriteString(line(i))
		n += k
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, err
	}
	return i, f.Close()
}

// benchFileReadWindow reads the last 1000 lines of a 100 MiB file with
// file-read-tool, next to tail (which seeks from the end) and sed (which
// reads from the start, as file-read-tool must to count lines).
func benchFileReadWindow(b *bench) error {
	path := filepath.Join(b.work, "big.txt")
	line := func(i int) string { return fmt.Sprintf("line %08d lorem ipsum\n", i) }
	total, err := writeLines(path, 100<<20-1<<10, line)
	if err != nil {
		return err
	}
	first := total - 999
	var want bytes.Buffer
	for i := first - 1; i < total; i++ {
		want.WriteString(line(i))
	}
	readWant := func(out []byte) error {
		var res struct {
			Output    string `json:"output"`
			LinesRead int    `json:"lines_read"`
		}
		if err := json.Unmarshal(out, &res); err != nil {
			return err
		}
		if res.LinesRead != 1000 || res.Output != want.String() {
			return fmt.Errorf("%d lines, not the last 1000: %.200s", res.LinesRead, out)
		}
		return nil
	}
	input := fmt.Sprintf(`{"file_path":%q,"offset":%d,"limit":1000}`, path, first)
	samples, err := Compare(b.Runs(15),
		Cmd{Label: "file-read-tool offset/limit", Argv: []string{b.Tool("file-read")}, Stdin: []byte(input), Check: readWant},
		Cmd{Label: "tail -n 1000", Argv: []string{"tail", "-n", "1000", path}, Check: func(out []byte) error { return expect(out, want.String()) }},
		Cmd{Label: fmt.Sprintf("sed -n '%d,$p'", first), Argv: []string{"sed", "-n", fmt.Sprintf("%d,$p", first), path},
			Check: func(out []byte) error { return expect(out, want.String()) }},
	)
	if err != nil {
		return err
	}
	tool := samples[0]
	ok := tool.Median() < 300*time.Millisecond && tool.MaxRSS < 32<<10
	b.Table(samples, map[string]string{tool.Cmd.Label: "< 300 ms, < 32 MiB: " + Verdict(ok)})
	b.Printf("A %d-line file of %s. file-read-tool takes %.2f× the time of tail, which seeks to the end without reading the file, and %.2f× that of sed, which reads it from the start as file-read-tool does to count lines.\n",
		total, KiB(100<<10), float64(tool.Median())/float64(samples[1].Median()), float64(tool.Median())/float64(samples[2].Median()))
	return nil
}

// benchFileEdit replaces one unique string in a 100 MiB file with
// file-edit-tool and with sed -i. Each command runs twice per round, once
// each way, so that every run finds the string it replaces.
func benchFileEdit(b *bench) error {
	path := filepath.Join(b.work, "edit.txt")
	if _, err := writeLines(path, 100<<20-1<<10, func(i int) string {
		if i == 800_000 {
			return "NEEDLE-A\n"
		}
		return fmt.Sprintf("line %08d lorem ipsum dolor sit amet, consectetur adipiscing\n", i)
	}); err != nil {
		return err
	}
	replaced := func(out []byte) error {
		return expect(out, `{"output":"Replaced 1 occurrence in edit.txt","replacements":1}`+"\n")
	}
	quiet := func(out []byte) error { return expect(out, "") }
	edit := func(from, to string) Cmd {
		return Cmd{Label: fmt.Sprintf("file-edit-tool %s→%s", from[len(from)-1:], to[len(to)-1:]), Argv: []string{b.Tool("file-edit")}, Dir: b.work,
			Stdin: fmt.Appendf(nil, `{"file_path":"edit.txt","old_string":%q,"new_string":%q}`, from, to), Check: replaced}
	}
	sed := func(from, to string) Cmd {
		return Cmd{Label: fmt.Sprintf("sed -i %s→%s", from[len(from)-1:], to[len(to)-1:]), Argv: []string{"sed", "-i", "s/" + from + "/" + to + "/", "edit.txt"},
			Dir: b.work, Check: quiet}
	}
	samples, err := Compare(b.Runs(6), edit("NEEDLE-A", "NEEDLE-B"), edit("NEEDLE-B", "NEEDLE-A"), sed("NEEDLE-A", "NEEDLE-B"), sed("NEEDLE-B", "NEEDLE-A"))
	if err != nil {
		return err
	}
	targets := map[string]string{}
	for _, s := range samples[:2] {
		targets[s.Cmd.Label] = "< 1 s, < 300 MiB: " + Verdict(s.Median() < time.Second && s.MaxRSS < 300<<10)
	}
	b.Table(samples, targets)
	b.Printf("file-edit-tool takes %.2f× the time of sed -i. It reads the whole file into memory, and syncs the new file to disk before renaming it over the old one, which sed does not.\n",
		float64(samples[0].Median()+samples[1].Median())/float64(samples[2].Median()+samples[3].Median()))
	return nil
}
