package approval

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDecide(t *testing.T) {
	yes := AskerFunc(func(context.Context, Request) (bool, error) { return true, nil })
	no := AskerFunc(func(context.Context, Request) (bool, error) { return false, nil })
	gone := AskerFunc(func(context.Context, Request) (bool, error) { return false, errors.New("interrupted") })

	type want struct {
		OK     bool
		Reason string
		Asked  bool
	}
	tests := []struct {
		name   string
		policy Policy
		req    Request
		want   want
	}{
		{"ask: read-only runs", Policy{Mode: Ask, Asker: no}, Request{Tool: "grep", ReadOnly: true}, want{OK: true}},
		{"ask: others ask, yes", Policy{Mode: Ask, Asker: yes}, Request{Tool: "bash"}, want{OK: true, Asked: true}},
		{"ask: others ask, no", Policy{Mode: Ask, Asker: no}, Request{Tool: "bash"}, want{Reason: "the user refused this call", Asked: true}},
		{"ask: no answer", Policy{Mode: Ask, Asker: gone}, Request{Tool: "bash"}, want{Reason: "the user was asked but did not answer: interrupted", Asked: true}},
		{"ask: nobody to ask", Policy{Mode: Ask}, Request{Tool: "bash"}, want{Reason: "this tool needs the user's approval and nobody can be asked in a non-interactive run (the user can rerun with --yes, or allow the tool in the configuration)"}},
		{"ask: allowed", Policy{Mode: Ask, Allow: []string{"bash"}}, Request{Tool: "bash"}, want{OK: true}},
		{"auto", Policy{Mode: Auto}, Request{Tool: "bash"}, want{OK: true}},
		{"auto: denied", Policy{Mode: Auto, Deny: []string{"bash"}}, Request{Tool: "bash"}, want{Reason: "the user's configuration denies this tool"}},
		{"deny beats read-only", Policy{Mode: Ask, Deny: []string{"grep"}}, Request{Tool: "grep", ReadOnly: true}, want{Reason: "the user's configuration denies this tool"}},
		{"read-only: writer refused", Policy{Mode: ReadOnly, Allow: []string{"bash"}, Asker: yes}, Request{Tool: "bash"}, want{Reason: "the agent is in read-only mode; only tools that change nothing may run"}},
		{"read-only: reader runs", Policy{Mode: ReadOnly}, Request{Tool: "glob", ReadOnly: true}, want{OK: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked := false
			if tt.policy.Asker != nil {
				inner := tt.policy.Asker
				tt.policy.Asker = AskerFunc(func(ctx context.Context, r Request) (bool, error) {
					asked = true
					return inner.Ask(ctx, r)
				})
			}
			ok, reason := tt.policy.Decide(context.Background(), tt.req)
			if diff := cmp.Diff(tt.want, want{ok, reason, asked}); diff != "" {
				t.Errorf("Decide (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"": Ask, "ask": Ask, "auto": Auto, "read-only": ReadOnly} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseMode("yolo"); err == nil {
		t.Error(`ParseMode("yolo") succeeded`)
	}
}
