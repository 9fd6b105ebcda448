package toolsdk

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// Environment variables the agent sets for every tool call.
const (
	// EnvToolName holds the tool's name as the agent knows it.
	EnvToolName = "IKIGAI_TOOL_NAME"
	// EnvTimeoutMS holds how many milliseconds the tool has before the agent
	// stops it.
	EnvTimeoutMS = "IKIGAI_TOOL_TIMEOUT_MS"
)

// interruptGrace is how long a tool's function has to return after its
// context is cancelled by a signal before the process exits anyway.
const interruptGrace = time.Second

// Main runs the tool as a program: it reads os.Args, stdin and the
// environment, writes the result to stdout, and exits.
//
// The context passed to the tool's function is cancelled a little before
// IKIGAI_TOOL_TIMEOUT_MS runs out, so the tool can return partial results
// before the agent kills it, and when SIGINT, SIGTERM or SIGHUP arrives. If
// the function has not returned a second after a signal (or at a second
// signal), functions registered with OnInterrupt run and the process exits
// with status 128+signal.
func (t *Tool) Main() {
	ctx, cancel := context.WithCancelCause(context.Background())
	if d, ok := Timeout(); ok {
		var stop context.CancelFunc
		ctx, stop = context.WithTimeout(ctx, d-timeoutMargin(d))
		defer stop()
	}
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		sig := <-signals
		cancel(fmt.Errorf("received %v", sig))
		select {
		case <-signals:
		case <-time.After(interruptGrace):
		}
		runInterruptHooks()
		os.Exit(128 + int(sig.(syscall.Signal)))
	}()
	defer func() {
		if r := recover(); r != nil {
			runInterruptHooks()
			fmt.Fprintf(os.Stderr, "%s: panic: %v\n%s", t.Command(), r, debug.Stack())
			os.Exit(2)
		}
	}()
	code := t.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	cancel(nil)
	os.Exit(code)
}

// Timeout returns how long the agent gives this tool call, from
// IKIGAI_TOOL_TIMEOUT_MS, and whether it said.
func Timeout() (time.Duration, bool) {
	ms, err := strconv.ParseInt(os.Getenv(EnvTimeoutMS), 10, 64)
	if err != nil || ms <= 0 {
		return 0, false
	}
	return time.Duration(ms) * time.Millisecond, true
}

// timeoutMargin is how much earlier than the agent's deadline the tool's
// context ends: a tenth of the time, at most a second.
func timeoutMargin(d time.Duration) time.Duration {
	return min(d/10, time.Second)
}

var interrupt struct {
	sync.Mutex
	next  int
	hooks map[int]func()
}

// OnInterrupt registers fn to run if the process is stopped by a signal
// before the tool's function returns, for clean-up that must happen even
// then, such as removing a temporary file. The returned function
// unregisters fn; call it once fn is no longer needed.
func OnInterrupt(fn func()) (unregister func()) {
	interrupt.Lock()
	defer interrupt.Unlock()
	if interrupt.hooks == nil {
		interrupt.hooks = map[int]func(){}
	}
	id := interrupt.next
	interrupt.next++
	interrupt.hooks[id] = fn
	return func() {
		interrupt.Lock()
		defer interrupt.Unlock()
		delete(interrupt.hooks, id)
	}
}

func runInterruptHooks() {
	interrupt.Lock()
	defer interrupt.Unlock()
	for id, fn := range interrupt.hooks {
		fn()
		delete(interrupt.hooks, id)
	}
}
