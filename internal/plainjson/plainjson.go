// Package plainjson encodes JSON as ikigai writes it everywhere: compact,
// with <, > and & left as they are rather than escaped for HTML, which no
// reader of ikigai's JSON (a model, a tool, a log) needs, and which would
// make a tool's "a < b" read "a \u003c b" to the model.
package plainjson

import (
	"bytes"
	"encoding/json"
)

// Marshal returns v as one line of compact JSON, without a trailing
// newline, leaving <, > and & unescaped.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// MarshalIndent is Marshal with each element on a new line, as
// json.MarshalIndent lays it out.
func MarshalIndent(v any, prefix, indent string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, indent)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
