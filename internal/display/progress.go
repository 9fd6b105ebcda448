package display

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ikigai-tools/ikigai/internal/agent"
)

// Progress shows a run the way the scrollback does, for ikigai -p and the
// plain line mode: each tool call and its result, and the text the model
// said before calling tools, on one writer (stderr), while the final answer
// goes to another (stdout) at the end. It is an agent.Reporter.
type Progress struct {
	w, stdout io.Writer
	text      string // the latest answer's text, shown once it turns out not to be the last
	shown     int    // the turn whose text was shown
}

// Nested is how much a sub-agent's calls are indented, for each level.
const Nested = "  "

// NewProgress returns a Progress writing the answer to stdout and tool
// activity to stderr.
func NewProgress(stdout, stderr io.Writer) *Progress { return &Progress{w: stderr, stdout: stdout} }

// Start shows nothing: the scrollback does not name the model.
func (p *Progress) Start(provider, model string) {}

// Fail shows nothing: the command line reports the error.
func (p *Progress) Fail(error) {}

// Warn shows a problem that does not stop the run on stderr.
func (p *Progress) Warn(msg string) { fmt.Fprintln(p.w, msg) }

// Event shows what happened, if it is something the scrollback shows. A
// sub-agent's calls show indented under the call that started it.
func (p *Progress) Event(e agent.Event) {
	if e.Depth > 0 {
		indent := strings.Repeat(Nested, e.Depth)
		switch e.Kind {
		case agent.ToolCall:
			fmt.Fprintln(p.w, indent+Call(e.Call.Name, e.Call.Arguments))
		case agent.ToolResult:
			fmt.Fprintln(p.w, indent+Result(e.Call.Name, e.Envelope))
		}
		return
	}
	switch e.Kind {
	case agent.ResponseDone:
		p.text = e.Text
	case agent.ToolCall:
		p.said(e.Turn)
		fmt.Fprintln(p.w, Call(e.Call.Name, e.Call.Arguments))
	case agent.ToolResult:
		fmt.Fprintln(p.w, Result(e.Call.Name, e.Envelope))
	case agent.Compacted:
		fmt.Fprintln(p.w, Compacted(e.Compaction))
	case agent.HookRan:
		if e.Hook.Noteworthy() {
			p.said(e.Turn) // a stop hook follows what the model said
			fmt.Fprintln(p.w, Hook(e.Hook))
		}
	case agent.ToolProgress:
		fmt.Fprintf(p.w, "  %s: %s\n", e.Call.Name, e.Text)
	case agent.Retrying:
		fmt.Fprintf(p.w, "%v; retrying in %v (attempt %d of %d)\n", e.Err, e.Wait.Round(100*time.Millisecond), e.Attempt, e.Attempts)
	}
}

// said shows the text of the answer of turn, which turned out not to be
// the last, once.
func (p *Progress) said(turn int) {
	if p.shown != turn && strings.TrimSpace(p.text) != "" {
		fmt.Fprintln(p.w, strings.TrimSpace(p.text))
	}
	p.shown = turn
}

// Finish shows how the run ended: the answer on stdout, or, at the turn
// limit of maxTurns, why it stopped.
func (p *Progress) Finish(o *agent.Outcome, maxTurns int) {
	if o.LimitReached {
		fmt.Fprintln(p.w, agent.LimitMessage(maxTurns))
		return
	}
	if text := strings.TrimRight(o.Text, "\n"); text != "" {
		fmt.Fprintln(p.stdout, text)
	}
}
