package toolsdk

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// jsonSchema is the subset of JSON Schema that Go types map to. Field order
// is the order the keys are printed in.
type jsonSchema struct {
	Type                 string      `json:"type,omitempty"`
	Description          string      `json:"description,omitempty"`
	Enum                 []string    `json:"enum,omitempty"`
	Items                *jsonSchema `json:"items,omitempty"`
	Properties           *properties `json:"properties,omitempty"`
	AdditionalProperties *jsonSchema `json:"additionalProperties,omitempty"`
	Required             []string    `json:"required,omitempty"`
}

// properties keeps struct field order in the printed schema.
type properties []property

type property struct {
	name   string
	schema *jsonSchema
}

func (ps properties) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, p := range ps {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, p.name)
		v, err := json.Marshal(p.schema)
		if err != nil {
			return nil, err
		}
		b = append(append(b, ':'), v...)
	}
	return append(b, '}'), nil
}

// field is one property of an object type, as validation needs it.
type field struct {
	name     string
	index    []int
	required bool
	enum     []string
	// elem describes the field's value when it is (or holds) an object
	// with checks of its own; nil otherwise.
	elem *objectType
	// container says how elem is reached: "" directly, "[]" through a
	// slice, "{}" through a map.
	container string
}

// objectType describes a struct type: its fields and whether anything
// below the top level needs checking.
type objectType struct {
	fields []field
	deep   bool
}

// paramsType is a parameters struct, described once when the tool is built.
type paramsType struct {
	object *objectType
	schema *jsonSchema
}

// schemaJSON returns the parameters' JSON Schema.
func (p *paramsType) schemaJSON() json.RawMessage {
	b, err := json.Marshal(p.schema)
	if err != nil {
		panic(err) // jsonSchema always encodes
	}
	return b
}

var (
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	rawMessageType    = reflect.TypeFor[json.RawMessage]()
)

func describeParams(t reflect.Type) (*paramsType, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("parameters must be a struct, not %s", t)
	}
	d := describer{seen: map[reflect.Type]bool{}}
	s, obj, err := d.schema(t)
	if err != nil {
		return nil, err
	}
	return &paramsType{object: obj, schema: s}, nil
}

// describeResult returns the schema of a struct result type, or nil when the
// type says little worth printing (any, string, ...).
func describeResult(t reflect.Type) json.RawMessage {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	d := describer{seen: map[reflect.Type]bool{}}
	s, _, err := d.schema(t)
	if err != nil {
		return nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil
	}
	return b
}

type describer struct {
	seen map[reflect.Type]bool // struct types on the current path, to refuse recursion
}

// schema returns the JSON Schema of t, and for struct types (directly or
// through slices and maps) the object description validation walks.
func (d *describer) schema(t reflect.Type) (*jsonSchema, *objectType, error) {
	if t == rawMessageType || t.Kind() == reflect.Interface {
		return &jsonSchema{}, nil, nil
	}
	if t.Implements(textMarshalerType) || reflect.PointerTo(t).Implements(textMarshalerType) {
		return &jsonSchema{Type: "string"}, nil, nil
	}
	switch t.Kind() {
	case reflect.Pointer:
		return d.schema(t.Elem())
	case reflect.String:
		return &jsonSchema{Type: "string"}, nil, nil
	case reflect.Bool:
		return &jsonSchema{Type: "boolean"}, nil, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &jsonSchema{Type: "integer"}, nil, nil
	case reflect.Float32, reflect.Float64:
		return &jsonSchema{Type: "number"}, nil, nil
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return &jsonSchema{Type: "string"}, nil, nil // encoding/json's base64
		}
		items, obj, err := d.schema(t.Elem())
		if err != nil {
			return nil, nil, err
		}
		return &jsonSchema{Type: "array", Items: items}, obj, nil
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			return nil, nil, fmt.Errorf("map key type %s: JSON object keys are strings", t.Key())
		}
		values, obj, err := d.schema(t.Elem())
		if err != nil {
			return nil, nil, err
		}
		return &jsonSchema{Type: "object", AdditionalProperties: values}, obj, nil
	case reflect.Struct:
		return d.object(t)
	default:
		return nil, nil, fmt.Errorf("type %s has no JSON Schema equivalent", t)
	}
}

func (d *describer) object(t reflect.Type) (*jsonSchema, *objectType, error) {
	if d.seen[t] {
		return nil, nil, fmt.Errorf("type %s refers to itself", t)
	}
	d.seen[t] = true
	defer delete(d.seen, t)

	s := &jsonSchema{Type: "object", Properties: &properties{}}
	obj := &objectType{}
	for _, sf := range reflect.VisibleFields(t) {
		if !sf.IsExported() || sf.Anonymous && sf.Tag.Get("json") == "" {
			continue // embedded structs' fields are visited on their own
		}
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		ps, elem, err := d.schema(sf.Type)
		if err != nil {
			return nil, nil, fmt.Errorf("field %s: %w", sf.Name, err)
		}
		ps.Description = sf.Tag.Get("description")
		f := field{
			name:      name,
			index:     sf.Index,
			required:  sf.Type.Kind() != reflect.Pointer && !hasOption(opts, "omitempty") && !hasOption(opts, "omitzero"),
			elem:      elem,
			container: containerOf(sf.Type),
		}
		if enum := sf.Tag.Get("enum"); enum != "" {
			if base := derefType(sf.Type); base.Kind() != reflect.String {
				return nil, nil, fmt.Errorf("field %s: enum is supported on strings only", sf.Name)
			}
			f.enum = strings.Split(enum, ",")
			ps.Enum = f.enum
		}
		*s.Properties = append(*s.Properties, property{name, ps})
		if f.required {
			s.Required = append(s.Required, name)
		}
		obj.fields = append(obj.fields, f)
		if elem != nil && elem.checks() {
			obj.deep = true
		}
	}
	return s, obj, nil
}

// checks reports whether any field of o needs validating.
func (o *objectType) checks() bool {
	for _, f := range o.fields {
		if f.required || f.enum != nil {
			return true
		}
	}
	return o.deep
}

func hasOption(opts, want string) bool {
	for opt := range strings.SplitSeq(opts, ",") {
		if opt == want {
			return true
		}
	}
	return false
}

func derefType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func containerOf(t reflect.Type) string {
	switch derefType(t).Kind() {
	case reflect.Slice, reflect.Array:
		return "[]"
	case reflect.Map:
		return "{}"
	}
	return ""
}

// presence records whether a key was present with a non-null value,
// without keeping the value.
type presence bool

func (p *presence) UnmarshalJSON(b []byte) error {
	*p = string(b) != "null"
	return nil
}

// decode decodes args into in, which points to a value of the parameters
// type, and validates it: every required field present and not null, every
// value of the declared type, every enum respected. Problems are input errors
// naming the field.
func (p *paramsType) decode(args []byte, in any) error {
	if err := json.Unmarshal(args, in); err != nil {
		return fieldError(err)
	}
	if bytes.TrimSpace(args)[0] != '{' { // null decodes into a struct without complaint
		return &InputError{Message: "input must be a JSON object"}
	}
	if p.object.deep {
		var tree map[string]any
		if err := json.Unmarshal(args, &tree); err != nil {
			return fieldError(err)
		}
		return p.object.check(tree, "")
	}
	var present map[string]presence
	if err := json.Unmarshal(args, &present); err != nil {
		return fieldError(err)
	}
	v := reflect.ValueOf(in).Elem()
	for _, f := range p.object.fields {
		if f.required && !bool(present[f.name]) {
			return InvalidField(f.name)
		}
		if f.enum != nil {
			if s := v.FieldByIndex(f.index); s.Kind() != reflect.Pointer || !s.IsNil() {
				if !slices.Contains(f.enum, reflect.Indirect(s).String()) {
					return InvalidField(f.name)
				}
			}
		}
	}
	return nil
}

// check validates a decoded JSON object against o, for parameter types with
// nested objects that have required or enum fields of their own.
func (o *objectType) check(obj map[string]any, path string) error {
	for _, f := range o.fields {
		name := path + f.name
		v := obj[f.name]
		if v == nil {
			if f.required {
				return InvalidField(name)
			}
			continue
		}
		if f.enum != nil {
			if s, _ := v.(string); !slices.Contains(f.enum, s) {
				return InvalidField(name)
			}
		}
		if f.elem == nil {
			continue
		}
		switch f.container {
		case "":
			if err := f.elem.check(v.(map[string]any), name+"."); err != nil {
				return err
			}
		case "[]":
			for i, e := range v.([]any) {
				if m, ok := e.(map[string]any); ok {
					if err := f.elem.check(m, fmt.Sprintf("%s[%d].", name, i)); err != nil {
						return err
					}
				}
			}
		case "{}":
			for k, e := range v.(map[string]any) {
				if m, ok := e.(map[string]any); ok {
					if err := f.elem.check(m, fmt.Sprintf("%s[%q].", name, k)); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}

// fieldError turns a decoding error into the input error a caller sees.
func fieldError(err error) error {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		if typeErr.Field == "" {
			return &InputError{Message: "input must be a JSON object"}
		}
		return InvalidField(typeErr.Field)
	}
	var syntaxErr *json.SyntaxError
	if errors.As(err, &syntaxErr) {
		return &InputError{Message: "invalid JSON: " + err.Error()}
	}
	return &InputError{Message: "invalid arguments: " + err.Error()}
}
