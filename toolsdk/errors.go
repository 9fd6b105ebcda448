package toolsdk

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// Error is an operation error: the tool ran, but what it was asked to do
// failed. It is printed as {"error": Message, "error_code": Code} and the
// tool exits 0, because the tool itself worked.
type Error struct {
	// Code is an UPPER_SNAKE identifier a caller can branch on.
	Code string
	// Message reads "Error: {operation} '{path}': {reason}" where a path is
	// involved.
	Message string
	// Help tells the user how to fix the problem, for MISSING_CREDENTIALS.
	Help *Help
}

// Help is the help object of an operation error.
type Help struct {
	Steps []string `json:"steps"`
}

// Errorf returns an operation error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// MissingCredentials returns the MISSING_CREDENTIALS error a tool reports
// when it lacks a key, token or configuration at run time, with the steps
// that fix it.
func MissingCredentials(message string, steps ...string) *Error {
	return &Error{Code: "MISSING_CREDENTIALS", Message: message, Help: &Help{Steps: steps}}
}

func (e *Error) Error() string { return e.Message }

// MarshalJSON writes the error in the protocol's shape.
func (e *Error) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Error     string `json:"error"`
		ErrorCode string `json:"error_code"`
		Help      *Help  `json:"help,omitempty"`
	}{e.Message, e.Code, e.Help})
}

// asOperationError turns whatever a tool's function returned into the error
// document it prints. Errors that are not an *Error still say what happened.
func asOperationError(err error) *Error {
	var opErr *Error
	switch {
	case errors.As(err, &opErr):
		return opErr
	case errors.Is(err, context.DeadlineExceeded):
		return &Error{Code: "TIMEOUT", Message: "Error: timed out before finishing"}
	case errors.Is(err, context.Canceled):
		return &Error{Code: "CANCELLED", Message: "Error: interrupted before finishing"}
	default:
		return &Error{Code: "OPERATION_FAILED", Message: "Error: " + err.Error()}
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
