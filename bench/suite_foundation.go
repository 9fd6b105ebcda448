package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/ikigai-tools/ikigai/toolsdk"
)

func init() {
	register("bash-tool round trip", benchBashRoundTrip)
	register("toolsdk call cost", benchToolsdkCall)
	register("sonic start-up", benchSonicStartup)
}

// benchBashRoundTrip times a whole bash-tool call, process start to JSON
// out, next to the bare shell it wraps and to the least a Go program can
// do to run that shell.
func benchBashRoundTrip(b *bench) error {
	floor, err := b.Build("./bench/startup/gobash")
	if err != nil {
		return err
	}
	want := `{"output":"hello","exit_code":0}` + "\n"
	samples, err := Compare(b.Runs(300),
		Cmd{Label: "bash -c 'echo hello'", Argv: []string{"bash", "-c", "echo hello"}},
		Cmd{Label: "minimal Go program running it", Argv: []string{floor},
			Check: func(out []byte) error { return expect(out, "hello\n") }},
		Cmd{Label: "bash-tool echo hello", Argv: []string{b.Tool("bash")}, Stdin: []byte(`{"command":"echo hello"}`),
			Check: func(out []byte) error { return expect(out, want) }},
	)
	if err != nil {
		return err
	}
	tool, goFloor := samples[2].Median(), samples[1].Median()
	ratio := float64(tool) / float64(goFloor)
	// The first target, < 3 ms, was below the Go floor on the bench's
	// machine; issue 21 made it 1.2× the floor.
	b.Table(samples, map[string]string{"bash-tool echo hello": fmt.Sprintf("≤ 1.2× the Go program: %.2f×, %s",
		ratio, Verdict(ratio <= 1.2))})
	b.Printf("bash-tool costs %s more than the minimal Go program that runs the same shell command (%.2f× it): "+
		"the floor is the Go program, since a Go tool cannot start faster than one.\n", Dur(tool-goFloor), ratio)
	return nil
}

// benchToolsdkCall measures what toolsdk adds to a call: decoding and
// validating a 1 KiB argument object and encoding the result, in process.
func benchToolsdkCall(b *bench) error {
	type params struct {
		FilePath   string `json:"file_path"`
		OldString  string `json:"old_string"`
		NewString  string `json:"new_string"`
		ReplaceAll bool   `json:"replace_all,omitempty"`
	}
	type result struct {
		Output       string `json:"output"`
		Replacements int    `json:"replacements"`
	}
	tool := toolsdk.New(toolsdk.Schema{Name: "edit"}, func(ctx context.Context, p params) (result, error) {
		return result{Output: "Replaced 1 occurrence in " + p.FilePath, Replacements: 1}, nil
	})
	text := strings.Repeat(`lorem ipsum \"dolor\" sit amet\n`, 15)
	input := `{"file_path":"src/internal/agent/loop.go","old_string":"` + text + `","new_string":"` + text + `"}`
	ctx := context.Background()
	res := testing.Benchmark(func(tb *testing.B) {
		for tb.Loop() {
			if tool.Run(ctx, nil, strings.NewReader(input), io.Discard, io.Discard) != 0 {
				tb.Fatal("call failed")
			}
		}
	})
	per := time.Duration(res.NsPerOp())
	b.Printf("| measurement | per call | allocations | target |\n|---|---|---|---|\n")
	b.Printf("| decode, validate, encode a %d-byte argument object | %s | %d (%d B) | < 50 µs: %s |\n\n",
		len(input), Dur(per), res.AllocsPerOp(), res.AllocedBytesPerOp(), Verdict(per < 50*time.Microsecond))
	return nil
}

// benchSonicStartup measures why toolsdk encodes JSON with encoding/json:
// the same one-shot program built with each library.
func benchSonicStartup(b *bench) error {
	var cmds []Cmd
	for _, name := range []string{"stdjson", "sonic"} {
		bin, err := b.Build("./bench/startup/" + name)
		if err != nil {
			return err
		}
		cmds = append(cmds, Cmd{Label: name + " one-shot encode", Argv: []string{bin}, Stdin: []byte(`{"command":"echo hello"}`),
			Check: func(out []byte) error { return expect(out, `{"output":"echo hello","exit_code":0}`+"\n") }})
	}
	samples, err := Compare(b.Runs(200), cmds...)
	if err != nil {
		return err
	}
	b.Table(samples, nil)
	b.Printf("A process that decodes one small object and encodes one result, as a tool does: sonic costs %s more per call.\n",
		Dur(samples[1].Median()-samples[0].Median()))
	return nil
}

func expect(out []byte, want string) error {
	if string(out) != want {
		return fmt.Errorf("got %q, want %q", out, want)
	}
	return nil
}
