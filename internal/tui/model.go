package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/ikigai-tools/ikigai/internal/agent"
	"github.com/ikigai-tools/ikigai/internal/approval"
	"github.com/ikigai-tools/ikigai/internal/display"
	"github.com/ikigai-tools/ikigai/internal/repl"
)

// maxInputRows bounds what the prompt accepts, as the screen shows it:
// far more than a pasted file, short of what would make editing crawl.
const maxInputRows = 5000

// Keys is what /help says about the keys.
const Keys = "Keys: Enter sends; Alt-Enter, Ctrl-J or a trailing \\ starts a new line; Up and Down recall what you sent; " +
	"Ctrl-C cancels what is running; Ctrl-D on an empty line quits."

// Messages the model gets besides the terminal's.
type (
	// eventMsg is something a prompt's run did.
	eventMsg agent.Event
	// askMsg asks the user to approve a call; the answer goes to reply.
	askMsg struct {
		req   approval.Request
		reply chan<- answer
	}
	// doneMsg ends a line the shell handled.
	doneMsg struct {
		res repl.Result
		err error
	}
	// readyMsg brings what discovery and the provider's choice found.
	readyMsg struct {
		notes []string
		model string
		err   error // no provider could be set up
	}
	// printedMsg says the last lines were printed, so the next may go.
	printedMsg struct{}
	// quitMsg asks to quit, as a signal does: what runs is cancelled first.
	quitMsg struct{}
)

// answer is the user's answer to an approval question.
type answer struct {
	yes    bool
	always bool // and do not ask again about this tool in this session
}

// Model is the terminal UI's state. It handles the keys and what the
// shell reports, and draws the prompt; the conversation itself goes into
// the terminal's scrollback, printed above the prompt, never redrawn.
type Model struct {
	ctx   context.Context
	shell *repl.Shell
	hist  *history

	input   textarea.Model
	spin    spinner.Model
	width   int
	model   string // the model prompts go to, once known
	ready   bool   // discovery and the choice of provider are done
	hint    string // a line under the prompt, until the next key
	armed   bool   // Ctrl-C on an empty prompt: a second one quits
	leaving bool   // quitting once what runs has stopped
	pending bool   // send what is in the prompt as soon as the UI is up
	done    bool   // quitting: nothing more to draw

	busy     bool
	cancel   context.CancelFunc
	since    time.Time
	activity string
	stream   string // the model's text since its last full line

	ask *askMsg

	out      []string // lines waiting to be printed above the prompt
	printing bool
	println  func(text string) tea.Cmd // tea.Println, unless a test watches
}

// newModel returns the UI for shell; intro is printed first.
func newModel(ctx context.Context, shell *repl.Shell, hist *history, intro []string) *Model {
	in := textarea.New()
	in.Prompt = "> "
	in.ShowLineNumbers = false
	in.Placeholder = "Ask anything, or /help"
	in.DynamicHeight = true
	in.MinHeight = 1
	in.MaxHeight = 12                  // rows shown; a longer input scrolls
	in.MaxContentHeight = maxInputRows // rows accepted
	in.CharLimit = 0
	in.SetHeight(1)
	in.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("alt+enter", "ctrl+j", "shift+enter"))
	styles := in.Styles()
	styles.Focused.CursorLine = styles.Focused.Text
	styles.Focused.Prompt = promptStyle
	in.SetStyles(styles)
	in.Focus()
	return &Model{
		ctx:     ctx,
		shell:   shell,
		hist:    hist,
		input:   in,
		spin:    spinner.New(spinner.WithSpinner(spinner.MiniDot)),
		width:   80,
		out:     intro,
		println: func(text string) tea.Cmd { return tea.Println(text) },
	}
}

// Init starts waiting for discovery and the provider, prints the intro, and
// sends a pending prompt.
func (m *Model) Init() tea.Cmd {
	shell, ctx := m.shell, m.ctx
	var send tea.Cmd
	if m.pending {
		send = m.submit()
	}
	return tea.Batch(m.flush(), send, func() tea.Msg {
		notes := shell.DiscoveryNotes(ctx)
		c, err := shell.Backend.Model(ctx)
		if err != nil {
			return readyMsg{notes: notes, model: "no model", err: err}
		}
		return readyMsg{notes: notes, model: c.Model}
	})
}

