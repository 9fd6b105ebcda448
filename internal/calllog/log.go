// Package calllog keeps ikigai's log: one JSON line per tool call and, with
// --debug, the events of discovery and the providers, in the user's state
// directory. The file is rotated to one old file at a size limit. Arguments
// are never written, only their size, and error text is scrubbed of
// anything that looks like a secret before it is.
package calllog

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/registry"
)

// FileName is the log's name in its directory; the rotated file adds ".1".
const FileName = "ikigai.log"

// callMessage is the message of every tool call line.
const callMessage = "tool call"

// maxErrorText caps the error text of one line.
const maxErrorText = 512

// Dir returns the directory the log is kept in: $XDG_STATE_HOME/ikigai,
// else ~/.local/state/ikigai.
func Dir(getenv func(string) string, home string) string {
	if d := getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "ikigai")
	}
	return filepath.Join(home, ".local", "state", "ikigai")
}

// Log writes the log. A nil *Log writes nothing, so a caller whose log
// could not be opened goes on without one.
type Log struct {
	file   *file
	logger *slog.Logger
	scrub  *scrubber
}

// Open opens the log in dir, creating both if needed. The file is rotated
// once it would grow past maxBytes. With debug, Logger's debug events are
// written too.
func Open(dir string, maxBytes int64, debug bool) (*Log, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	f, err := openFile(filepath.Join(dir, FileName), maxBytes)
	if err != nil {
		return nil, err
	}
	level := slog.LevelInfo
	if debug {
		level = slog.LevelDebug
	}
	scrub := newScrubber(os.Environ())
	return &Log{
		file:   f,
		logger: slog.New(scrubHandler{slog.NewJSONHandler(f, &slog.HandlerOptions{Level: level}), scrub}),
		scrub:  scrub,
	}, nil
}

// Close closes the log's file.
func (l *Log) Close() error {
	if l == nil {
		return nil
	}
	return l.file.close()
}

// Logger returns the logger for debug events, which are scrubbed as call
// lines are. It discards everything when l is nil.
func (l *Log) Logger() *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l.logger
}

// Call is one tool call, as it is recorded.
type Call struct {
	Tool   string
	Source registry.Source
	// Args are the call's arguments; only their size is written.
	Args     []byte
	Envelope execute.Envelope
	Elapsed  time.Duration
}

// Outcomes of a call.
const (
	OK     = "ok"     // the tool ran and returned a result
	Error  = "error"  // the tool ran and reported an operation error
	Failed = "failed" // the envelope is a failure: tool_success is false
)

// Record writes one line for a call: time, tool, source, duration,
// outcome, error code and text, and the bytes of the arguments and of the
// envelope.
func (l *Log) Record(c Call) {
	if l == nil {
		return
	}
	outcome, code, text := Outcome(c.Envelope)
	attrs := []slog.Attr{
		slog.String("tool", c.Tool),
		slog.String("source", string(c.Source)),
		slog.Float64("duration_ms", float64(c.Elapsed.Microseconds())/1000),
		slog.String("outcome", outcome),
	}
	if code != "" {
		attrs = append(attrs, slog.String("error_code", code))
	}
	if text != "" {
		// Scrubbed before it is cut, so a secret cut in two cannot slip
		// past the handler's scrubbing.
		attrs = append(attrs, slog.String("error", l.scrub.clean(text, maxErrorText)))
	}
	attrs = append(attrs, slog.Int("bytes_in", len(c.Args)), slog.Int("bytes_out", len(c.Envelope.JSON())))
	l.logger.LogAttrs(context.Background(), slog.LevelInfo, callMessage, attrs...)
}

// Outcome classifies an envelope: OK, Error (an operation error, with the
// tool's error_code and message) or Failed (with the failure's code and
// message).
func Outcome(env execute.Envelope) (outcome, code, text string) {
	if !env.Success {
		return Failed, env.Code, env.Error
	}
	var op struct {
		Error string `json:"error"`
		Code  string `json:"error_code"`
	}
	// Most results are not errors: spare decoding them.
	if bytes.Contains(env.Result, []byte(`"error_code"`)) && env.Result[0] == '{' && json.Unmarshal(env.Result, &op) == nil && op.Code != "" {
		return Error, op.Code, op.Error
	}
	return OK, "", ""
}
