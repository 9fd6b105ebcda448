// Package markdown renders the model's answers as they stream: Split cuts
// the text into blocks as each is complete, and a Renderer has them drawn
// for the terminal by the ikigai-markdown helper, a program of its own so
// that ikigai itself does not pay for the renderer's start-up.
package markdown

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// HelperName is the helper's file name, beside the core tools.
const HelperName = "ikigai-markdown"

// A Request asks the helper to render Text to Width columns; a Response
// brings the rendered text, or why it could not be.
type (
	Request struct {
		Text  string `json:"text"`
		Width int    `json:"width"`
	}
	Response struct {
		Text  string `json:"text"`
		Error string `json:"error,omitempty"`
	}
)

// timeout bounds one rendering: past it, the helper is given up on and
// text is shown as it was written.
const timeout = 2 * time.Second

// A Renderer renders blocks through a running helper. It is safe for one
// goroutine at a time; a Renderer whose helper failed renders nothing.
type Renderer struct {
	mu   sync.Mutex
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	dead bool
}

// Start starts the helper at path, or returns nil when it cannot run.
func Start(path string) *Renderer {
	if path == "" {
		return nil
	}
	cmd := exec.Command(path) // its stderr goes nowhere
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil
	}
	out, err := cmd.StdoutPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		in.Close()
		return nil
	}
	return &Renderer{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 64<<10)}
}

// errHelper reports a helper that stopped answering.
var errHelper = errors.New("the Markdown helper stopped")

// Render returns block drawn for a terminal width columns wide, as lines
// without trailing blanks and without the blank lines around it; on any
// failure, an error, and the Renderer renders nothing more.
func (r *Renderer) Render(block string, width int) ([]string, error) {
	if r == nil {
		return nil, errHelper
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.dead {
		return nil, errHelper
	}
	line, _ := json.Marshal(Request{Text: block, Width: width})
	type answer struct {
		data []byte
		err  error
	}
	done := make(chan answer, 1)
	go func() {
		if _, err := r.in.Write(append(line, '\n')); err != nil {
			done <- answer{err: err}
			return
		}
		data, err := r.out.ReadBytes('\n')
		done <- answer{data, err}
	}()
	var a answer
	select {
	case a = <-done:
	case <-time.After(timeout):
		a.err = errHelper
	}
	var res Response
	if a.err == nil {
		a.err = json.Unmarshal(a.data, &res)
	}
	if a.err == nil && res.Error != "" {
		a.err = errors.New(res.Error)
	}
	if a.err != nil {
		r.kill()
		return nil, a.err
	}
	return Trim(res.Text), nil
}

// Close stops the helper.
func (r *Renderer) Close() {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.kill()
}

// kill stops the helper for good, with r.mu held.
func (r *Renderer) kill() {
	if r.dead {
		return
	}
	r.dead = true
	r.in.Close()
	r.cmd.Process.Kill()
	r.cmd.Wait()
}

// Trim cuts rendered text into lines, each without the blanks the renderer
// pads it with, and without the blank lines before and after.
func Trim(text string) []string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if w := ansi.StringWidth(strings.TrimRight(ansi.Strip(l), " ")); w < ansi.StringWidth(l) {
			lines[i] = ansi.Truncate(l, w, "") + "\x1b[m"
			if w == 0 {
				lines[i] = ""
			}
		}
	}
	for len(lines) > 0 && lines[0] == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// Enabled reports whether answers should be rendered in this terminal:
// not when NO_COLOR is set or the terminal is dumb.
func Enabled(getenv func(string) string) bool {
	return getenv("NO_COLOR") == "" && getenv("TERM") != "dumb" && getenv("TERM") != ""
}

// Find returns the helper's path in dir, "" when it is not there.
func Find(dir string) string {
	if !filepath.IsAbs(dir) {
		return "" // never a helper found relative to the working directory
	}
	path := filepath.Join(dir, HelperName)
	if info, err := os.Stat(path); err != nil || info.IsDir() || info.Mode()&0o111 == 0 {
		return ""
	}
	return path
}
