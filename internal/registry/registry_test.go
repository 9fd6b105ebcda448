package registry

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/ikigai-tools/ikigai/internal/execute"
)

// echoRunner returns its arguments as the result.
type echoRunner struct{}

func (echoRunner) Run(ctx context.Context, args json.RawMessage, timeout time.Duration) execute.Envelope {
	return execute.Succeeded(args)
}

func tool(name string, src Source, path string) Tool {
	return Tool{Entry: Entry{Name: name, Source: src, Path: path}, Runner: echoRunner{}}
}

func TestNewPrecedence(t *testing.T) {
	r := New([]Tool{
		tool("grep", Project, "/p/grep-tool"),
		tool("bash", User, "/u/bash-tool"),
		tool("grep", User, "/u/grep-tool"),
		tool("bash", System, "/s/bash-tool"),
		tool("grep", System, "/s/grep-tool"),
		tool("glob", System, "/s/glob-tool"),
	}, []Failure{
		{Entry{"zed", User, "/u/zed-tool"}, "timeout"},
		{Entry{"abc", System, "/s/abc-tool"}, "not executable"},
	}, []Entry{{"x", Project, "/p/x-tool"}})

	type row struct {
		Name    string
		Path    string
		Shadows []Entry
	}
	var got []row
	for _, tl := range r.Tools() {
		got = append(got, row{tl.Name, tl.Path, tl.Shadows})
	}
	want := []row{
		{"bash", "/u/bash-tool", []Entry{{"bash", System, "/s/bash-tool"}}},
		{"glob", "/s/glob-tool", nil},
		{"grep", "/p/grep-tool", []Entry{{"grep", User, "/u/grep-tool"}, {"grep", System, "/s/grep-tool"}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if got := r.Failed()[0].Name; got != "abc" {
		t.Errorf("failures not sorted: first is %q", got)
	}
	if diff := cmp.Diff([]Entry{{"x", Project, "/p/x-tool"}}, r.Untrusted()); diff != "" {
		t.Errorf("untrusted (-want +got):\n%s", diff)
	}
}

func TestLookupAndCall(t *testing.T) {
	r := New([]Tool{tool("b", System, "/b"), tool("a", System, "/a"), tool("c", System, "/c")}, nil, nil)
	for _, name := range []string{"a", "b", "c"} {
		if tl, ok := r.Lookup(name); !ok || tl.Name != name {
			t.Errorf("Lookup(%q) = %q, %v", name, tl.Name, ok)
		}
	}
	if _, ok := r.Lookup("d"); ok {
		t.Error(`Lookup("d") found a tool`)
	}
	ctx := context.Background()
	if diff := cmp.Diff(execute.Succeeded(json.RawMessage(`{"x":1}`)), r.Call(ctx, "b", json.RawMessage(`{"x":1}`), 0)); diff != "" {
		t.Errorf("Call (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(execute.NotFound("d"), r.Call(ctx, "d", json.RawMessage(`{}`), 0)); diff != "" {
		t.Errorf("Call of a missing tool (-want +got):\n%s", diff)
	}
}

func TestDefinitions(t *testing.T) {
	yes := true
	a := tool("read", System, "/r")
	a.Schema = Schema{Description: "Reads", Parameters: json.RawMessage(`{"type":"object"}`), Annotations: Annotations{ReadOnlyHint: &yes}}
	b := tool("edit", System, "/e")
	b.Schema = Schema{Description: "Edits", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)}
	got := New([]Tool{a, b}, nil, nil).Definitions()
	want := []Definition{
		{Name: "edit", Description: "Edits", Parameters: json.RawMessage(`{"type":"object","properties":{}}`)},
		{Name: "read", Description: "Reads", Parameters: json.RawMessage(`{"type":"object"}`), Annotations: Annotations{ReadOnlyHint: &yes}},
	}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("definitions (-want +got):\n%s", diff)
	}
	if !got[1].Annotations.ReadOnly() || got[0].Annotations.ReadOnly() {
		t.Error("ReadOnly does not follow readOnlyHint")
	}
}
