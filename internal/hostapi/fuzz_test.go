package hostapi

import (
	"encoding/json"
	"testing"

	"github.com/ikigai-tools/ikigai/toolsdk/host"
)

// Whatever a client sends, the decoder answers without panicking, and a
// request it accepts is one the operations can rely on: version 1, a
// token, an operation, arguments that are an object if anything.
func FuzzDecodeRequest(f *testing.F) {
	for _, seed := range []string{
		`{"v":1,"token":"abc","op":"ping"}`,
		`{"v":1,"token":"abc","op":"agent.start","args":{"prompt":"x"},"timeout_ms":5}`,
		`{"v":1,"token":"abc","op":"job.read","args":null}`,
		`{"v":1,"token":"abc","op":"x","args":"str"}`,
		`{"v":2}`, `[]`, `null`, ``, `{"v":1.5,"token":1}`, "{\"v\":1,\"token\":\"\xff\",\"op\":\"p\"}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		req, err := DecodeRequest(line)
		if err != nil {
			if encodeReply(nil, err) == nil {
				t.Fatal("no reply for an error")
			}
			return
		}
		if req.V != host.Version || req.Token == "" || req.Op == "" || req.TimeoutMS < 0 {
			t.Fatalf("accepted %q as %+v", line, req)
		}
		if len(req.Args) > 0 && string(req.Args) != "null" {
			var args map[string]json.RawMessage
			if json.Unmarshal(req.Args, &args) != nil {
				t.Fatalf("accepted args that are not an object: %q", req.Args)
			}
		}
	})
}
