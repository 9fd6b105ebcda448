package discovery

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"time"

	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/fserr"
	"github.com/ikigai-tools/ikigai/internal/registry"
)

// DefaultSchemaTimeout is how long a tool has to answer --schema unless
// configured otherwise.
const DefaultSchemaTimeout = time.Second

// Probe runs the tool at path with --schema and validates what it prints,
// as ParseSchema does. The tool gets no stdin, env's environment and
// timeout (DefaultSchemaTimeout if zero); its process group is killed when
// it is done, however it ended, and everything it started if it overran.
func Probe(ctx context.Context, name, path string, timeout time.Duration, env execute.Env) (registry.Schema, []string, *Problem) {
	if timeout <= 0 {
		timeout = DefaultSchemaTimeout
	}
	// There is no work to save, so a tool that overruns is killed at once.
	o := execute.RunProcess(ctx, []string{path, "--schema"}, nil, env.Environ(), execute.Limits{
		Timeout:   timeout,
		MaxStdout: MaxSchema,
		MaxStderr: 512,
		Stop:      syscall.SIGKILL,
		WaitDelay: timeout,
	})
	switch {
	case errors.Is(o.Stopped, execute.ErrTooLarge):
		return registry.Schema{}, nil, errSchemaTooLarge
	case errors.Is(o.Stopped, execute.ErrTimeout):
		return registry.Schema{}, nil, problem("answer --schema at once, without network, credentials or configuration", "timeout")
	case o.Stopped != nil:
		return registry.Schema{}, nil, problem("", "cancelled")
	case o.State == nil:
		return registry.Schema{}, nil, problem("check the #! line and that the file is a program for this machine", "cannot run: %s", fserr.Reason(o.Err))
	}
	if how, code := o.Exit(); code != 0 {
		if line, _, _ := strings.Cut(strings.TrimSpace(o.Stderr), "\n"); line != "" {
			how += ": " + line
		}
		return registry.Schema{}, nil, problem("make --schema print the schema and exit 0", "%s", how)
	}
	return ParseSchema(name, o.Stdout)
}
