// Package session saves conversations as they happen and finds them again.
// A session is one JSON Lines file in the user's state directory: a first
// line that says what the session is (its id, working directory, start time,
// provider and model), then one line per message, each written with a single
// write as the message joins the conversation. A crash loses at most the
// message being written; a line torn by it is skipped when the session is
// read back.
package session

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ikigai-tools/ikigai/internal/provider"
)

// ext is the session files' extension.
const ext = ".jsonl"

// maxLine bounds one line of a session file when it is read: a message
// holding a whole file written by a tool can be large, but not this large.
const maxLine = 64 << 20

// Meta says what a session is; it is the file's first line.
type Meta struct {
	ID       string    `json:"id"`
	Dir      string    `json:"dir"`
	Started  time.Time `json:"started"`
	Provider string    `json:"provider,omitempty"`
	Model    string    `json:"model,omitempty"`
}

// Dir returns where sessions are kept: $XDG_STATE_HOME/ikigai/sessions, or
// ~/.local/state/ikigai/sessions when that variable is unset or not an
// absolute path, as the XDG base directory specification asks.
func Dir(getenv func(string) string, home string) string {
	state := getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(state) {
		state = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(state, "ikigai", "sessions")
}

// Store is a directory of session files.
type Store struct {
	dir string
}

// At returns the store in dir, which need not exist yet.
func At(dir string) *Store { return &Store{dir: dir} }

// NewID returns a new session id: the start time to the second, which sorts
// sessions by age, and a random suffix.
func NewID(now time.Time) string {
	var b [3]byte
	rand.Read(b[:])
	return now.UTC().Format("20060102-150405-") + hex.EncodeToString(b[:])
}

// validID reports whether id can name a session file: no path separators,
// nothing that leaves the directory.
func validID(id string) bool {
	return id != "" && !strings.ContainsAny(id, `/\`) && id != "." && id != ".." && !strings.HasPrefix(id, ".")
}

// Create returns a writer for a new session. The file is made with the
// first message, so a session without one leaves nothing behind.
func (s *Store) Create(meta Meta) *Writer {
	return &Writer{path: filepath.Join(s.dir, meta.ID+ext), meta: meta}
}

// A Session is a saved conversation as read back.
type Session struct {
	Meta     Meta
	Messages []provider.Message
	// Torn is true when the last line was cut short, by a crash while it
	// was written, and was left out.
	Torn bool

	path string
	size int64 // the bytes up to the end of the last whole line
}

// Open reads the session with the given id.
func (s *Store) Open(id string) (*Session, error) {
	if !validID(id) {
		return nil, fmt.Errorf("no session %q", id)
	}
	sess, err := read(filepath.Join(s.dir, id+ext))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no session %q (ikigai sessions lists them)", id)
	}
	return sess, err
}

// Continue returns a writer that adds to sess, cutting off a torn last line
// first so that the next message starts on a line of its own.
func (s *Store) Continue(sess *Session) (*Writer, error) {
	if err := os.Truncate(sess.path, sess.size); err != nil {
		return nil, err
	}
	return &Writer{path: sess.path, meta: sess.Meta, created: true}, nil
}

// Summary describes a saved session for a listing.
type Summary struct {
	Meta
	Messages int    `json:"messages"`
	Title    string `json:"title"` // the first prompt, on one line
}

// List returns the sessions in the store, newest first. Files that are not
// sessions are skipped.
func (s *Store) List() ([]Summary, error) {
	var list []Summary
	for _, name := range s.names() {
		sess, err := read(filepath.Join(s.dir, name))
		if err != nil {
			continue
		}
		list = append(list, Summary{Meta: sess.Meta, Messages: len(sess.Messages), Title: title(sess.Messages)})
	}
	return list, nil
}

// Latest returns the id of the newest session started in dir, or "" when
// there is none. It reads only the first line of each file.
func (s *Store) Latest(dir string) (string, error) {
	for _, name := range s.names() {
		meta, err := readMeta(filepath.Join(s.dir, name))
		if err == nil && meta.Dir == dir {
			return meta.ID, nil
		}
	}
	return "", nil
}

// names returns the session file names, newest first.
func (s *Store) names() []string {
	entries, _ := os.ReadDir(s.dir)
	var names []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ext) && e.Type().IsRegular() {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	slices.Reverse(names)
	return names
}

// title is the first line of the first prompt of a conversation.
func title(msgs []provider.Message) string {
	for _, m := range msgs {
		if m.Role != provider.User {
			continue
		}
		if t := strings.TrimSpace(m.Text()); t != "" {
			first, _, _ := strings.Cut(t, "\n")
			return first
		}
	}
	return ""
}

func readMeta(path string) (Meta, error) {
	f, err := os.Open(path)
	if err != nil {
		return Meta{}, err
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadBytes('\n')
	if err != nil {
		return Meta{}, fmt.Errorf("%s: no first line", path)
	}
	return parseMeta(line)
}

func parseMeta(line []byte) (Meta, error) {
	var meta Meta
	if err := json.Unmarshal(line, &meta); err != nil {
		return Meta{}, fmt.Errorf("first line: %v", err)
	}
	if !validID(meta.ID) {
		return Meta{}, fmt.Errorf("first line: no session id")
	}
	return meta, nil
}

// read parses a session file. A last line without its newline was torn by
// a crash and is left out; any other line that does not parse is an error.
func read(path string) (*Session, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sess, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	sess.path = path
	return sess, nil
}

// Parse reads a session from the contents of its file.
func Parse(data []byte) (*Session, error) {
	sess := &Session{}
	whole := bytes.LastIndexByte(data, '\n') + 1
	sess.Torn = whole < len(data)
	sess.size = int64(whole)
	lines := bytes.Split(data[:whole], []byte("\n"))
	lines = lines[:len(lines)-1] // after the last newline
	if len(lines) == 0 {
		return nil, errors.New("empty session file")
	}
	var err error
	if sess.Meta, err = parseMeta(lines[0]); err != nil {
		return nil, err
	}
	for i, line := range lines[1:] {
		if len(line) > maxLine {
			return nil, fmt.Errorf("line %d: longer than %d MiB", i+2, maxLine>>20)
		}
		var m message
		if err := json.Unmarshal(line, &m); err != nil {
			return nil, fmt.Errorf("line %d: %v", i+2, err)
		}
		msg, err := m.decode()
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", i+2, err)
		}
		sess.Messages = append(sess.Messages, msg)
	}
	return sess, nil
}

// A Writer appends the messages of one session to its file.
type Writer struct {
	path    string
	meta    Meta
	created bool
	err     error // the first failure; writing stops there
}

// ID returns the session's id.
func (w *Writer) ID() string { return w.meta.ID }

// Append adds m to the session's file, creating the file (and its first
// line) with the first message. Each message is one write of one line, so
// another process never sees half of one, and a crash tears at most the
// line being written. After a failure nothing more is written, and Append
// returns that failure.
func (w *Writer) Append(m provider.Message) error {
	if w.err != nil {
		return w.err
	}
	line, err := json.Marshal(encode(m))
	if err != nil {
		w.err = err
		return err
	}
	data := append(line, '\n')
	if !w.created {
		meta, err := json.Marshal(w.meta)
		if err != nil {
			w.err = err
			return err
		}
		data = slices.Concat(meta, []byte("\n"), data)
	}
	w.err = w.write(data)
	return w.err
}

func (w *Writer) write(data []byte) error {
	flags := os.O_WRONLY | os.O_APPEND
	if !w.created {
		if err := os.MkdirAll(filepath.Dir(w.path), 0o700); err != nil {
			return err
		}
		// Conversations can hold anything the user or a tool read: only
		// the user may read them.
		flags |= os.O_CREATE | os.O_EXCL
	}
	f, err := os.OpenFile(w.path, flags, 0o600)
	if err != nil {
		return err
	}
	w.created = true
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// message is a provider.Message as a line of a session file.
type message struct {
	Role  provider.Role `json:"role"`
	Parts []part        `json:"parts"`
}

// part is one part of a message: exactly one field is set. Tool call
// arguments are kept as a string, since a model can send arguments that are
// not valid JSON and they must come back as they were.
type part struct {
	Text       *string     `json:"text,omitempty"`
	ToolCall   *toolCall   `json:"tool_call,omitempty"`
	ToolResult *toolResult `json:"tool_result,omitempty"`
}

type toolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type toolResult struct {
	CallID  string `json:"call_id"`
	Content string `json:"content"`
	IsError bool   `json:"is_error,omitempty"`
}

func encode(m provider.Message) message {
	out := message{Role: m.Role, Parts: []part{}}
	for _, p := range m.Parts {
		switch p := p.(type) {
		case provider.Text:
			s := string(p)
			out.Parts = append(out.Parts, part{Text: &s})
		case provider.ToolCall:
			out.Parts = append(out.Parts, part{ToolCall: &toolCall{p.ID, p.Name, string(p.Arguments)}})
		case provider.ToolResult:
			out.Parts = append(out.Parts, part{ToolResult: &toolResult{p.CallID, p.Content, p.IsError}})
		}
	}
	return out
}

func (m message) decode() (provider.Message, error) {
	if m.Role != provider.User && m.Role != provider.Assistant {
		return provider.Message{}, fmt.Errorf("unknown role %q", m.Role)
	}
	out := provider.Message{Role: m.Role}
	for i, p := range m.Parts {
		switch {
		case p.Text != nil && p.ToolCall == nil && p.ToolResult == nil:
			out.Parts = append(out.Parts, provider.Text(*p.Text))
		case p.ToolCall != nil && p.Text == nil && p.ToolResult == nil:
			c := p.ToolCall
			out.Parts = append(out.Parts, provider.ToolCall{ID: c.ID, Name: c.Name, Arguments: json.RawMessage(c.Arguments)})
		case p.ToolResult != nil && p.Text == nil && p.ToolCall == nil:
			r := p.ToolResult
			out.Parts = append(out.Parts, provider.ToolResult{CallID: r.CallID, Content: r.Content, IsError: r.IsError})
		default:
			return provider.Message{}, fmt.Errorf("part %d: want one of text, tool_call or tool_result", i+1)
		}
	}
	return out, nil
}
