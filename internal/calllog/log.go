// Package calllog keeps ikigai's log: one JSON line per tool call and, with
// --debug, the events of discovery and the providers, in the user's state
// directory. The file is rotated to one old file at a size limit. No text
// of a call is written: not its arguments, nor its result, nor its error
// message, which may echo either; only their sizes and the error code. The
// debug events are scrubbed of anything that looks like a secret.
package calllog

import (
	"context"
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

// DefaultMaxBytes is the size the log is rotated at unless configured
// otherwise.
const DefaultMaxBytes = 10 << 20

// Log writes the log. A nil *Log writes nothing, so a caller whose log
// could not be opened goes on without one.
type Log struct {
	file   *file
	logger *slog.Logger
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
	return &Log{
		file:   f,
		logger: slog.New(scrubHandler{slog.NewJSONHandler(f, &slog.HandlerOptions{Level: level}), newScrubber(os.Environ())}),
	}, nil
}

// OnWriteFailure has report told, once, when a line cannot be written (a
// full disk, say), with a message for the user that says where the log
// is. Calls go on without their lines, and later lines are tried again.
func (l *Log) OnWriteFailure(report func(msg string)) {
	if l == nil {
		return
	}
	l.file.mu.Lock()
	defer l.file.mu.Unlock()
	l.file.report = report
}

// Close closes the log's file.
func (l *Log) Close() error {
	if l == nil {
		return nil
	}
	return l.file.close()
}

// Logger returns the logger for debug events, whose every string is
// scrubbed of secrets. It discards everything when l is nil.
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
// outcome, the error code and the length of the error message, and the
// bytes of the arguments and of the envelope. The message itself is not
// written: a tool's error may quote its arguments (an invalid pattern, a
// path) or anything else, and no scrubber knows every secret.
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
		attrs = append(attrs, slog.Int("error_bytes", len(text)))
	}
	attrs = append(attrs, slog.Int("bytes_in", len(c.Args)), slog.Int("bytes_out", len(c.Envelope.JSON())))
	l.logger.LogAttrs(context.Background(), slog.LevelInfo, callMessage, attrs...)
}

// Outcome classifies an envelope: OK, Error (an operation error, with the
// tool's error_code and message, as Envelope.OperationError finds them) or
// Failed (with the failure's code and message).
func Outcome(env execute.Envelope) (outcome, code, text string) {
	if !env.Success {
		return Failed, env.Code, env.Error
	}
	if code, text, ok := env.OperationError(); ok {
		return Error, code, text
	}
	return OK, "", ""
}
