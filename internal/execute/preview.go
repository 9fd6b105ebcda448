package execute

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/ikigai-tools/ikigai/toolsdk"
)

const (
	// PreviewTimeout bounds a tool's --preview run: the user is waiting
	// for the question.
	PreviewTimeout = 10 * time.Second
	// maxPreview caps what a preview may print.
	maxPreview = 64 << 10
)

// Preview runs the tool as NAME-tool --preview with args on stdin, as a
// tool that says previewHint offers, and returns what it printed: the
// effect the call would have, for the user to see before approving it.
// It runs as a call would, confined as the call would be. A preview that
// fails, exits non-zero or prints nothing is an error; the question is then
// asked without it.
func (p Program) Preview(ctx context.Context, args json.RawMessage) (string, error) {
	box, done, err := p.confinement()
	if err != nil {
		return "", err
	}
	defer done()
	o := RunProcess(ctx, []string{p.Path, "--preview"}, args, p.Env.Environ(slices.Concat([]string{
		toolsdk.EnvToolName + "=" + p.Name,
		toolsdk.EnvTimeoutMS + "=" + fmt.Sprint(PreviewTimeout.Milliseconds()),
	}, box.Env())...), Limits{Timeout: PreviewTimeout, MaxStdout: maxPreview, MaxStderr: failureOutput, Stop: syscall.SIGTERM, WaitDelay: Grace, Sandbox: box})
	switch {
	case o.Stopped != nil:
		return "", o.Stopped
	case o.State == nil:
		return "", o.Err
	}
	if how, code := o.Exit(); code != 0 {
		return "", fmt.Errorf("%s --preview exited with %s: %s", p.Name, how, strings.TrimSpace(o.Stderr))
	}
	out := strings.TrimRight(string(o.Stdout), "\n")
	if strings.TrimSpace(out) == "" {
		return "", errors.New(p.Name + " --preview printed nothing")
	}
	return out, nil
}
