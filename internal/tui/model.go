package tui

import (
	"context"
	"fmt"
	"slices"
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
	"github.com/ikigai-tools/ikigai/internal/markdown"
	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/repl"
)

// maxInputRows bounds what the prompt accepts, as the screen shows it:
// far more than a pasted file, short of what would make editing crawl.
const maxInputRows = 5000

// maxPromptRows is as high as the prompt grows; a longer input scrolls.
const maxPromptRows = 12

// Keys is what /help says about the keys.
const Keys = "Keys: Enter sends (while ikigai works, queues it for after); Alt-Enter, Ctrl-J or a trailing \\ starts a new line; " +
	"Up and Down recall what you sent; Tab completes commands, their arguments and @paths; " +
	"Ctrl-O shows tool results and the model's thinking in full, or folds them; Ctrl-L redraws; " +
	"Esc or Ctrl-C cancels what is running; Esc twice on an empty line picks a turn to rewind to; Ctrl-D on an empty line quits."

// Messages the model gets besides the terminal's.
type (
	// eventMsg is something a prompt's run did.
	eventMsg agent.Event
	// askMsg asks the user to approve a call; the answer goes to reply.
	askMsg struct {
		req   approval.Request
		reply chan<- answer
		// text shows the call (repl.Shell.Question); display.Approval's
		// when empty.
		text string
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
	// mdMsg brings the Markdown renderer, started once the prompt is up;
	// nil when it could not be.
	mdMsg struct{ r *markdown.Renderer }
	// replayedMsg brings the resumed conversation, rendered.
	replayedMsg struct{ lines []string }
	// completedMsg brings what the word before the cursor of line
	// completes to: each item replaces line[start:].
	completedMsg struct {
		line  string
		start int
		items []string
	}
)

// answer is the user's answer to an approval question.
type answer struct {
	yes    bool
	always bool   // and do not ask again about this tool in this session
	why    string // for a refusal: what the model is told
}

// Model is the terminal UI's state. It handles the keys and what the
// shell reports, and draws the prompt; the conversation itself goes into
// the terminal's scrollback, printed above the prompt, never redrawn.
type Model struct {
	ctx     context.Context
	shell   *repl.Shell
	hist    *history
	session *approval.Session // what "always" answers allow

	input   textarea.Model
	spin    spinner.Model
	width   int    // the terminal's width
	height  int    // and height
	sized   bool   // the size is known: nothing is printed before
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
	thought  thoughts

	markdown string             // the Markdown helper's path; "" for none
	md       *markdown.Renderer // renders the model's answers; nil shows them as written
	mdReady  bool               // md is what it will be
	// resumed is the conversation resumed, to be shown once the renderer
	// is ready; nothing is printed until it is.
	resumed   []provider.Message
	replaying bool              // resumed is being rendered
	split     markdown.Splitter // the answer's blocks, each rendered once complete
	blocks    int               // the blocks of the answer printed so far

	queue  []string // lines sent while a line ran, to send when it ends
	full   bool     // results are shown whole, not cut (Ctrl-O)
	cut    string   // the last result shown cut, for Ctrl-O to show whole
	tabbed bool     // a completion is under way

	ask      *askMsg
	askRows  int    // the rows the call asked about takes in the scrollback
	lastCall string // the call whose line was printed last, as tool name and arguments
	telling  bool   // typing why the call is refused
	why      string // what is typed

	// escArmed: Esc cancelled a run or met an empty prompt; a second one
	// on an empty prompt opens picker, the turns to rewind to.
	escArmed bool
	picker   *rewindPicker

	out      []string // lines waiting to be printed above the prompt
	rows     []string // the rows of out's first lines, wrapped, not printed yet
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
	in.MaxHeight = maxPromptRows       // rows shown; a longer input scrolls
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
		session: &approval.Session{Dir: shell.Dir},
		hist:    hist,
		input:   in,
		spin:    spinner.New(spinner.WithSpinner(spinner.MiniDot)),
		width:   80,
		height:  24,
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
	path := m.markdown
	startMD := func() tea.Msg { return mdMsg{markdown.Start(path)} }
	if path == "" {
		startMD = nil
	}
	return tea.Batch(m.flush(), send, startMD, func() tea.Msg {
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
		m.resize(msg.Width, msg.Height)
		return m, tea.Batch(m.replayResumed(), m.flush())
	case tea.KeyPressMsg:
		return m, tea.Batch(m.key(msg), m.flush())
	case completedMsg:
		m.completed(msg)
	case mdMsg:
		m.md, m.mdReady = msg.r, true
		return m, tea.Batch(m.replayResumed(), m.flush())
	case replayedMsg:
		m.out = append(msg.lines, m.out...)
		m.resumed, m.replaying = nil, false
		return m, m.flush()
	case tea.PasteMsg:
		if m.telling {
			m.why += msg.Content
			return m, nil
		}
		if m.ask == nil {
			var cmd tea.Cmd
			m.input, cmd = m.input.Update(msg)
			return m, cmd
		}
		return m, nil
	case readyMsg:
		m.ready, m.model = true, msg.model
		for _, n := range msg.notes {
			m.print(styled(toolStyle, display.Clean(n)))
		}
		if msg.err != nil && !agent.IsCancel(msg.err) {
			m.print(styled(errorStyle, "Error: "+display.Clean(msg.err.Error())))
		}
	case eventMsg:
		m.event(agent.Event(msg))
	case askMsg:
		// The call is printed whole above the question, and the question
		// waits for it: the answer is given knowing all of what would run.
		m.ask, m.telling, m.why = &msg, false, ""
		m.activity = "Waiting for your answer"
		if msg.text == "" {
			msg.text = display.Approval(msg.req.Tool, msg.req.Args)
		}
		text := approvalText(msg.req.Tool, msg.text)
		if head, rest, ok := strings.Cut(text, "\n"); ok && m.lastCall == msg.req.Tool+string(msg.req.Args) && ansi.Strip(head) == "→ "+msg.req.Tool+":" {
			text = rest // the call's line just above names the tool
		}
		m.askRows = 0
		for _, l := range strings.Split(text, "\n") {
			m.askRows += len(wrap(l, m.textWidth()))
		}
		m.print(text)
	case doneMsg:
		m.finish(msg.res, msg.err)
		if m.leaving || msg.res.Quit {
			return m, m.exit()
		}
		return m, tea.Batch(m.next(msg.err), m.flush())
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
	if k.String() != "esc" {
		m.escArmed = false
	}
	if m.ask != nil {
		return m.answer(k)
	}
	if m.picker != nil {
		return m.pick(k)
	}
	switch k.String() {
	case "esc":
		if m.busy {
			m.cancel()
			m.activity = "Cancelling"
			m.escArmed = true
			return nil
		}
		if m.input.Value() == "" {
			m.rewindKey()
			return nil
		}
	case "ctrl+l":
		return tea.ClearScreen
	case "tab":
		return m.complete()
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
	case fullKey:
		m.toggleFull()
		return nil
	case "enter":
		return m.submit()
	case "up":
		// On an empty prompt, a queued line comes back first, to edit.
		if m.input.Value() == "" && len(m.queue) > 0 {
			m.input.SetValue(m.queue[len(m.queue)-1])
			m.queue = m.queue[:len(m.queue)-1]
			return nil
		}
		// A recalled entry has the cursor at its end, for typing on; Up
		// walks back through its lines before it goes further back.
		if m.input.Line() == 0 {
			if entry, ok := m.hist.prev(m.input.Value()); ok {
				m.input.SetValue(entry)
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

// answer handles a key while an approval question is up. Ctrl-C cancels
// the run, as it does while a tool runs: the call is not answered but
// cancelled (TOOL_CANCELLED), and the run stops. Until the whole call is
// printed, no other key answers.
func (m *Model) answer(k tea.KeyPressMsg) tea.Cmd {
	var a answer
	switch key := strings.ToLower(k.String()); {
	case key == "ctrl+c":
		m.cancel()
		m.activity, m.ask = "Cancelling", nil
		return nil
	case !m.asking():
		return nil
	case m.telling:
		return m.tell(k)
	case key == "t":
		m.telling = true
		return nil
	case key == "y":
		a.yes = true
	case key == "a":
		a.yes, a.always = true, true
		m.print(styled(toolStyle, m.always(m.ask.req)))
	case key == "n" || key == "esc":
	default:
		return nil
	}
	m.ask.reply <- a // buffered: the asker may have given up already
	m.activity = "Running " + m.ask.req.Tool
	m.ask = nil
	return nil
}

// tell handles a key while the user types why the call is refused: Enter
// refuses it with what was typed, Esc goes back to the question.
func (m *Model) tell(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "enter":
		m.ask.reply <- answer{why: m.why}
		m.activity = "Running " + m.ask.req.Tool
		m.ask, m.telling, m.why = nil, false, ""
	case "esc":
		m.telling, m.why = false, ""
	case "backspace":
		if r := []rune(m.why); len(r) > 0 {
			m.why = string(r[:len(r)-1])
		}
	case "space":
		m.why += " "
	default:
		if k.Text != "" {
			m.why += k.Text
		}
	}
	return nil
}

// always remembers that the user allowed req for the rest of the session,
// as the narrowest rules that cover it, and says what was kept.
func (m *Model) always(req approval.Request) string {
	if req.Rule != "" {
		return fmt.Sprintf("Allowed this call only: the rule %s asks every time.", req.Rule)
	}
	if m.session == nil {
		return "Allowed this call only."
	}
	kept := m.session.Always(req)
	if len(kept) == 0 {
		return "Allowed this call only: no rule narrow enough covers it."
	}
	names := make([]string, len(kept))
	for i, r := range kept {
		names[i] = r.String()
	}
	return "Allowed for the rest of this session: " + strings.Join(names, ", ")
}

// asking reports whether the approval question is up: asked, and the call
// it is about printed.
func (m *Model) asking() bool {
	return m.ask != nil && !m.printing && len(m.out) == 0 && len(m.rows) == 0
}

// submit sends what was typed to the shell, unless a line is running.
func (m *Model) submit() tea.Cmd {
	value := m.input.Value()
	if strings.HasSuffix(value, "\\") {
		m.input.SetValue(strings.TrimSuffix(value, "\\") + "\n")
		return nil
	}
	line := strings.TrimSpace(value)
	if line == "" {
		return nil
	}
	m.input.Reset()
	m.hist.add(line)
	if m.busy {
		m.queue = append(m.queue, line)
		return nil
	}
	return m.send(line)
}

// send runs line in the shell.
func (m *Model) send(line string) tea.Cmd {
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
	case agent.ThinkingDelta:
		m.thought.add(e.Text)
	case agent.TextDelta:
		m.print(m.thought.end()...)
		if m.md != nil {
			for _, b := range m.split.Write(display.Clean(e.Text)) {
				m.printMarkdown(b)
			}
			return
		}
		m.stream += display.Clean(e.Text)
		if i := strings.LastIndexByte(m.stream, '\n'); i >= 0 {
			m.print(m.stream[:i])
			m.stream = m.stream[i+1:]
		}
		// The unfinished line shows below the scrollback as its last row;
		// the rows before it are printed as soon as they are full, so that
		// a line longer than the window is neither hidden nor drawn twice.
		if rows := wrap(m.stream, m.textWidth()); len(rows) > 1 {
			m.print(rows[:len(rows)-1]...)
			m.stream = rows[len(rows)-1]
		}
	case agent.ResponseDone:
		m.endStream()
	case agent.Retrying:
		m.print(styled(toolStyle, fmt.Sprintf("%v; trying again in %v", e.Err, e.Wait.Round(100*time.Millisecond))))
	case agent.ToolCall:
		m.endStream()
		m.print(styled(toolStyle, display.Clean(strings.Repeat(display.Nested, e.Depth)+display.Call(e.Call.Name, e.Call.Arguments))))
		m.activity = "Running " + e.Call.Name
		m.lastCall = e.Call.Name + string(e.Call.Arguments)
	case agent.ToolProgress:
		m.activity = "Running " + e.Call.Name + ": " + display.Clean(e.Text)
	case agent.ToolResult:
		st := toolStyle
		if !e.Envelope.Success {
			st = errorStyle
		}
		indent := strings.Repeat(display.Nested, e.Depth)
		whole := indent + display.ResultWhole(e.Call.Name, e.Envelope)
		short := indent + display.Result(e.Call.Name, e.Envelope)
		switch {
		case m.full:
			m.print(styled(st, display.Clean(whole)))
		case short != whole:
			m.cut = whole
			m.print(styled(st, display.Clean(strings.Replace(short, " more lines", " more lines (Ctrl-O shows them)", 1))))
		default:
			m.print(styled(st, display.Clean(short)))
		}
		m.activity = "Thinking"
	case agent.HookRan:
		if e.Hook.Noteworthy() {
			st := toolStyle
			if e.Hook.Failure != "" {
				st = errorStyle
			}
			m.print(styled(st, display.Clean(display.Hook(e.Hook))))
		}
	}
}

// replayResumed renders the resumed conversation once the renderer is
// ready and the width known, off the UI's goroutine.
func (m *Model) replayResumed() tea.Cmd {
	if m.resumed == nil || m.replaying || !m.mdReady || !m.sized {
		return nil
	}
	m.replaying = true
	msgs, md, width := m.resumed, m.md, m.textWidth()
	return func() tea.Msg { return replayedMsg{replay(msgs, renderAnswer(md, width))} }
}

// printMarkdown prints a complete block of the answer, rendered; as it was
// written when the renderer fails, which it then does for good.
func (m *Model) printMarkdown(block string) {
	if m.blocks++; m.blocks > 1 {
		m.print("") // blocks apart, as Markdown sets them
	}
	lines, err := m.md.Render(block, m.textWidth())
	if err != nil {
		m.md = nil
		m.print(block)
		return
	}
	m.print(lines...)
}

// endStream prints the rest of the model's thinking and text.
func (m *Model) endStream() {
	m.print(m.thought.end()...)
	if last, ok := m.split.Flush(); ok {
		if m.md != nil {
			m.printMarkdown(last)
		} else {
			m.print(last)
		}
	}
	m.blocks = 0
	if m.stream != "" {
		m.print(m.stream)
		m.stream = ""
	}
}

// finish shows how a line ended.
func (m *Model) finish(res repl.Result, err error) {
	m.endStream()
	m.busy, m.cancel, m.ask = false, nil, nil
	if res.Model != "" {
		m.model = res.Model
	}
	switch {
	case res.Output != "" && res.Diff:
		m.print(diffText(display.Clean(res.Output)))
	case res.Output != "":
		m.print(display.Clean(res.Output))
	}
	if res.Prompt != "" {
		m.input.SetValue(res.Prompt) // a rewound turn's, to edit and send again
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
		m.print(styled(errorStyle, "Error: "+display.Clean(err.Error())))
	}
}

// next sends the first queued line once a line has ended well; after a
// failure or a cancellation the queued lines go back into the prompt, to
// send again or not.
func (m *Model) next(err error) tea.Cmd {
	if len(m.queue) == 0 || m.leaving {
		return nil
	}
	if err != nil {
		lines := append(m.queue, m.input.Value())
		m.input.SetValue(strings.TrimSpace(strings.Join(lines, "\n")))
		m.queue = nil
		return nil
	}
	line := m.queue[0]
	m.queue = m.queue[1:]
	return m.send(line)
}

// toggleFull switches between cut and whole tool results and thinking,
// printing the last cut ones whole when it turns whole.
func (m *Model) toggleFull() {
	m.full = !m.full
	lines, _ := m.thought.toggle()
	if !m.full {
		m.hint = "Tool results and thinking are folded from now on."
		return
	}
	if m.cut != "" {
		m.print(styled(toolStyle, display.Clean(m.cut)))
		m.cut = ""
	}
	m.print(lines...)
	m.hint = "Tool results and thinking are shown whole from now on; Ctrl-O folds them."
}

// complete asks the shell, off the UI's goroutine, what the word before
// the end of the prompt completes to.
func (m *Model) complete() tea.Cmd {
	line := m.input.Value()
	if m.tabbed || line == "" {
		return nil
	}
	m.tabbed = true
	shell := m.shell
	return func() tea.Msg {
		start, items := shell.Complete(line, len(line))
		return completedMsg{line: line, start: start, items: items}
	}
}

// completed puts a completion into the prompt, unless the prompt changed
// meanwhile: the one item, or what all the items start with, listing them.
func (m *Model) completed(c completedMsg) {
	m.tabbed = false
	if m.input.Value() != c.line || len(c.items) == 0 {
		return
	}
	common := c.items[0]
	for _, it := range c.items[1:] {
		for !strings.HasPrefix(it, common) {
			common = common[:len(common)-1]
		}
	}
	if len(c.line[c.start:]) < len(common) {
		m.input.SetValue(c.line[:c.start] + common)
	}
	if len(c.items) > 1 {
		shown := make([]string, len(c.items))
		for i, it := range c.items {
			shown[i] = strings.TrimSpace(it)
		}
		m.hint = ansi.Truncate(strings.Join(shown, "  "), m.textWidth(), "…")
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
//
// Lines are wrapped to the window, and printed a few rows at a time: Bubble
// Tea inserts what it prints by scrolling the screen above the prompt, which
// goes wrong when the rows printed and the rows drawn below them do not fit
// on the screen together (the frame lands in the scrollback, rows are lost).
// View keeps to frameRows, and a print to the rows left.
func (m *Model) flush() tea.Cmd {
	if m.printing || !m.sized || m.resumed != nil {
		return nil
	}
	width, room := m.textWidth(), m.height-m.frameRows()
	for len(m.rows) < room && len(m.out) > 0 {
		m.rows = append(m.rows, wrap(m.out[0], width)...)
		m.out = m.out[1:]
	}
	switch {
	case len(m.rows) == 0 && m.done:
		return tea.Quit
	case len(m.rows) == 0:
		return nil
	}
	n := min(len(m.rows), room)
	text := strings.Join(m.rows[:n], "\n")
	m.rows, m.printing = m.rows[n:], true
	return tea.Sequence(m.println(text), func() tea.Msg { return printedMsg{} })
}

// textWidth is how wide a row of the scrollback may be: one column short of
// the window, since some terminals erase a character written in the last
// column when the line is then cleared.
func (m *Model) textWidth() int {
	return m.width - 1
}

// frameRows bounds the rows View draws: two thirds of the window, so that a
// third is left to print into.
func (m *Model) frameRows() int {
	return m.height - max(1, m.height/3)
}

// resize takes the terminal's new size.
func (m *Model) resize(width, height int) {
	m.width, m.height, m.sized = max(width, 20), max(height, 2), true
	m.input.SetWidth(m.width)
	// The prompt, the status line and the activity above it fit in the
	// frame; a longer input scrolls.
	m.input.MaxHeight = max(1, min(maxPromptRows, m.frameRows()-2))
	m.input.SetHeight(m.input.Height())
}

// View draws what is below the scrollback: the model's unfinished line,
// what is running, and the prompt and a status line, or a question. It
// never takes more than frameRows: what is above the prompt goes first,
// then the status line.
func (m *Model) View() tea.View {
	if m.done {
		return tea.NewView("")
	}
	var head, body, foot []string
	if line := m.thought.line(m.textWidth()); line != "" {
		head = []string{line}
	}
	if m.stream != "" {
		head = wrap(m.stream, m.textWidth())
	}
	if pending := m.split.Pending(); pending != "" {
		for _, l := range strings.Split(pending, "\n") {
			head = append(head, wrap(l, m.textWidth())...)
		}
	}
	switch {
	case m.ask != nil && m.asking() && m.telling:
		body = wrap(styled(promptStyle, "Tell the model why (Enter refuses the call with it, Esc goes back): ")+display.Clean(m.why)+"█", m.textWidth())
	case m.ask != nil && m.asking():
		body = wrap(styled(promptStyle, "Allow this call? y yes · n no · a always, for this session · t no, and tell the model why"), m.textWidth())
		if m.ask.req.Ask {
			body = append(wrap(display.Clean("A hook asks you to approve this call: "+m.ask.req.Reason), m.textWidth()), body...)
		}
		if m.askRows > m.height-len(body) {
			note := fmt.Sprintf("The call above is %d lines long: scroll back to see all of it.", m.askRows)
			body = append(wrap(note, m.textWidth()), body...)
		}
	case m.picker != nil:
		body = m.picker.view(m.textWidth(), m.frameRows()-len(head))
	case m.busy:
		head = append(head, ansi.Truncate(fmt.Sprintf("%s %s… %ds · Ctrl-C to cancel",
			m.spin.View(), m.activity, int(time.Since(m.since).Seconds())), m.textWidth(), "…"))
	}
	for _, q := range m.queue {
		head = append(head, styled(toolStyle, ansi.Truncate("Queued: "+display.Clean(strings.ReplaceAll(q, "\n", " ")), m.textWidth(), "…")))
	}
	if m.ask == nil && m.picker == nil {
		body = strings.Split(m.input.View(), "\n")
		status := m.hint
		if status == "" {
			status = m.status()
		}
		foot = []string{styled(toolStyle, ansi.Truncate(status, m.textWidth(), "…"))}
	}
	n := m.frameRows()
	if len(body)+len(foot) > n {
		foot = nil
	}
	if len(body) > n {
		body = body[len(body)-n:]
	}
	if len(head) > n-len(body)-len(foot) {
		head = head[len(head)-(n-len(body)-len(foot)):]
	}
	return tea.NewView(strings.Join(slices.Concat(head, body, foot), "\n"))
}

// status is the line under the prompt when there is nothing more pressing.
func (m *Model) status() string {
	model := m.model
	if !m.ready {
		model = "starting"
	}
	st := m.shell.Status(model)
	status := st.String()
	// The hint until the conversation starts, and only where it fits: a
	// row wider than a terminal shrunk under it would not be redrawn
	// where the renderer expects it.
	if help := " · /help for commands"; st.Context.Tokens == 0 && ansi.StringWidth(status+help) <= m.textWidth() {
		status += help
	}
	return status
}
