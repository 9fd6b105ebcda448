package toolsdk

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestWriteJSONReplacesInvalidUTF8(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"struct", struct {
			Output string `json:"output"`
		}{"\xff\xfe<&>"}, `{"output":"\ufffd\ufffd<&>"}` + "\n"},
		{"raw message", json.RawMessage("{\"a\": \"\xff\"}"), "{\"a\":\"\uFFFD\"}\n"},
		{"operation error", &Error{Code: "X", Op: "reading file", Path: "\xff", Reason: "nope"}, `{"error":"Error: reading file '\ufffd': nope","error_code":"X"}` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := writeJSON(&buf, tt.v); err != nil {
				t.Fatal(err)
			}
			if buf.String() != tt.want {
				t.Errorf("got %q, want %q", buf.String(), tt.want)
			}
		})
	}
}
