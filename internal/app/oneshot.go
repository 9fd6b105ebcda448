package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ikigai-tools/ikigai/internal/agent"
	"github.com/ikigai-tools/ikigai/internal/display"
	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/provider/pick"
	"github.com/urfave/cli/v2"
	"golang.org/x/sys/unix"
)

// Exit statuses of a one-shot run, besides 0 (done), 1 (the model, the
// provider or the settings failed) and 2 (a bad command line).
const (
	exitTurnLimit   = 3   // stopped at max_tool_turns with the model still calling tools
	exitInterrupted = 130 // SIGINT or SIGTERM
)

// maxPromptInput is the largest prompt read from stdin.
const maxPromptInput = 8 << 20

// oneShot answers one prompt without asking the user anything: tools that
// would need approval are refused unless --yes or the configuration allows
// them.
func oneShot(c *cli.Context) error {
	prompt, err := readPrompt(c)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()

	var out reporter = &textReporter{stderr: c.App.ErrWriter}
	if c.Bool("json") {
		out = &jsonReporter{w: c.App.Writer}
	}
	w, err := startWorkspace(ctx, c)
	if err != nil {
		return out.fail(err)
	}
	defer w.close()
	choice, err := w.Model(ctx)
	if err != nil {
		return out.fail(err)
	}
	out.start(choice)
	s, err := w.shell(c)
	if err != nil {
		return out.fail(err)
	}
	s.Observe = out.event
	outcome, err := s.Prompt(ctx, prompt)
	if err != nil {
		return out.fail(err)
	}
	out.finish(c.App.Writer, outcome, w.env.cfg.MaxToolTurns)
	if outcome.LimitReached {
		return silent(exitTurnLimit)
	}
	return nil
}

// readPrompt returns the prompt: the arguments, else all of stdin.
func readPrompt(c *cli.Context) (string, error) {
	if c.NArg() > 0 {
		return strings.Join(c.Args().Slice(), " "), nil
	}
	if isTerminal(os.Stdin) {
		return "", cli.Exit("ikigai -p needs a prompt: ikigai -p \"PROMPT\", or the prompt on stdin", 2)
	}
	data, err := io.ReadAll(io.LimitReader(os.Stdin, maxPromptInput+1))
	switch {
	case err != nil:
		return "", fmt.Errorf("reading the prompt from stdin: %w", err)
	case len(data) > maxPromptInput:
		return "", cli.Exit(fmt.Sprintf("the prompt on stdin is larger than %d MiB", maxPromptInput>>20), 2)
	case len(bytes.TrimSpace(data)) == 0:
		return "", cli.Exit("ikigai -p: the prompt on stdin is empty", 2)
	}
	return strings.TrimSpace(strings.ToValidUTF8(string(data), "\uFFFD")), nil
}

func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// A reporter shows a one-shot run as it goes.
type reporter interface {
	start(c *pick.Choice)
	event(e agent.Event)
	finish(stdout io.Writer, o *agent.Outcome, maxTurns int)
	// fail reports err and returns the error that ends the command.
	fail(err error) error
}

// failure is how a run that did not finish ends: cancelled, or failed.
func failure(err error) error {
	if agent.IsCancel(err) {
		return cli.Exit("interrupted", exitInterrupted)
	}
	return err
}

// textReporter shows tool activity on stderr and the answer on stdout.
type textReporter struct {
	stderr io.Writer
	text   string // the latest answer's text, shown once it turns out not to be the last
	shown  int    // the turn whose text was shown
}

func (r *textReporter) start(*pick.Choice) {}

func (r *textReporter) event(e agent.Event) {
	switch e.Kind {
	case agent.ResponseDone:
		r.text = e.Text
	case agent.ToolCall:
		if r.shown != e.Turn && strings.TrimSpace(r.text) != "" {
			fmt.Fprintln(r.stderr, strings.TrimSpace(r.text))
		}
		r.shown = e.Turn
		fmt.Fprintln(r.stderr, display.Call(e.Call.Name, e.Call.Arguments))
	case agent.ToolResult:
		fmt.Fprintln(r.stderr, display.Result(e.Call.Name, e.Envelope))
	case agent.Retrying:
		fmt.Fprintf(r.stderr, "%v; trying again in %v\n", e.Err, e.Wait.Round(100*time.Millisecond))
	}
}

func (r *textReporter) finish(stdout io.Writer, o *agent.Outcome, maxTurns int) {
	if o.LimitReached {
		fmt.Fprintln(r.stderr, agent.LimitMessage(maxTurns))
		return
	}
	if text := strings.TrimRight(o.Text, "\n"); text != "" {
		fmt.Fprintln(stdout, text)
	}
}

