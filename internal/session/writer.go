package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/ikigai-tools/ikigai/internal/provider"
)

// A Writer appends the messages of one session to its file. From the
// first message on it holds the file open and locked, so that no other
// writer, in this process or another, adds to the session at the same
// time: two would interleave their tool calls and results into a
// conversation no API accepts. Close lets go of it.
type Writer struct {
	mu    sync.Mutex // sub-agents write beside the conversation
	path  string
	meta  Meta
	fresh bool     // a new session, not one continued
	f     *os.File // the file, open and locked; nil until it exists
	head  int64    // where the first line ends
	start int64    // where the conversation's messages start: head, or the last compaction line
	ends  []int64  // where the line of each message of the conversation ends
	size  int64    // the file's length: sub-agents' lines come between the conversation's
	err   error    // the first failure; writing stops there
}

// Create returns a writer for a new session. The file is made with the
// first message, so a session without one leaves nothing behind.
func (s *Store) Create(meta Meta) *Writer {
	return &Writer{path: filepath.Join(s.dir, meta.ID+ext), meta: meta, fresh: true}
}

// Continue returns a writer that adds to sess. It locks the file first,
// and fails with an *InUseError while another writer holds it; then it
// reads the file again, so that sess holds what another writer may have
// added since it was read, and cuts off a torn last line, so that the
// next message starts on a line of its own.
func (s *Store) Continue(sess *Session) (*Writer, error) {
	f, err := os.OpenFile(sess.path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return nil, err
	}
	w, err := cont(f, sess)
	if err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

func cont(f *os.File, sess *Session) (*Writer, error) {
	if err := lock(f); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	now, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", sess.path, err)
	}
	now.path = sess.path
	*sess = *now
	if err := f.Truncate(sess.size); err != nil {
		return nil, err
	}
	return &Writer{path: sess.path, meta: sess.Meta, f: f, head: sess.head, start: sess.start, ends: slices.Clone(sess.ends), size: sess.size}, nil
}

// ID returns the session's id.
func (w *Writer) ID() string { return w.meta.ID }

// Path returns the session's file.
func (w *Writer) Path() string { return w.path }

// Append adds m to the session's file, creating the file (and its first
// line) with the first message. Each message is one write of one line,
// synced, so a reader never sees half of one and a crash tears at most the
// line being written. After a failure nothing more is written, and Append
// returns that failure.
func (w *Writer) Append(m provider.Message) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.appendLocked(m)
}

func (w *Writer) appendLocked(m provider.Message) error {
	if w.err != nil {
		return w.err
	}
	if w.err = w.append(encode(m), true); w.err != nil {
		return w.err
	}
	return nil
}

// AppendAgent adds m, a message of the sub-agent called agent, to the
// session's file, for the record: reading the session back keeps it apart
// from the conversation (Session.Agents). A session whose file does not
// exist yet records nothing.
func (w *Writer) AppendAgent(agent string, m provider.Message) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil || w.f == nil {
		return w.err
	}
	line := encode(m)
	line.Agent = agent
	if w.err = w.append(line, false); w.err != nil {
		return w.err
	}
	return nil
}

// append writes one line; a line of the conversation (own) is remembered
// where it ends, for Cut.
func (w *Writer) append(m message, own bool) error {
	line, err := json.Marshal(m)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	if w.f == nil {
		return w.create(line)
	}
	if err := write(w.f, line); err != nil {
		return err
	}
	w.size += int64(len(line))
	if own {
		w.ends = append(w.ends, w.size)
	}
	return nil
}

