package ikigai_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestCrashLeavesOldOrNew stops file-edit-tool and file-write-tool while
// they replace a 100 MiB file: with SIGKILL at many points of the write,
// after which the file must hold the old content or the new, byte for byte,
// and never be missing; and with SIGTERM, after which no temporary file may
// be left either. The points are set by how much of the temporary file is
// written, not by time, so that they fall inside the write on any machine.
func TestCrashLeavesOldOrNew(t *testing.T) {
	if testing.Short() {
		t.Skip("rewrites a 100 MiB file a score of times")
	}
	old := bigText()
	edited := bytes.Replace(old, []byte("NEEDLE-OLD"), []byte("NEEDLE-NEW-AND-LONGER"), 1)
	upper := bytes.ToUpper(old)
	editInput, _ := json.Marshal(map[string]any{"file_path": "target.txt", "old_string": "NEEDLE-OLD", "new_string": "NEEDLE-NEW-AND-LONGER"})
	writeInput, _ := json.Marshal(map[string]any{"file_path": "target.txt", "content": string(upper)})
	for _, tt := range []struct {
		tool  string
		input []byte
		new   []byte
	}{
		{"file-edit-tool", editInput, edited},
		{"file-write-tool", writeInput, upper},
	} {
		t.Run(tt.tool, func(t *testing.T) {
			c := newCrasher(t, tt.tool, tt.input, old, tt.new)
			if c.stop(0, 0); c.isOld {
				t.Fatal("left alone, the tool did not write the new content")
			}
			// -1 is as soon as the process starts, before any temporary file.
			midWrite := 0
			for _, at := range []float64{-1, 0, 0.25, 0.5, 0.75, 1} {
				if c.stop(syscall.SIGKILL, at) > 0 {
					midWrite++
				}
			}
			if midWrite == 0 {
				t.Error("no SIGKILL left a temporary file: none stopped the tool while it wrote")
			}
			for _, at := range []float64{0, 1} {
				c.stop(syscall.SIGTERM, at)
			}
		})
	}
}

// bigText is numbered lines with NEEDLE-OLD once in the middle, a little
// under 100 MiB so that the edit stays within the limit.
func bigText() []byte {
	const size = 100<<20 - 1<<10
	var b bytes.Buffer
	b.Grow(size)
	for i := 0; b.Len() < size-100; i++ {
		if i == 800_000 {
			b.WriteString("NEEDLE-OLD\n")
		}
		fmt.Fprintf(&b, "line %08d of the old content, abcdefghijklmnopqrstuvwxyz\n", i)
	}
	return b.Bytes()
}

// crasher runs a tool that replaces target.txt, alone in its directory,
// and stops it.
type crasher struct {
	t        *testing.T
	tool     string
	input    string // path of the argument document
	dir      string
	old, new []byte
	isOld    bool // whether target.txt holds old
}

func newCrasher(t *testing.T, tool string, input, old, new []byte) *crasher {
	c := &crasher{t: t, tool: filepath.Join(layout, "libexec", "ikigai", tool),
		input: filepath.Join(t.TempDir(), "input.json"), dir: t.TempDir(), old: old, new: new}
	if err := os.WriteFile(c.input, input, 0o644); err != nil {
		t.Fatal(err)
	}
	return c
}

// stop runs the tool on the old file and sends it sig once it has written
// the fraction at of the new content to its temporary file (at once if at
// is negative; never if sig is 0), then checks what is left, and returns
// how many temporary files were.
func (c *crasher) stop(sig syscall.Signal, at float64) int {
	t := c.t
	target := filepath.Join(c.dir, "target.txt")
	if !c.isOld {
		if err := os.WriteFile(target, c.old, 0o644); err != nil {
			t.Fatal(err)
		}
		c.isOld = true
	}
	stdin, err := os.Open(c.input)
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	var stdout bytes.Buffer
	cmd := exec.Command(c.tool)
	cmd.Dir, cmd.Stdin, cmd.Stdout = c.dir, stdin, &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	what := "left alone"
	if sig != 0 {
		what = fmt.Sprintf("%v at %.1f", sig, at)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()

	reached := at < 0
	for !reached && sig != 0 {
		select {
		case err := <-exited: // finished before the point
			exited <- err
			reached = true
			continue
		default:
		}
		for _, name := range c.strays() {
			if info, err := os.Stat(filepath.Join(c.dir, name)); err == nil && float64(info.Size()) >= at*float64(len(c.new)) {
				reached = true
			}
		}
		time.Sleep(100 * time.Microsecond)
	}
	if sig != 0 {
		cmd.Process.Signal(sig)
	}
	select {
	case err = <-exited:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("%s: the tool did not exit", what)
	}

	got, readErr := os.ReadFile(target)
	switch {
	case readErr != nil:
		t.Errorf("%s: %v", what, readErr)
	case bytes.Equal(got, c.new):
		c.isOld = false
	case !bytes.Equal(got, c.old):
		t.Errorf("%s: the file is neither old nor new (%d bytes; old %d, new %d)", what, len(got), len(c.old), len(c.new))
		c.isOld = false
	}
	strays := c.strays()
	t.Logf("%s: %s content, exit %v, output %q, left behind %q", what, map[bool]string{true: "old", false: "new"}[c.isOld], err, stdout.Bytes(), strays)
	if sig != syscall.SIGKILL && len(strays) > 0 {
		t.Errorf("%s: left %q behind", what, strays)
	}
	for _, name := range strays {
		os.Remove(filepath.Join(c.dir, name))
	}
	return len(strays)
}

// strays lists the files beside target.txt: temporary files.
func (c *crasher) strays() []string {
	entries, _ := os.ReadDir(c.dir)
	var names []string
	for _, e := range entries {
		if e.Name() != "target.txt" {
			names = append(names, e.Name())
		}
	}
	return names
}
