package workspace

import (
	"context"
	"sync"
)

// latest is a value worked out in the background, perhaps again and
// again: wait returns the newest one, waiting for it if need be.
type latest[T any] struct {
	mu   sync.Mutex
	done chan struct{} // closed when the newest value is ready
	v    T
	err  error
}

// start works the value out anew in the background.
func (l *latest[T]) start(f func() (T, error)) {
	done := make(chan struct{})
	l.mu.Lock()
	l.done = done
	l.mu.Unlock()
	go func() {
		v, err := f()
		l.mu.Lock()
		if l.done == done { // a later start wins
			l.v, l.err = v, err
		}
		l.mu.Unlock()
		close(done)
	}()
}

// peek returns the value last worked out, without waiting for one under
// way: the zero value until the first is ready.
func (l *latest[T]) peek() T {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.v
}

// wait returns the newest value, or ctx's error.
func (l *latest[T]) wait(ctx context.Context) (T, error) {
	for {
		l.mu.Lock()
		done := l.done
		l.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			var zero T
			return zero, ctx.Err()
		}
		l.mu.Lock()
		v, err, current := l.v, l.err, l.done == done
		l.mu.Unlock()
		if current {
			return v, err
		}
	}
}
