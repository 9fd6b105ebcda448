package provider

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// Retry says how often and how patiently a failed request is sent again.
// Zero fields take DefaultRetry's values.
type Retry struct {
	Attempts int           // how many times a request is sent at most, the first included
	Backoff  time.Duration // the wait before the second attempt; it doubles for each one after
	MaxWait  time.Duration // the longest single wait; an API asking for longer is not retried
}

// DefaultRetry sends a request up to four times over about seven seconds,
// longer when the API asks for it with Retry-After.
var DefaultRetry = Retry{Attempts: 4, Backoff: time.Second, MaxWait: time.Minute}

// Do calls attempt until it succeeds, fails for good, or has been called
// r.Attempts times, and returns its last result. A failure is retried when
// it is an *Error of a passing kind (rate limit, overloaded, server,
// network) and attempt reported no event: once part of an answer has been
// shown, sending the request again would show it twice. Before each retry,
// on gets a Retrying event. The wait doubles from r.Backoff, less up to a
// quarter at random so that clients spread out, unless the API asked for a
// wait with Retry-After. Do gives up early when ctx ends.
func (r Retry) Do(ctx context.Context, on func(Event), attempt func(on func(Event)) (*Response, error)) (*Response, error) {
	r.Attempts = cmp.Or(r.Attempts, DefaultRetry.Attempts)
	r.Backoff = cmp.Or(r.Backoff, DefaultRetry.Backoff)
	r.MaxWait = cmp.Or(r.MaxWait, DefaultRetry.MaxWait)
	backoff := r.Backoff
	for n := 1; ; n++ {
		reported := false
		res, err := attempt(func(ev Event) {
			reported = true
			if on != nil {
				on(ev)
			}
		})
		var e *Error
		if err == nil || !errors.As(err, &e) {
			return res, err
		}
		// An exhausted quota (OpenAI's insufficient_quota) is a 429 that
		// waiting does not cure. Only an error given up on counts the
		// attempts: the one a Retrying event carries is one failure.
		if reported || n >= r.Attempts || !e.Kind.retryable() || e.Type == "insufficient_quota" {
			e.Attempts = n
			return nil, err
		}
		wait := backoff - rand.N(backoff/4+1)
		backoff = min(2*backoff, r.MaxWait)
		if e.RetryAfter > 0 {
			if e.RetryAfter > r.MaxWait {
				e.Attempts = n
				e.Message += fmt.Sprintf("; the API asks to wait %v before trying again", e.RetryAfter.Round(time.Second))
				return nil, err
			}
			wait = e.RetryAfter
		}
		if on != nil {
			on(Event{Kind: Retrying, Err: e, Wait: wait, Attempt: n + 1, Attempts: r.Attempts})
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
	}
}
