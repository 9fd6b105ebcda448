// Package execute runs one tool call and builds the envelope the model sees:
// the tool's own JSON result when its process did its job, or a failure the
// agent describes (timeout, crash, bad output) with the evidence, capped.
package execute

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/ikigai-tools/ikigai/internal/plainjson"
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

// ToolError is the error_code of an operation error that carries none of
// its own: a result with an "error" but no "error_code", or an MCP tool's
// result flagged isError.
const ToolError = "TOOL_ERROR"

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
	// Sandbox notes the confinement of a sandboxed call that failed, or
	// whose result reports an error.
	Sandbox *SandboxNote `json:"sandbox,omitempty"`
	// Spilled says where the whole of a result too big for the model's
	// context is, Result being only its head and tail (see Spill).
	Spilled *Spilled `json:"result_file,omitempty"`
}

// JSON returns the envelope as one line of compact JSON, without a trailing
// newline. Strings are valid UTF-8 and <, >, & are left as they are.
func (e Envelope) JSON() []byte {
	b, err := plainjson.Marshal(e)
	if err != nil {
		// Only Result can fail to encode, and Run validates it.
		panic(fmt.Sprintf("execute: encoding envelope: %v", err))
	}
	return b
}

// OperationError reports whether the envelope holds a tool's operation
// error: the tool ran and returned a JSON object with a non-empty string
// "error_code" or "error". It returns the code (ToolError when the tool
// gave none) and the message ("" when the tool gave none). This is the one
// place that decides; the display, the log, its statistics and MCP ask it.
func (e Envelope) OperationError() (code, message string, ok bool) {
	// Most results are not errors: spare decoding them.
	if !e.Success || len(e.Result) == 0 || e.Result[0] != '{' || !bytes.Contains(e.Result, []byte(`"error`)) {
		return "", "", false
	}
	var fields struct {
		Error json.RawMessage `json:"error"`
		Code  json.RawMessage `json:"error_code"`
	}
	if json.Unmarshal(e.Result, &fields) != nil {
		return "", "", false
	}
	code, message = jsonString(fields.Code), jsonString(fields.Error)
	if code == "" && message == "" {
		return "", "", false
	}
	if code == "" {
		code = ToolError
	}
	return code, message, true
}

// jsonString returns the text of a JSON string, or "" for anything else.
func jsonString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
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
