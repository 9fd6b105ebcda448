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

// Store is a directory of session files.
type Store struct {
	dir string
}

// At returns the store in dir, which need not exist yet.
func At(dir string) *Store { return &Store{dir: dir} }

// Path returns the file the session called id is saved in.
func (s *Store) Path(id string) string { return filepath.Join(s.dir, id+ext) }

// Results returns the directory that keeps the session's tool results too
// big to give the model whole; it goes when the session does.
func (s *Store) Results(id string) string { return resultsOf(s.Path(id)) }

// resultsOf returns the results directory of the session file at path.
func resultsOf(path string) string { return strings.TrimSuffix(path, ext) + ".results" }

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

// A Session is a saved conversation as read back.
type Session struct {
	Meta     Meta
	Messages []provider.Message
	// Torn is true when the last line was cut short, by a crash while it
	// was written, and was left out.
	Torn bool
	// Compactions is how many times the conversation was compacted;
	// Messages start at the last compaction's summary.
	Compactions int
	// Title is the first line of the conversation's first prompt.
	Title string
	// Agents are the messages of the sub-agents' conversations, in the
	// order they were written, each with its sub-agent's id.
	Agents []AgentMessage
	// Turns are the prompts of the conversation, in order, with the
	// checkpoints of the files they changed, for rewinding.
	Turns []Turn

	path  string
	size  int64   // the bytes up to the end of the last whole line
	head  int64   // where the first line ends
	start int64   // where Messages start: head, or the last compaction's line
	ends  []int64 // where each message's line ends
}

// A Turn is one prompt of the conversation and what it did to the files.
// It is recorded as a line after the turn's messages.
type Turn struct {
	// Prompt is the line the user sent.
	Prompt string `json:"prompt"`
	// Messages is how many messages of the conversation (since its last
	// compaction) came before the turn's: cutting it back to that many
	// rewinds it to just before the turn.
	Messages int `json:"messages"`
	// Before is the checkpoint of the files taken before the turn first
	// changed any, After the one at its end; "" when it changed none (or
	// checkpoints are off).
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	// Compacted says the conversation was compacted since the turn: only
	// its files can be rewound.
	Compacted bool `json:"-"`
}

// AgentMessage is a message of a sub-agent's conversation.
type AgentMessage struct {
	Agent string
	provider.Message
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
		list = append(list, Summary{Meta: sess.Meta, Messages: len(sess.Messages), Title: sess.Title})
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

// title is the first line of m's text when m is the user's: the title of
// a conversation whose first prompt it is.
func title(m provider.Message) string {
	if m.Role != provider.User {
		return ""
	}
	first, _, _ := strings.Cut(strings.TrimSpace(m.Text()), "\n")
	return first
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
	sess.head = int64(len(lines[0]) + 1)
	end := sess.head
	// The conversation starts at the last compaction: the messages before
	// it are not decoded, but for the first (the title), those of
	// sub-agents and the turns' lines. A compaction line ends so, as its last field is written;
	// no string inside a line can hold those quotes unescaped.
	last := 0
	for i, line := range lines[1:] {
		if bytes.HasSuffix(line, compactionEnd) {
			last = i
		}
	}
	for i, line := range lines[1:] {
		if len(line) > maxLine {
			return nil, fmt.Errorf("line %d: longer than %d MiB", i+2, maxLine>>20)
		}
		if i < last && sess.Title != "" && !bytes.HasPrefix(line, agentStart) && !bytes.HasPrefix(line, turnStart) {
			end += int64(len(line) + 1)
			if bytes.HasSuffix(line, compactionEnd) {
				sess.Compactions++
			}
			continue
		}
		var m message
		if err := json.Unmarshal(line, &m); err != nil {
			return nil, fmt.Errorf("line %d: %v", i+2, err)
		}
		end += int64(len(line) + 1)
		if m.Turn != nil {
			// The turn's line goes with its last message: cutting the
			// conversation back to that message keeps it.
			sess.Turns = append(sess.Turns, *m.Turn)
			if len(sess.ends) > 0 {
				sess.ends[len(sess.ends)-1] = end
			}
			continue
		}
		msg, err := m.decode()
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", i+2, err)
		}
		if m.Agent != "" {
			sess.Agents = append(sess.Agents, AgentMessage{Agent: m.Agent, Message: msg})
			continue
		}
		if m.Compaction {
			// The conversation starts again here, from a summary of
			// what came before.
			clear(sess.Messages)
			sess.Messages, sess.ends, sess.start = sess.Messages[:0], sess.ends[:0], end-int64(len(line)+1)
			sess.Compactions++
			for i := range sess.Turns {
				sess.Turns[i].Compacted = true
			}
		}
		if sess.Title == "" && !m.Compaction {
			sess.Title = title(msg)
		}
		sess.Messages = append(sess.Messages, msg)
		sess.ends = append(sess.ends, end)
	}
	return sess, nil
}

