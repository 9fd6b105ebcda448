package hostapi

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/ikigai-tools/ikigai/toolsdk"
	"github.com/ikigai-tools/ikigai/toolsdk/host"
)

// DecodeRequest reads one request line (without its newline). Fields it
// does not know are ignored, so that a newer client's additions do not
// break an older host; what it knows must be right.
func DecodeRequest(line []byte) (host.Request, error) {
	var req host.Request
	switch {
	case len(line) > host.MaxMessage:
		return req, badRequest("the request is longer than %d bytes", host.MaxMessage)
	case !json.Valid(line) || len(bytes.TrimSpace(line)) == 0 || bytes.TrimSpace(line)[0] != '{':
		return req, badRequest("the request is not a JSON object")
	}
	if err := json.Unmarshal(line, &req); err != nil {
		return host.Request{}, badRequest("the request does not fit the protocol: %v", err)
	}
	switch {
	case req.V != host.Version:
		return host.Request{}, toolsdk.Errorf(host.UnsupportedVersion, "Error: the host speaks version %d of the protocol, not %d", host.Version, req.V)
	case req.Token == "":
		return host.Request{}, toolsdk.Errorf(host.TokenRefused, "Error: the request carries no token")
	case req.Op == "":
		return host.Request{}, badRequest("the request names no operation")
	case req.TimeoutMS < 0:
		return host.Request{}, badRequest("timeout_ms is negative")
	}
	if args := bytes.TrimSpace(req.Args); len(args) > 0 && args[0] != '{' && !bytes.Equal(args, []byte("null")) {
		return host.Request{}, badRequest("args is not a JSON object")
	}
	return req, nil
}

// decodeArgs reads an operation's arguments into v, strictly: a misspelt
// field is an error rather than a silent default.
func decodeArgs(op string, args json.RawMessage, v any) error {
	if len(bytes.TrimSpace(args)) == 0 || bytes.Equal(bytes.TrimSpace(args), []byte("null")) {
		args = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return badRequest("the arguments of %s: %v", op, err)
	}
	return nil
}

func badRequest(format string, args ...any) *toolsdk.Error {
	return toolsdk.Errorf(host.BadRequest, "Error: %s", fmt.Sprintf(format, args...))
}

// encodeReply is the line that answers a request: result, or err.
func encodeReply(result any, err error) []byte {
	reply := host.Reply{V: host.Version, OK: err == nil}
	if err != nil {
		e, ok := err.(*toolsdk.Error)
		if !ok {
			e = toolsdk.Errorf("HOST_ERROR", "Error: %v", err)
		}
		reply.Error, reply.ErrorCode = e.Message, e.Code
	} else if result != nil {
		raw, merr := json.Marshal(result)
		if merr != nil {
			return encodeReply(nil, fmt.Errorf("encoding the result: %w", merr))
		}
		reply.Result = raw
	}
	line, _ := json.Marshal(reply)
	return append(line, '\n')
}
