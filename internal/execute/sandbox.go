package execute

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/ikigai-tools/ikigai/internal/sandbox"
)

// SandboxFailed is the failure of a call that was not run because it could
// not be confined: the sandbox is required and this machine cannot give it.
const SandboxFailed = "SANDBOX_FAILED"

// SandboxNote tells the model that a call ran confined, when the call failed
// or its result reports an error: the error may be the sandbox's doing,
// which retrying cannot change but the user can.
type SandboxNote struct {
	Mode     sandbox.Mode `json:"mode"`
	Writable []string     `json:"writable"` // $TMPDIR: the call's own temporary directory
	Network  string       `json:"network"`  // "on" or "off"
	Note     string       `json:"note"`
}

const sandboxAdvice = "The call ran in ikigai's sandbox: the kernel refuses writes outside the writable paths" +
	" and, with the network off, connections (permission denied, operation not permitted). Such an error is the sandbox's," +
	" not the tool's: do not retry or work around it; ask the user, who can change the sandbox settings."

// confinement returns the confinement of one run, with a temporary
// directory of its own that done removes; nil for an unconfined tool.
func (p Program) confinement() (box *sandbox.Confinement, done func(), err error) {
	if p.Sandbox == nil || p.Sandbox.Refused != "" {
		return p.Sandbox, func() {}, nil // a refused run makes nothing
	}
	return p.Sandbox.WithTempDir(p.Name)
}

// sandboxFailed is the envelope of a call that could not be confined.
func sandboxFailed(name string, err error) Envelope {
	var se *sandbox.Error
	if errors.As(err, &se) {
		err = se.Err
	}
	return Failed(SandboxFailed, "Tool '%s' was not run: the sandbox could not be applied: %v", name, err)
}

// noted adds the sandbox note to env where the model needs it: the call
// ran confined, and failed or reports an error.
func (p Program) noted(env Envelope) Envelope {
	c := p.Sandbox
	if c == nil || c.Refused != "" || env.Code == SandboxFailed || env.Code == InvalidParams || env.Code == ToolNotFound {
		return env
	}
	if env.Success && !reportsError(env) {
		return env
	}
	network := "on"
	if !c.Network {
		network = "off"
	}
	env.Sandbox = &SandboxNote{Mode: c.Mode, Writable: append(c.Write[:len(c.Write):len(c.Write)], sandbox.TempVar), Network: network, Note: sandboxAdvice}
	return env
}

// reportsError reports whether a tool's result says its operation failed:
// an operation error (Envelope.OperationError), or a non-zero exit_code as
// bash's results have.
func reportsError(env Envelope) bool {
	if _, _, ok := env.OperationError(); ok {
		return true
	}
	if !bytes.HasPrefix(env.Result, []byte("{")) {
		return false
	}
	var r struct {
		ExitCode *float64 `json:"exit_code"`
	}
	return json.Unmarshal(env.Result, &r) == nil && r.ExitCode != nil && *r.ExitCode != 0
}
