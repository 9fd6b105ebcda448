package discovery

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ikigai-tools/ikigai/internal/registry"
	"github.com/ikigai-tools/ikigai/internal/sandbox"
)

func TestParseSchema(t *testing.T) {
	yes := true
	for _, tc := range []struct {
		name     string
		doc      string
		want     registry.Schema // Document is checked separately
		warnings []string
		problem  string
	}{
		{
			name: "full",
			doc: `{"name": "t", "description": "Does t",
			       "parameters": {"type": "object", "properties": {"p": {"type": "string"}}, "required": ["p"]},
			       "annotations": {"readOnlyHint": true, "title": "T"}, "returns": {"type": "object"}}`,
			want: registry.Schema{Description: "Does t",
				Parameters:  json.RawMessage(`{"type":"object","properties":{"p":{"type":"string"}},"required":["p"]}`),
				Annotations: registry.Annotations{Title: "T", ReadOnlyHint: &yes}},
		},
		{
			name: "sandbox needs",
			doc:  `{"name": "t", "description": "d", "sandbox": {"write": ["$WORKSPACE", "~/.cache/go-build"], "network": true}}`,
			want: registry.Schema{Description: "d", Parameters: emptyParameters,
				Sandbox: &sandbox.Needs{Write: []string{"$WORKSPACE", "~/.cache/go-build"}, Network: &yes}},
		},
		{
			name: "sandbox: writes nothing",
			doc:  `{"name": "t", "description": "d", "sandbox": {"write": []}}`,
			want: registry.Schema{Description: "d", Parameters: emptyParameters, Sandbox: &sandbox.Needs{Write: []string{}}},
		},
		{
			name: "no parameters",
			doc:  `{"name": "t", "description": ""}`,
			want: registry.Schema{Parameters: emptyParameters},
		},
		{
			name:     "name mismatch",
			doc:      `{"name": "other", "description": "d"}`,
			want:     registry.Schema{Description: "d", Parameters: emptyParameters},
			warnings: []string{`schema "name" is "other" but the file name makes the tool "t"`},
		},
		{
			name:     "no name",
			doc:      `{"description": "d"}`,
			want:     registry.Schema{Description: "d", Parameters: emptyParameters},
			warnings: []string{`schema has no "name" (the tool is "t")`},
		},
		{name: "empty", doc: " \n", problem: "printed nothing"},
		{name: "not JSON", doc: "hello", problem: "schema is not JSON"},
		{name: "two documents", doc: `{"description":"d"} {}`, problem: "schema is not JSON"},
		{name: "array", doc: `[{"description":"d"}]`, problem: "schema is an array, not a JSON object"},
		{name: "string", doc: `"t"`, problem: "schema is a string, not a JSON object"},
		{name: "invalid UTF-8", doc: "{\"description\":\"\xff\"}", problem: "schema is not valid UTF-8"},
		{name: "too large", doc: `{"description":"` + strings.Repeat("x", MaxSchema) + `"}`, problem: "schema larger than 8 KiB"},
		{name: "no description", doc: `{"name":"t"}`, problem: `schema has no "description"`},
		{name: "description not a string", doc: `{"name":"t","description":["d"]}`, problem: `"description" is an array, not a string`},
		{name: "name not a string", doc: `{"name":1,"description":"d"}`, problem: `"name" is a number, not a string`},
		{name: "parameters not an object", doc: `{"name":"t","description":"d","parameters":[]}`, problem: `"parameters" is an array, not an object`},
		{name: "parameters of another type", doc: `{"name":"t","description":"d","parameters":{"type":"string"}}`, problem: `"parameters" is not of "type": "object"`},
		{name: "type is case-sensitive", doc: `{"name":"t","description":"d","parameters":{"tYpe":"object"}}`, problem: `"parameters" is not of "type": "object"`},
		{name: "required holds null", doc: `{"name":"t","description":"d","parameters":{"type":"object","required":[null]}}`, problem: `"parameters.required" is not a list of names`},
		{name: "parameters without type", doc: `{"name":"t","description":"d","parameters":{"properties":{}}}`, problem: `"parameters" is not of "type": "object"`},
		{name: "properties not an object", doc: `{"name":"t","description":"d","parameters":{"type":"object","properties":[]}}`, problem: `"parameters.properties" is not an object`},
		{name: "required not names", doc: `{"name":"t","description":"d","parameters":{"type":"object","required":[1]}}`, problem: `"parameters.required" is not a list of names`},
		{name: "required not a list", doc: `{"name":"t","description":"d","parameters":{"type":"object","required":"p"}}`, problem: `"parameters.required" is not a list of names`},
		{name: "annotations not hints", doc: `{"name":"t","description":"d","annotations":{"readOnlyHint":"yes"}}`, problem: `"annotations" is not an object of hints`},
		{name: "annotations an array", doc: `{"name":"t","description":"d","annotations":[]}`, problem: `"annotations" is not an object of hints`},
		{name: "sandbox not an object", doc: `{"name":"t","description":"d","sandbox":true}`, problem: `"sandbox" is not an object of "write" paths and "network"`},
		{name: "sandbox network not a boolean", doc: `{"name":"t","description":"d","sandbox":{"network":"on"}}`, problem: `"sandbox" is not an object of "write" paths and "network"`},
		{name: "sandbox relative path", doc: `{"name":"t","description":"d","sandbox":{"write":["build"]}}`, problem: `"sandbox.write": "build" is neither absolute nor under ~/, $WORKSPACE or $TMPDIR`},
		{name: "returns not an object", doc: `{"name":"t","description":"d","returns":"text"}`, problem: `"returns" is a string, not an object`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, warnings, p := ParseSchema("t", []byte(tc.doc))
			if tc.problem != "" {
				if p == nil || p.Reason != tc.problem {
					t.Fatalf("problem = %v, want %q", p, tc.problem)
				}
				return
			}
			if p != nil {
				t.Fatal(p)
			}
			if string(got.Document) != strings.TrimSpace(tc.doc) {
				t.Errorf("document = %s, want the tool's own text", got.Document)
			}
			got.Document = nil
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("schema (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.warnings, warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzParseSchema checks that whatever a tool prints, ParseSchema either
// rejects it with a reason or returns a schema a model request can carry.
func FuzzParseSchema(f *testing.F) {
	for _, seed := range []string{
		`{"name":"t","description":"d","parameters":{"type":"object","properties":{"p":{"type":"string"}}}}`,
		`{"description":"d","annotations":{"readOnlyHint":true}}`,
		`{"description":"d","parameters":{"type":"object","required":["a",1]}}`,
		`[]`, `"x"`, ``, "{\"description\":\"\xff\"}", `{"description":"d"}{}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, _, p := ParseSchema("t", data)
		if p != nil {
			if p.Reason == "" {
				t.Fatalf("problem %#v has no reason", p)
			}
			return
		}
		var params map[string]any
		if err := json.Unmarshal(s.Parameters, &params); err != nil || params["type"] != "object" {
			t.Fatalf("parameters %s are not an object schema", s.Parameters)
		}
		if !json.Valid(s.Document) || len(s.Document) > MaxSchema {
			t.Fatalf("document %q is not valid JSON within the limit", s.Document)
		}
	})
}
