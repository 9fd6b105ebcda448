package toolsdk

import (
	"bytes"
	"encoding/json"
	"io"
	"unicode/utf8"
)

// writeJSON writes v as one compact line of JSON. Strings are valid UTF-8
// (invalid bytes become U+FFFD) and <, >, & are left as they are.
func writeJSON(w io.Writer, v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	out := buf.Bytes()
	if !utf8.Valid(out) {
		// Only raw JSON a tool passed through can get here; re-encoding it
		// replaces the invalid bytes.
		var generic any
		if err := json.Unmarshal(out, &generic); err != nil {
			return err
		}
		buf.Reset()
		if err := enc.Encode(generic); err != nil {
			return err
		}
		out = buf.Bytes()
	}
	_, err := w.Write(out)
	return err
}
