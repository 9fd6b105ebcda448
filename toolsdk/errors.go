package toolsdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// Error codes toolsdk itself reports. A tool's own codes are UPPER_SNAKE
// strings of its choosing; the core tools' file codes are in package files.
const (
	// CodeMissingCredentials is the code of [MissingCredentials]: the tool
	// lacks a key, a token or configuration it needs at run time.
	CodeMissingCredentials = "MISSING_CREDENTIALS"
	// CodeTimeout is reported when a tool's function returns the context's
	// deadline error: the agent's time for the call ran out.
	CodeTimeout = "TIMEOUT"
	// CodeCancelled is reported when a tool's function returns the
	// context's cancellation error: a signal stopped the call.
	CodeCancelled = "CANCELLED"
	// CodeOperationFailed is reported for an error that is not an *Error.
	CodeOperationFailed = "OPERATION_FAILED"
)

// Error is an operation error: the tool ran, but what it was asked to do
// failed. It is printed as {"error": message, "error_code": Code} and the
// tool exits 0, because the tool itself worked.
//
// As with [io/fs.PathError], the message is built from fields. Where a path
// (or another argument worth quoting, such as a pattern) is involved, set
// Op, Path and Reason, and the message reads the protocol's way:
//
//	Error: {Op} '{Path}': {Reason}
//
// An error about no path sets Message instead, which is then the whole
// message; [Errorf] builds one.
type Error struct {
	// Code is an UPPER_SNAKE identifier a caller can branch on.
	Code string
	// Op names the operation as the user asked for it: "reading file".
	Op string
	// Path is the path, or other argument, as the user gave it.
	Path string
	// Reason says what went wrong: "No such file or directory".
	Reason string
	// Message, when not empty, is the whole message, and Op, Path and
	// Reason are not used.
	Message string
	// Help tells the user how to fix the problem, for MISSING_CREDENTIALS.
	Help *Help
}

// Help is the help object of an operation error.
type Help struct {
	Steps []string `json:"steps"`
}

// Errorf returns an operation error with the given code and a formatted
// message, for errors that involve no path: "Error: running git: git is
// not installed".
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// MissingCredentials returns the MISSING_CREDENTIALS error a tool reports
// when it lacks a key, token or configuration at run time, with the steps
// that fix it.
func MissingCredentials(message string, steps ...string) *Error {
	return &Error{Code: CodeMissingCredentials, Message: message, Help: &Help{Steps: steps}}
}

// Error returns the message.
func (e *Error) Error() string {
	if e.Message != "" {
		return e.Message
	}
	return "Error: " + e.Op + " '" + e.Path + "': " + e.Reason
}

// MarshalJSON writes the error in the protocol's shape.
func (e *Error) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Error     string `json:"error"`
		ErrorCode string `json:"error_code"`
		Help      *Help  `json:"help,omitempty"`
	}{e.Error(), e.Code, e.Help})
}

// asOperationError turns whatever a tool's function returned into the error
// document it prints. Errors that are not an *Error still say what happened.
func asOperationError(err error) *Error {
	var opErr *Error
	switch {
	case errors.As(err, &opErr):
		return opErr
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Code: CodeTimeout, Message: "Error: timed out before finishing"}
	case errors.Is(err, context.Canceled):
		return &Error{Code: CodeCancelled, Message: "Error: interrupted before finishing"}
	default:
		return &Error{Code: CodeOperationFailed, Message: "Error: " + err.Error()}
	}
}

// InputError is an error in the arguments themselves: the caller sent
// something the tool cannot even start on. It is printed on stderr as one
// line, prefixed with the tool's command name, and the tool exits 1.
type InputError struct {
	Message string
}

func (e *InputError) Error() string { return e.Message }

// InvalidField returns the input error for a missing or wrongly typed field,
// for checks the schema cannot express.
func InvalidField(name string) *InputError {
	return &InputError{Message: "missing or invalid " + name + " field"}
}
