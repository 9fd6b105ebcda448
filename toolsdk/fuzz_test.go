package toolsdk

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// FuzzDecode feeds arbitrary bytes to argument decoding. Whatever the input,
// decoding must not panic, must fail only with an input error, and must
// succeed only on a valid JSON object whose decoded value survives a round
// trip.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		`{"file_path":"a","old_string":"b"}`,
		`{"file_path":"a","old_string":"b","replace_all":true,"limit":3,"mode":"fast"}`,
		`{"file_path":null,"old_string":"b"}`,
		`{"file_path":"a","old_string":"b","limit":1e400}`,
		`{"file_path":"\ud800","old_string":"\u0000"}`,
		`{"edits":[{"old":"a","kind":"x"}],"opts":{"depth":-1}}`,
		`{"edits":{"old":"a"}}`,
		`[]`, `""`, `{`, `{"a":1}}`, "\xff", `{"file_path":"a","file_path":1}`,
	} {
		f.Add([]byte(seed))
	}
	flat, err := describeParams(reflect.TypeFor[editParams]())
	if err != nil {
		f.Fatal(err)
	}
	nested, err := describeParams(reflect.TypeFor[nestedParams]())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		checkDecode[editParams](t, flat, input)
		checkDecode[nestedParams](t, nested, input)
	})
}

func checkDecode[T any](t *testing.T, p *paramsType, input []byte) {
	var v T
	err := p.decode(input, &v)
	if err != nil {
		var inputErr *InputError
		if !errors.As(err, &inputErr) {
			t.Fatalf("decode(%q) = %v (%T), want an input error", input, err, err)
		}
		return
	}
	if !json.Valid(input) {
		t.Fatalf("decode(%q) accepted invalid JSON", input)
	}
	again, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("re-encoding %+v: %v", v, err)
	}
	var w T
	if err := p.decode(again, &w); err != nil {
		t.Fatalf("decode(%q) accepted, but its re-encoding %s fails: %v", input, again, err)
	}
	if !reflect.DeepEqual(v, w) {
		t.Fatalf("round trip changed the value: %+v, then %+v", v, w)
	}
}
