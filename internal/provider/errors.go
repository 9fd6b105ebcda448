package provider

import (
	"fmt"
	"strings"
	"time"
)

// Kind sorts failures by what the user or the agent can do about them.
type Kind int

const (
	// Auth: the API refused the key (HTTP 401 or 403), or there is none.
	// Error.Steps says how to fix it.
	Auth Kind = iota + 1
	// RateLimit: too many requests or tokens (HTTP 429), still so after
	// the retries.
	RateLimit
	// Overloaded: the API is overloaded (HTTP 503 or 529), still so after
	// the retries.
	Overloaded
	// Server: the API failed (HTTP 5xx), still so after the retries.
	Server
	// Network: the API could not be reached, or the connection broke;
	// Error.URL says where the request went.
	Network
	// BadRequest: the API rejected the request (HTTP 4xx); Error.Message
	// is the API's own explanation.
	BadRequest
	// BadResponse: the answer was not what the API's wire format promises.
	BadResponse
)

var kindNames = map[Kind]string{
	Auth:        "auth",
	RateLimit:   "rate_limit",
	Overloaded:  "overloaded",
	Server:      "server",
	Network:     "network",
	BadRequest:  "bad_request",
	BadResponse: "bad_response",
}

func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// retryable reports whether a failure of kind k may go away by itself.
func (k Kind) retryable() bool {
	switch k {
	case RateLimit, Overloaded, Server, Network:
		return true
	}
	return false
}

// An Error is a failed request to a model API.
type Error struct {
	Provider   string        // which API: "anthropic", "openai", "openai-compatible"; empty when none could be chosen
	Kind       Kind          // what sort of failure
	Message    string        // what went wrong, in words for the user
	Status     int           // the HTTP status, 0 when there was none
	Type       string        // the API's error type or code, when it gave one
	URL        string        // where the request went
	RetryAfter time.Duration // how long the API asked to wait before trying again
	Attempts   int           // how many times the request was sent
	Steps      []string      // what the user can do about it, in order
	Err        error         // the underlying error, when there is one
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Provider != "" {
		b.WriteString(e.Provider + ": ")
	}
	b.WriteString(e.Message)
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (gave up after %d attempts)", e.Attempts)
	}
	if len(e.Steps) > 0 {
		b.WriteString("\nTo fix it:")
		for i, s := range e.Steps {
			fmt.Fprintf(&b, "\n  %d. %s", i+1, s)
		}
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }
