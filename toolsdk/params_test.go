package toolsdk

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"
)

type kitchenSink struct {
	S     string            `json:"s" description:"a string"`
	I     int               `json:"i"`
	U     uint8             `json:"u,omitempty"`
	F     float64           `json:"f,omitempty"`
	B     *bool             `json:"b"`
	List  []string          `json:"list,omitempty"`
	Map   map[string]int    `json:"map,omitempty"`
	Raw   json.RawMessage   `json:"raw,omitempty"`
	Any   any               `json:"any,omitempty"`
	When  time.Time         `json:"when,omitzero"`
	Mode  string            `json:"mode,omitempty" enum:"a,b"`
	Inner *struct{ X int }  `json:"inner,omitempty"`
	Skip  string            `json:"-"`
	Bytes []byte            `json:"bytes,omitempty"`
	Tags  map[string][]bool `json:"tags,omitempty"`
	lower string            //lint:ignore U1000 an unexported field, which the schema must leave out
}

func TestDescribeParamsSchema(t *testing.T) {
	tests := []struct {
		name string
		typ  reflect.Type
		want string
	}{
		{"empty", reflect.TypeFor[struct{}](), `{"type":"object","properties":{}}`},
		{"kitchen sink", reflect.TypeFor[kitchenSink](), `{"type":"object","properties":{` +
			`"s":{"type":"string","description":"a string"},` +
			`"i":{"type":"integer"},` +
			`"u":{"type":"integer"},` +
			`"f":{"type":"number"},` +
			`"b":{"type":"boolean"},` +
			`"list":{"type":"array","items":{"type":"string"}},` +
			`"map":{"type":"object","additionalProperties":{"type":"integer"}},` +
			`"raw":{},` +
			`"any":{},` +
			`"when":{"type":"string"},` +
			`"mode":{"type":"string","enum":["a","b"]},` +
			`"inner":{"type":"object","properties":{"X":{"type":"integer"}},"required":["X"]},` +
			`"bytes":{"type":"string"},` +
			`"tags":{"type":"object","additionalProperties":{"type":"array","items":{"type":"boolean"}}}` +
			`},"required":["s","i"]}`},
		{"embedded struct fields are promoted", reflect.TypeFor[struct {
			embedded
			Own string `json:"own"`
		}](), `{"type":"object","properties":{"e":{"type":"string"},"own":{"type":"string"}},"required":["e","own"]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := describeParams(tt.typ)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(p.schemaJSON()); got != tt.want {
				t.Errorf("schema:\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

type embedded struct {
	E string `json:"e"`
}

type selfRef struct {
	Next *selfRef `json:"next"`
}

func TestDescribeParamsRejects(t *testing.T) {
	for _, typ := range []reflect.Type{
		reflect.TypeFor[string](),
		reflect.TypeFor[struct{ C chan int }](),
		reflect.TypeFor[struct{ M map[int]string }](),
		reflect.TypeFor[struct {
			N int `enum:"1,2"`
		}](),
		reflect.TypeFor[selfRef](),
	} {
		if _, err := describeParams(typ); err == nil {
			t.Errorf("describeParams(%s) succeeded, want an error", typ)
		}
	}
}

type editParams struct {
	Path       string  `json:"file_path"`
	Old        string  `json:"old_string"`
	ReplaceAll bool    `json:"replace_all,omitempty"`
	Limit      *int    `json:"limit,omitempty"`
	Mode       *string `json:"mode,omitempty" enum:"fast,safe"`
}

type nestedParams struct {
	Edits []struct {
		Old  string `json:"old"`
		Kind string `json:"kind,omitempty" enum:"x,y"`
	} `json:"edits"`
	Opts *struct {
		Depth int `json:"depth"`
	} `json:"opts,omitempty"`
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name    string
		typ     reflect.Type
		input   string
		wantErr string // the input error's message; "" for success
	}{
		{"all fields", reflect.TypeFor[editParams](), `{"file_path":"a","old_string":"b","replace_all":true,"limit":3,"mode":"safe"}`, ""},
		{"optional fields absent", reflect.TypeFor[editParams](), `{"file_path":"a","old_string":""}`, ""},
		{"unknown fields ignored", reflect.TypeFor[editParams](), `{"file_path":"a","old_string":"b","extra":[1]}`, ""},
		{"optional null", reflect.TypeFor[editParams](), `{"file_path":"a","old_string":"b","limit":null}`, ""},
		{"missing required", reflect.TypeFor[editParams](), `{"file_path":"a"}`, "missing or invalid old_string field"},
		{"null required", reflect.TypeFor[editParams](), `{"file_path":null,"old_string":"b"}`, "missing or invalid file_path field"},
		{"wrong type", reflect.TypeFor[editParams](), `{"file_path":42,"old_string":"b"}`, "missing or invalid file_path field"},
		{"wrong type optional", reflect.TypeFor[editParams](), `{"file_path":"a","old_string":"b","replace_all":"yes"}`, "missing or invalid replace_all field"},
		{"fraction for integer", reflect.TypeFor[editParams](), `{"file_path":"a","old_string":"b","limit":1.5}`, "missing or invalid limit field"},
		{"bad enum", reflect.TypeFor[editParams](), `{"file_path":"a","old_string":"b","mode":"slow"}`, "missing or invalid mode field"},
		{"array", reflect.TypeFor[editParams](), `["file_path"]`, "input must be a JSON object"},
		{"string", reflect.TypeFor[editParams](), `"x"`, "input must be a JSON object"},
		{"null", reflect.TypeFor[editParams](), `null`, "input must be a JSON object"},
		{"truncated", reflect.TypeFor[editParams](), `{"file_path":"a"`, "invalid JSON: unexpected end of JSON input"},
		{"trailing garbage", reflect.TypeFor[editParams](), `{"file_path":"a","old_string":"b"} x`, "invalid JSON: invalid character 'x' after top-level value"},
		{"nested ok", reflect.TypeFor[nestedParams](), `{"edits":[{"old":"a"},{"old":"b","kind":"y"}],"opts":{"depth":1}}`, ""},
		{"nested missing", reflect.TypeFor[nestedParams](), `{"edits":[{"old":"a"},{"kind":"x"}]}`, "missing or invalid edits[1].old field"},
		{"nested enum", reflect.TypeFor[nestedParams](), `{"edits":[{"old":"a","kind":"z"}]}`, "missing or invalid edits[0].kind field"},
		{"nested optional object", reflect.TypeFor[nestedParams](), `{"edits":[],"opts":{}}`, "missing or invalid opts.depth field"},
		{"nested wrong type", reflect.TypeFor[nestedParams](), `{"edits":[{"old":1}]}`, "missing or invalid edits.old field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := describeParams(tt.typ)
			if err != nil {
				t.Fatal(err)
			}
			err = p.decode([]byte(tt.input), reflect.New(tt.typ).Interface())
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("decode: %v", err)
				}
				return
			}
			var inputErr *InputError
			if !errors.As(err, &inputErr) {
				t.Fatalf("decode error = %v (%T), want input error %q", err, err, tt.wantErr)
			}
			if inputErr.Message != tt.wantErr {
				t.Errorf("decode error = %q, want %q", inputErr.Message, tt.wantErr)
			}
		})
	}
}

func TestDecodeValues(t *testing.T) {
	p, err := describeParams(reflect.TypeFor[editParams]())
	if err != nil {
		t.Fatal(err)
	}
	var got editParams
	if err := p.decode([]byte(`{"file_path":"a\u00e9\n","old_string":"<b>","limit":7,"mode":"fast"}`), &got); err != nil {
		t.Fatal(err)
	}
	limit, mode := 7, "fast"
	want := editParams{Path: "a\u00e9\n", Old: "<b>", Limit: &limit, Mode: &mode}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoded %+v, want %+v", got, want)
	}
}