// create makes the file with its first line and the first message. A
// file that could not be written whole (a full disk) is removed again, so
// that a session that was not saved leaves nothing.
func (w *Writer) create(line []byte) error {
	meta, err := json.Marshal(w.meta)
	if err != nil {
		return err
	}
	meta = append(meta, '\n')
	if err := os.MkdirAll(filepath.Dir(w.path), 0o700); err != nil {
		return err
	}
	// Conversations can hold anything the user or a tool read: only the
	// user may read them.
	f, err := os.OpenFile(w.path, os.O_RDWR|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	err = lock(f)
	if err == nil {
		err = write(f, slices.Concat(meta, line))
	}
	if err != nil {
		os.Remove(w.path)
		f.Close()
		return err
	}
	w.f, w.head = f, int64(len(meta))
	w.size = w.head + int64(len(line))
	w.ends = []int64{w.size}
	return nil
}

// Compact records that the conversation was compacted to msgs, a summary
// followed by the messages kept as they were: a line that marks the
// summary as the new start, then the kept messages again, in one write.
// The lines before it stay in the file, the full history on disk; reading
// the session back starts its messages at the last such line.
func (w *Writer) Compact(msgs []provider.Message) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil || len(msgs) == 0 {
		return w.err
	}
	if w.f == nil {
		// Nothing written yet: the messages are the session.
		for _, m := range msgs {
			if err := w.appendLocked(m); err != nil {
				return err
			}
		}
		return nil
	}
	var data []byte
	var ends []int64
	end := w.size
	for i, m := range msgs {
		line := encode(m)
		line.Compaction = i == 0
		b, err := json.Marshal(line)
		if err != nil {
			w.err = err
			return err
		}
		data = append(append(data, b...), '\n')
		ends = append(ends, end+int64(len(data)))
	}
	if w.err = write(w.f, data); w.err != nil {
		return w.err
	}
	w.start, w.ends, w.size = end, ends, end+int64(len(data))
	return nil
}

// base is where the conversation's first message starts.
func (w *Writer) base() int64 { return max(w.head, w.start) }

// write writes data with one write and syncs it.
func write(f *os.File, data []byte) error {
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Sync()
}

// Cut cuts the file back to the first n messages written, as the
// conversation was cut when a run failed, so that a session that goes on
// does not send the failed run again. A new session cut back to no message
// is removed, with its results directory, as if nothing had been said.
func (w *Writer) Cut(n int) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if n < 0 || n >= len(w.ends) {
		return nil // nothing written past n
	}
	if n == 0 && w.fresh {
		if err := os.Remove(w.path); err != nil {
			return err
		}
		os.RemoveAll(resultsOf(w.path))
		err := w.f.Close()
		w.f, w.ends, w.size = nil, nil, 0
		return err
	}
	end := w.base()
	if n > 0 {
		end = w.ends[n-1]
	}
	if err := w.f.Truncate(end); err != nil {
		return err
	}
	if err := w.f.Sync(); err != nil {
		return err
	}
	w.ends, w.size = w.ends[:n], end
	return nil
}

// Turn records a turn of the conversation after its messages, for
// rewinding it. Nothing is written before the conversation's first
// message.
func (w *Writer) Turn(t Turn) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil || w.f == nil {
		return w.err
	}
	line, err := json.Marshal(struct {
		Turn Turn `json:"turn"`
	}{t})
	if err != nil {
		return err
	}
	line = append(line, '\n')
	if w.err = write(w.f, line); w.err != nil {
		return w.err
	}
	w.size += int64(len(line))
	if len(w.ends) > 0 {
		w.ends[len(w.ends)-1] = w.size // cut with the message before it
	}
	return nil
}

// Close lets go of the session's file, for another writer to continue it.
// Nothing more is written after it.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.err = errClosed
	}
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	return err
}

// An InUseError is the answer to continuing a session another writer
// holds.
type InUseError struct {
	Path string
	PID  int // the process holding it; 0 when it cannot be known
}

func (e *InUseError) Error() string {
	who := "another process"
	if e.PID > 0 {
		who = fmt.Sprintf("pid %d", e.PID)
	}
	return fmt.Sprintf("in use by %s (another ikigai is adding to it); wait for it to end, or start a new conversation", who)
}

var errClosed = errors.New("the session was closed")