// Update handles one message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width = max(msg.Width, 20)
		m.input.SetWidth(m.width)
		return m, nil
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case tea.PasteMsg:
		if m.ask == nil {
			var cmd tea.Cmd
			m.input, cmd = m.input.Update(msg)
			return m, cmd
		}
		return m, nil
	case readyMsg:
		m.ready, m.model = true, msg.model
		for _, n := range msg.notes {
			m.print(styled(toolStyle, clean(n)))
		}
		if msg.err != nil && !agent.IsCancel(msg.err) {
			m.print(styled(errorStyle, "Error: "+clean(msg.err.Error())))
		}
	case eventMsg:
		m.event(agent.Event(msg))
	case askMsg:
		m.ask = &msg
		m.activity = "Waiting for your answer"
	case doneMsg:
		m.finish(msg.res, msg.err)
		if m.leaving || msg.res.Quit {
			return m, m.exit()
		}
	case quitMsg:
		return m, m.quit()
	case printedMsg:
		m.printing = false
	case spinner.TickMsg:
		if !m.busy {
			return m, nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return m, tea.Batch(cmd, m.flush())
	default:
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		return m, tea.Batch(cmd, m.flush())
	}
	return m, m.flush()
}

// key handles a key press.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	m.hint = ""
	if k.String() != "ctrl+c" {
		m.armed = false
	}
	if m.ask != nil {
		return m.answer(k)
	}
	switch k.String() {
	case "ctrl+c":
		switch {
		case m.busy:
			m.cancel()
			m.activity = "Cancelling"
		case m.input.Value() != "":
			m.input.Reset()
		case m.armed:
			return m.quit()
		default:
			m.armed = true
			m.hint = "Press Ctrl-C again to quit."
		}
		return nil
	case "ctrl+d":
		if m.input.Value() == "" {
			return m.quit()
		}
	case "enter":
		return m.submit()
	case "up":
		if m.input.Line() == 0 {
			if entry, ok := m.hist.prev(m.input.Value()); ok {
				m.input.SetValue(entry)
				m.input.MoveToBegin()
			}
			return nil
		}
	case "down":
		if m.input.Line() == m.input.LineCount()-1 {
			if entry, ok := m.hist.next(); ok {
				m.input.SetValue(entry)
			}
			return nil
		}
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return cmd
}

// answer handles a key while an approval question is up.
func (m *Model) answer(k tea.KeyPressMsg) tea.Cmd {
	var a answer
	switch strings.ToLower(k.String()) {
	case "y":
		a.yes = true
	case "a":
		a.yes, a.always = true, true
	case "n", "esc":
	case "ctrl+c":
		m.cancel()
		m.activity = "Cancelling"
	default:
		return nil
	}
	m.ask.reply <- a // buffered: the asker may have given up already
	if m.activity != "Cancelling" {
		m.activity = "Running " + m.ask.req.Tool
	}
	m.ask = nil
	return nil
}

// submit sends what was typed to the shell, unless a line is running.
func (m *Model) submit() tea.Cmd {
	value := m.input.Value()
	if strings.HasSuffix(value, "\\") {
		m.input.SetValue(strings.TrimSuffix(value, "\\") + "\n")
		return nil
	}
	if m.busy {
		m.hint = "Still working: wait for the answer, or Ctrl-C to cancel."
		return nil
	}
	line := strings.TrimSpace(value)
	if line == "" {
		return nil
	}
	m.input.Reset()
	m.hist.add(line)
	m.print("", echo(line))
	m.busy, m.since, m.activity, m.stream = true, time.Now(), "Working", ""
	ctx, cancel := context.WithCancel(m.ctx)
	m.cancel = cancel
	shell := m.shell
	return tea.Batch(m.flush(), m.spin.Tick, func() tea.Msg {
		defer cancel()
		res, err := shell.Handle(ctx, line)
		return doneMsg{res, err}
	})
}

