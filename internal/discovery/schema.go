package discovery

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/ikigai-tools/ikigai/internal/registry"
	"github.com/ikigai-tools/ikigai/internal/sandbox"
)

// MaxSchema is the most a tool may print for --schema.
const MaxSchema = 8 << 10

// jsonSpace is the white space JSON allows around a document.
const jsonSpace = " \t\r\n"

// emptyParameters is the parameters schema of a tool that takes none.
var emptyParameters = json.RawMessage(`{"type":"object","properties":{}}`)

// Problem is why a tool cannot be used, and what its author can do about it.
type Problem struct {
	Reason string // short, for listings: "timeout", "not executable"
	Fix    string
}

func (p *Problem) Error() string { return p.Reason }

func problem(fix, format string, args ...any) *Problem {
	return &Problem{Reason: fmt.Sprintf(format, args...), Fix: fix}
}

var errSchemaTooLarge = problem("shorten the descriptions: the schema may be at most 8 KiB", "schema larger than 8 KiB")

const (
	fixObject = `print one JSON object: {"name": ..., "description": ..., "parameters": {"type": "object", ...}}`
	fixParams = `make "parameters" a JSON Schema object with "type": "object", or leave it out for a tool without parameters`
)

// ParseSchema validates a --schema document for the tool called name. It
// returns the schema and warnings about things that do not stop the tool
// from being used, or the problem that does.
func ParseSchema(name string, data []byte) (registry.Schema, []string, *Problem) {
	data = bytes.Trim(data, jsonSpace)
	switch {
	case len(data) == 0:
		return registry.Schema{}, nil, problem(fixObject, "printed nothing")
	case len(data) > MaxSchema:
		return registry.Schema{}, nil, errSchemaTooLarge
	case !utf8.Valid(data):
		return registry.Schema{}, nil, problem("print the schema as UTF-8", "schema is not valid UTF-8")
	case !json.Valid(data):
		return registry.Schema{}, nil, problem(fixObject, "schema is not JSON")
	case data[0] != '{':
		return registry.Schema{}, nil, problem(fixObject, "schema is %s, not a JSON object", kind(data))
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(data, &doc); err != nil {
		return registry.Schema{}, nil, problem(fixObject, "schema is not JSON")
	}
	s := registry.Schema{Parameters: emptyParameters, Document: data}
	var warnings []string

	var schemaName string
	switch raw, ok := doc["name"]; {
	case !ok:
		warnings = append(warnings, fmt.Sprintf(`schema has no "name" (the tool is %q)`, name))
	case json.Unmarshal(raw, &schemaName) != nil:
		return registry.Schema{}, nil, problem(fmt.Sprintf(`set "name" to %q`, name), `"name" is %s, not a string`, kind(raw))
	case schemaName != name:
		warnings = append(warnings, fmt.Sprintf(`schema "name" is %q but the file name makes the tool %q`, schemaName, name))
	}

	raw, ok := doc["description"]
	if !ok {
		return registry.Schema{}, nil, problem(`add a "description" saying what the tool does and when to use it`, `schema has no "description"`)
	}
	if json.Unmarshal(raw, &s.Description) != nil {
		return registry.Schema{}, nil, problem(`make "description" a string`, `"description" is %s, not a string`, kind(raw))
	}

	if raw, ok := doc["parameters"]; ok {
		params, p := parseParameters(raw)
		if p != nil {
			return registry.Schema{}, nil, p
		}
		s.Parameters = params
	}

	if raw, ok := doc["annotations"]; ok {
		if err := json.Unmarshal(raw, &s.Annotations); err != nil || !isObject(raw) {
			return registry.Schema{}, nil, problem(`make "annotations" an object of booleans: readOnlyHint, destructiveHint, idempotentHint, openWorldHint`,
				`"annotations" is not an object of hints`)
		}
	}
	if raw, ok := doc["sandbox"]; ok {
		needs, err := parseNeeds(raw)
		if err != nil {
			return registry.Schema{}, nil, err
		}
		s.Sandbox = needs
	}
	if raw, ok := doc["returns"]; ok && !isObject(raw) {
		return registry.Schema{}, nil, problem(`make "returns" a JSON Schema object, or leave it out`, `"returns" is %s, not an object`, kind(raw))
	}
	return s, warnings, nil
}

// parseParameters checks that raw is a JSON Schema of type object and
// returns it compact. Keys are matched exactly, as JSON Schema reads them.
func parseParameters(raw json.RawMessage) (json.RawMessage, *Problem) {
	var p map[string]json.RawMessage
	if !isObject(raw) || json.Unmarshal(raw, &p) != nil {
		return nil, problem(fixParams, `"parameters" is %s, not an object`, kind(raw))
	}
	var typ string
	if json.Unmarshal(p["type"], &typ) != nil || typ != "object" {
		return nil, problem(fixParams, `"parameters" is not of "type": "object"`)
	}
	if props, ok := p["properties"]; ok && !isObject(props) {
		return nil, problem(`make "properties" an object mapping each parameter to its schema`, `"parameters.properties" is not an object`)
	}
	if req, ok := p["required"]; ok {
		var names []json.RawMessage
		ok := json.Unmarshal(req, &names) == nil && kind(req) == "an array"
		for _, n := range names {
			ok = ok && kind(n) == "a string"
		}
		if !ok {
			return nil, problem(`make "required" a list of parameter names`, `"parameters.required" is not a list of names`)
		}
	}
	var buf bytes.Buffer
	json.Compact(&buf, raw) // raw is valid JSON: it came out of a valid document
	return buf.Bytes(), nil
}

const fixSandbox = `make "sandbox" an object: "write", a list of paths (absolute, or under ~/, $WORKSPACE or $TMPDIR), and "network", true or false`

// parseNeeds reads the "sandbox" object in which a tool says what it needs.
func parseNeeds(raw json.RawMessage) (*sandbox.Needs, *Problem) {
	var doc struct {
		Write   *[]string `json:"write"`
		Network *bool     `json:"network"`
	}
	if !isObject(raw) || json.Unmarshal(raw, &doc) != nil {
		return nil, problem(fixSandbox, `"sandbox" is not an object of "write" paths and "network"`)
	}
	needs := &sandbox.Needs{Network: doc.Network}
	if doc.Write != nil {
		needs.Write = append([]string{}, *doc.Write...)
		for _, p := range needs.Write {
			if err := sandbox.CheckPath(p); err != nil {
				return nil, problem(fixSandbox, `"sandbox.write": %v`, err)
			}
		}
	}
	return needs, nil
}

func isObject(raw json.RawMessage) bool {
	raw = bytes.Trim(raw, jsonSpace)
	return len(raw) > 0 && raw[0] == '{'
}

// kind names the JSON type of a valid document, for messages.
func kind(raw []byte) string {
	raw = bytes.Trim(raw, jsonSpace)
	if len(raw) == 0 {
		return "empty"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}
