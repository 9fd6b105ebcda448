package execute

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Variables attached to a call's context reach that call's tool, and only
// that call's.
func TestWithEnv(t *testing.T) {
	p := Program{Name: "t", Path: script(t, `echo "{\"api\":\"$IKIGAI_API\",\"token\":\"$IKIGAI_API_TOKEN\"}"`)}
	ctx := WithEnv(context.Background(), "IKIGAI_API=/run/a.sock")
	ctx = WithEnv(ctx, "IKIGAI_API_TOKEN=t1")
	for _, tc := range []struct {
		name string
		ctx  context.Context
		want string
	}{
		{"attached", ctx, `{"api":"/run/a.sock","token":"t1"}`},
		{"not attached", context.Background(), `{"api":"","token":""}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := p.Run(tc.ctx, json.RawMessage(`{}`), 0)
			if diff := cmp.Diff(Envelope{Success: true, Result: json.RawMessage(tc.want)}, got); diff != "" {
				t.Errorf("envelope (-want +got):\n%s", diff)
			}
		})
	}
}