// event shows what a prompt's run did.
func (m *Model) event(e agent.Event) {
	switch e.Kind {
	case agent.RequestSent:
		m.activity = "Thinking"
	case agent.TextDelta:
		m.stream += clean(e.Text)
		if i := strings.LastIndexByte(m.stream, '\n'); i >= 0 {
			m.print(m.stream[:i])
			m.stream = m.stream[i+1:]
		}
	case agent.ResponseDone:
		m.endStream()
	case agent.Retrying:
		m.print(styled(toolStyle, fmt.Sprintf("%v; trying again in %v", e.Err, e.Wait.Round(100*time.Millisecond))))
	case agent.ToolCall:
		m.endStream()
		m.print(styled(toolStyle, clean(display.Call(e.Call.Name, e.Call.Arguments))))
		m.activity = "Running " + e.Call.Name
	case agent.ToolResult:
		st := toolStyle
		if !e.Envelope.Success {
			st = errorStyle
		}
		m.print(styled(st, clean(display.Result(e.Call.Name, e.Envelope))))
		m.activity = "Thinking"
	}
}

// endStream prints the rest of the model's text.
func (m *Model) endStream() {
	if m.stream != "" {
		m.print(m.stream)
		m.stream = ""
	}
}

// finish shows how a line ended.
func (m *Model) finish(res repl.Result, err error) {
	m.endStream()
	m.busy, m.cancel, m.ask = false, nil, nil
	if res.Output != "" {
		m.print(clean(res.Output))
	}
	if res.Outcome != nil && res.Outcome.LimitReached {
		m.print(styled(errorStyle, agent.LimitMessage(res.Outcome.ToolTurns)))
	}
	for _, w := range res.Warnings {
		m.print(styled(errorStyle, w))
	}
	switch {
	case err == nil:
	case agent.IsCancel(err):
		m.print(styled(toolStyle, "Cancelled."))
	default:
		m.print(styled(errorStyle, "Error: "+clean(err.Error())))
	}
}

// quit leaves, once what runs has been cancelled and has stopped, so that
// no tool is left running.
func (m *Model) quit() tea.Cmd {
	if !m.busy {
		return m.exit()
	}
	m.leaving = true
	m.cancel()
	m.activity = "Cancelling"
	return nil
}

// exit quits once what is left to print is printed.
func (m *Model) exit() tea.Cmd {
	m.done = true
	return m.flush()
}

// print queues lines for the scrollback.
func (m *Model) print(lines ...string) {
	m.out = append(m.out, lines...)
}

// flush prints the queued lines above the prompt, and quits once nothing
// is left when quitting. One print is under way at a time, and the next
// starts when it is done, so that lines keep their order: commands returned
// by Update otherwise run concurrently.
func (m *Model) flush() tea.Cmd {
	switch {
	case m.printing:
		return nil
	case len(m.out) == 0 && m.done:
		return tea.Quit
	case len(m.out) == 0:
		return nil
	}
	text := strings.Join(m.out, "\n")
	m.out, m.printing = nil, true
	return tea.Sequence(m.println(text), func() tea.Msg { return printedMsg{} })
}

// View draws what is below the scrollback: the model's unfinished line,
// what is running, a question or the prompt, and a status line.
func (m *Model) View() tea.View {
	if m.done {
		return tea.NewView("")
	}
	var b strings.Builder
	if m.stream != "" {
		b.WriteString(ansi.Wrap(m.stream, m.width, "") + "\n")
	}
	if m.busy {
		fmt.Fprintf(&b, "%s %s… %ds · Ctrl-C to cancel\n", m.spin.View(), m.activity, int(time.Since(m.since).Seconds()))
	}
	if m.ask != nil {
		question := approvalText(m.ask.req.Tool, m.ask.req.Args) + "\n" +
			styled(promptStyle, "Allow this call? y yes · n no · a always, for this session")
		b.WriteString(ansi.Wrap(question, m.width, "") + "\n")
		return tea.NewView(b.String())
	}
	b.WriteString(m.input.View() + "\n")
	status := m.hint
	if status == "" {
		status = m.status()
	}
	b.WriteString(styled(toolStyle, ansi.Truncate(status, m.width, "…")))
	v := tea.NewView(b.String())
	return v
}

// status is the line under the prompt when there is nothing more pressing.
func (m *Model) status() string {
	model := m.model
	if !m.ready {
		model = "starting"
	}
	return fmt.Sprintf("%s · /help for commands", model)
}
