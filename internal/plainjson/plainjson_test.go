package plainjson

import (
	"encoding/json"
	"testing"
)

func TestMarshal(t *testing.T) {
	v := map[string]any{"cmd": "a < b && c > d", "n": []int{1, 2}}
	tests := []struct {
		name string
		got  func() ([]byte, error)
		want string
	}{
		{"compact", func() ([]byte, error) { return Marshal(v) }, `{"cmd":"a < b && c > d","n":[1,2]}`},
		{"indented", func() ([]byte, error) { return MarshalIndent(v, "", "  ") },
			"{\n  \"cmd\": \"a < b && c > d\",\n  \"n\": [\n    1,\n    2\n  ]\n}"},
		{"raw message compacted", func() ([]byte, error) { return Marshal(json.RawMessage(`{ "a" : "<" }`)) }, `{"a":"<"}`},
	}
	for _, tt := range tests {
		got, err := tt.got()
		if err != nil || string(got) != tt.want {
			t.Errorf("%s: got %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
	if _, err := Marshal(func() {}); err == nil {
		t.Error("a func encoded without error")
	}
}
