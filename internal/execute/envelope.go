// Package execute runs one tool call and builds the envelope the model sees:
// the tool's own JSON result when its process did its job, or a failure the
// agent describes (timeout, crash, bad output) with the evidence, capped.
package execute

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Failure codes: why a call produced no result. They are about the tool's
// process, not its operation; an operation error is a result.
const (
	ToolNotFound   = "TOOL_NOT_FOUND"
	InvalidParams  = "INVALID_PARAMS"
	ToolTimeout    = "TOOL_TIMEOUT"
	ToolCrashed    = "TOOL_CRASHED"
	InvalidOutput  = "INVALID_OUTPUT"
	OutputTooLarge = "OUTPUT_TOO_LARGE"
	ToolCancelled  = "TOOL_CANCELLED"
	ToolDenied     = "TOOL_DENIED"
)

// Envelope is the outcome of one call, as the model sees it. Success means
// the tool ran and printed one JSON document, which is Result; otherwise
// Error and Code say what went wrong, with the exit code and what the tool
// printed where there is any.
type Envelope struct {
	Success  bool            `json:"tool_success"`
	Result   json.RawMessage `json:"result,omitempty"`
	Error    string          `json:"error,omitempty"`
	Code     string          `json:"error_code,omitempty"`
	ExitCode *int            `json:"exit_code,omitempty"`
	Stdout   string          `json:"stdout,omitempty"`
	Stderr   string          `json:"stderr,omitempty"`
}

// JSON returns the envelope as one line of compact JSON, without a trailing
// newline. Strings are valid UTF-8 and <, >, & are left as they are.
func (e Envelope) JSON() []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil {
		// Only Result can fail to encode, and Run validates it.
		panic(fmt.Sprintf("execute: encoding envelope: %v", err))
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// Succeeded wraps a tool's result.
func Succeeded(result json.RawMessage) Envelope {
	return Envelope{Success: true, Result: result}
}

// Failed returns a failure envelope with no process output.
func Failed(code, format string, args ...any) Envelope {
	return Envelope{Error: fmt.Sprintf(format, args...), Code: code}
}

// NotFound is the envelope for a call to a tool the registry does not have.
func NotFound(name string) Envelope {
	return Failed(ToolNotFound, "Tool '%s' not found", name)
}

// Denied is the envelope for a call the user or the approval policy refused;
// reason says which, for the model.
func Denied(name, reason string) Envelope {
	return Failed(ToolDenied, "Tool '%s' was denied: %s", name, reason)
}

// jsonSpace is the white space JSON allows around a document; wider
// Unicode spaces are not, and must not be trimmed into validity.
const jsonSpace = " \t\r\n"

// CheckArgs returns an INVALID_PARAMS envelope and false unless args is one
// JSON object, which every tool takes.
func CheckArgs(name string, args []byte) (Envelope, bool) {
	args = bytes.Trim(args, jsonSpace)
	if len(args) == 0 || args[0] != '{' || !json.Valid(args) {
		return Failed(InvalidParams, "Arguments for tool '%s' are not a JSON object", name), false
	}
	return Envelope{}, true
}