// How a compaction's line ends, and a sub-agent's message's line and a
// turn's line start.
var compactionEnd, agentStart, turnStart = []byte(`,"compaction":true}`), []byte(`{"agent":`), []byte(`{"turn":`)

// message is a provider.Message as a line of a session file. A message
// marked as a compaction starts the conversation again: it summarises
// every message before it, which stay in the file. A message with an agent
// is a sub-agent's, kept for the record: it is not part of the
// conversation.
type message struct {
	// Turn, when set, makes the line a turn's record, not a message.
	Turn       *Turn         `json:"turn,omitempty"`
	Agent      string        `json:"agent,omitempty"`
	Role       provider.Role `json:"role"`
	Parts      []part        `json:"parts"`
	Compaction bool          `json:"compaction,omitempty"`
}

// part is one part of a message: exactly one field is set. Tool call
// arguments are kept as a string, since a model can send arguments that are
// not valid JSON and they must come back as they were.
type part struct {
	Text       *string     `json:"text,omitempty"`
	Image      *image      `json:"image,omitempty"`
	ToolCall   *toolCall   `json:"tool_call,omitempty"`
	ToolResult *toolResult `json:"tool_result,omitempty"`
	Thinking   *thinking   `json:"thinking,omitempty"`
}

// thinking is the model's reasoning, with what its API needs to take it
// back.
type thinking struct {
	Provider  string `json:"provider"`
	Text      string `json:"text,omitempty"`
	Signature string `json:"signature,omitempty"`
	Redacted  string `json:"redacted,omitempty"`
}

// image is a picture, its data in base64.
type image struct {
	Name      string `json:"name"`
	MediaType string `json:"media_type"`
	Data      []byte `json:"data"`
}

type toolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
	Signature string `json:"signature,omitempty"`
}

type toolResult struct {
	CallID  string  `json:"call_id"`
	Content string  `json:"content"`
	IsError bool    `json:"is_error,omitempty"`
	Images  []image `json:"images,omitempty"`
}

func encode(m provider.Message) message {
	out := message{Role: m.Role, Parts: []part{}}
	for _, p := range m.Parts {
		switch p := p.(type) {
		case provider.Text:
			s := string(p)
			out.Parts = append(out.Parts, part{Text: &s})
		case provider.Image:
			out.Parts = append(out.Parts, part{Image: (*image)(&p)})
		case provider.ToolCall:
			out.Parts = append(out.Parts, part{ToolCall: &toolCall{p.ID, p.Name, string(p.Arguments), p.Signature}})
		case provider.ToolResult:
			r := &toolResult{CallID: p.CallID, Content: p.Content, IsError: p.IsError}
			for _, img := range p.Images {
				r.Images = append(r.Images, image(img))
			}
			out.Parts = append(out.Parts, part{ToolResult: r})
		case provider.Thinking:
			out.Parts = append(out.Parts, part{Thinking: &thinking{p.Provider, p.Text, p.Signature, p.Redacted}})
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
		set := 0
		for _, ok := range []bool{p.Text != nil, p.Image != nil, p.ToolCall != nil, p.ToolResult != nil, p.Thinking != nil} {
			if ok {
				set++
			}
		}
		switch {
		case set != 1:
			return provider.Message{}, fmt.Errorf("part %d: want one of text, image, tool_call, tool_result or thinking", i+1)
		case p.Text != nil:
			out.Parts = append(out.Parts, provider.Text(*p.Text))
		case p.Image != nil:
			out.Parts = append(out.Parts, provider.Image(*p.Image))
		case p.Thinking != nil:
			t := p.Thinking
			out.Parts = append(out.Parts, provider.Thinking{Provider: t.Provider, Text: t.Text, Signature: t.Signature, Redacted: t.Redacted})
		case p.ToolCall != nil:
			c := p.ToolCall
			out.Parts = append(out.Parts, provider.ToolCall{ID: c.ID, Name: c.Name, Arguments: json.RawMessage(c.Arguments), Signature: c.Signature})
		default:
			r := p.ToolResult
			res := provider.ToolResult{CallID: r.CallID, Content: r.Content, IsError: r.IsError}
			for _, img := range r.Images {
				res.Images = append(res.Images, provider.Image(img))
			}
			out.Parts = append(out.Parts, res)
		}
	}
	return out, nil
}