func (r *textReporter) fail(err error) error { return failure(err) }

// jsonReporter prints one JSON object per line on stdout.
type jsonReporter struct {
	mu sync.Mutex
	w  io.Writer
}

// jsonEvent is one line of --json output; fields not set are left out.
type jsonEvent struct {
	Type         string            `json:"type"`
	Turn         int               `json:"turn,omitempty"`
	Provider     string            `json:"provider,omitempty"`
	Model        string            `json:"model,omitempty"`
	Tools        *int              `json:"tools,omitempty"`
	Text         *string           `json:"text,omitempty"`
	ID           string            `json:"id,omitempty"`
	Name         string            `json:"name,omitempty"`
	Arguments    json.RawMessage   `json:"arguments,omitempty"`
	Envelope     *execute.Envelope `json:"envelope,omitempty"`
	DurationMS   *int64            `json:"duration_ms,omitempty"`
	StopReason   string            `json:"stop_reason,omitempty"`
	ToolTurns    *int              `json:"tool_turns,omitempty"`
	MaxToolTurns int               `json:"max_tool_turns,omitempty"`
	Usage        *jsonUsage        `json:"usage,omitempty"`
	Error        string            `json:"error,omitempty"`
	Kind         string            `json:"kind,omitempty"`
	Steps        []string          `json:"steps,omitempty"`
	WaitMS       *int64            `json:"wait_ms,omitempty"`
}

type jsonUsage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

func usage(u provider.Usage) *jsonUsage { return &jsonUsage{u.InputTokens, u.OutputTokens} }

func (r *jsonReporter) print(e jsonEvent) {
	r.mu.Lock()
	defer r.mu.Unlock()
	b, err := json.Marshal(e)
	if err != nil {
		b, _ = json.Marshal(jsonEvent{Type: "error", Error: err.Error()})
	}
	r.w.Write(append(b, '\n'))
}

func (r *jsonReporter) start(c *pick.Choice) {
	r.print(jsonEvent{Type: "start", Provider: c.Name, Model: c.Model})
}

func (r *jsonReporter) event(e agent.Event) {
	switch e.Kind {
	case agent.RequestSent:
		r.print(jsonEvent{Type: "request", Turn: e.Turn, Tools: &e.Tools})
	case agent.TextDelta:
		r.print(jsonEvent{Type: "text", Turn: e.Turn, Text: &e.Text})
	case agent.Retrying:
		wait := e.Wait.Milliseconds()
		r.print(jsonEvent{Type: "retry", Turn: e.Turn, Error: e.Err.Error(), WaitMS: &wait})
	case agent.ResponseDone:
		r.print(jsonEvent{Type: "response", Turn: e.Turn, StopReason: string(e.StopReason), Usage: usage(e.Usage)})
	case agent.ToolCall:
		r.print(jsonEvent{Type: "tool_call", Turn: e.Turn, ID: e.Call.ID, Name: e.Call.Name, Arguments: validJSON(e.Call.Arguments)})
	case agent.ToolResult:
		ms := e.Elapsed.Milliseconds()
		r.print(jsonEvent{Type: "tool_result", Turn: e.Turn, ID: e.Call.ID, Name: e.Call.Name, Envelope: &e.Envelope, DurationMS: &ms})
	case agent.TurnLimit:
		r.print(jsonEvent{Type: "turn_limit", Turn: e.Turn})
	}
}

func (r *jsonReporter) finish(_ io.Writer, o *agent.Outcome, maxTurns int) {
	e := jsonEvent{Type: "final", Text: &o.Text, StopReason: string(o.StopReason), ToolTurns: &o.ToolTurns, Usage: usage(o.Usage)}
	if o.LimitReached {
		e.MaxToolTurns = maxTurns
		e.Error = agent.LimitMessage(maxTurns)
	}
	r.print(e)
}

func (r *jsonReporter) fail(err error) error {
	e := jsonEvent{Type: "error", Error: err.Error()}
	var pe *provider.Error
	switch {
	case agent.IsCancel(err):
		e.Kind = "interrupted"
	case errors.As(err, &pe):
		e.Kind, e.Steps = pe.Kind.String(), pe.Steps
	}
	r.print(e)
	return failure(err)
}

// validJSON returns args when they are JSON, else the text as a JSON
// string, so that a model's malformed arguments cannot break a line.
func validJSON(args json.RawMessage) json.RawMessage {
	if json.Valid(args) {
		var b bytes.Buffer
		if json.Compact(&b, args) == nil {
			return b.Bytes()
		}
	}
	s, _ := json.Marshal(string(args))
	return s
}
