package toolsdk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync"
)

// DefaultMaxInput is the largest argument document a tool reads from stdin
// unless Tool.MaxInput says otherwise. It leaves room for a 100 MiB file's
// content with JSON escaping.
const DefaultMaxInput = 256 << 20

// Schema is the document a tool prints for --schema.
type Schema struct {
	// Name is the tool's name as the model sees it (file name minus -tool,
	// hyphens as underscores). It also names the tool in error messages.
	Name        string `json:"name"`
	Description string `json:"description"`
	// Parameters is a JSON Schema of "type": "object". New derives it from
	// the parameters struct when it is nil.
	Parameters json.RawMessage `json:"parameters"`
	// Annotations are hints about the tool's behaviour, with MCP's names.
	Annotations *Annotations `json:"annotations,omitempty"`
	// Returns describes the result. New derives it from a struct result
	// type when it is nil.
	Returns json.RawMessage `json:"returns,omitempty"`
}

// Annotations are hints about a tool's behaviour, with the names and
// defaults of MCP's tool annotations. A nil *Annotations, or a field left
// at its zero value, means the default.
type Annotations struct {
	// Title is a name for people, shown where there is room for one.
	//
	// Default: none; the tool's name is shown.
	Title string `json:"title,omitempty"`
	// ReadOnlyHint says the tool does not change its environment. ikigai
	// runs a read-only tool without asking the user (in the ask and
	// read-only approval modes too) and may run several calls at once.
	//
	// Default: false.
	ReadOnlyHint bool `json:"readOnlyHint,omitempty"`
	// DestructiveHint says the tool may destroy or overwrite what is
	// there, rather than only add to it. It means something only when
	// ReadOnlyHint is false; set it to new(false) for a tool that only
	// adds.
	//
	// Default: true.
	DestructiveHint *bool `json:"destructiveHint,omitempty"`
	// IdempotentHint says that calling the tool again with the same
	// arguments has no further effect. It means something only when
	// ReadOnlyHint is false.
	//
	// Default: false.
	IdempotentHint bool `json:"idempotentHint,omitempty"`
	// OpenWorldHint says the tool reaches an open world of outside
	// entities, such as the web, rather than a closed domain, such as the
	// files it is given. Set it to new(false) for a closed one.
	//
	// Default: true.
	OpenWorldHint *bool `json:"openWorldHint,omitempty"`
}

// Tool is a runnable tool: its schema and the function that does the work.
// Build one with New or NewRaw.
type Tool struct {
	// MaxInput caps the size of the argument document read from stdin.
	// Zero means DefaultMaxInput.
	MaxInput int64

	schema Schema
	call   func(ctx context.Context, args []byte) (any, error)

	// derive fills in the schema's derived parts. It runs only when the
	// schema is printed, which keeps it out of every call's start-up.
	derive     func(*Schema)
	deriveOnce sync.Once
}

// New returns a tool whose parameters are the struct type In. The JSON Schema
// for In (and for Out, when Out is a struct) is derived from the types unless
// s sets it. run receives decoded arguments that passed validation; what it
// returns is printed as the result.
//
// New panics if In is not a struct or uses a type that has no JSON Schema
// equivalent: that is a programming error, caught the first time the tool runs.
func New[In, Out any](s Schema, run func(ctx context.Context, in In) (Out, error)) *Tool {
	params, err := describeParams(reflect.TypeFor[In]())
	if err != nil {
		panic(fmt.Sprintf("toolsdk.New(%q): %v", s.Name, err))
	}
	return &Tool{
		schema: s,
		call: func(ctx context.Context, args []byte) (any, error) {
			var in In
			if err := params.decode(args, &in); err != nil {
				return nil, err
			}
			return run(ctx, in)
		},
		derive: func(s *Schema) {
			if s.Parameters == nil {
				s.Parameters = params.schemaJSON()
			}
			if s.Returns == nil {
				s.Returns = describeResult(reflect.TypeFor[Out]())
			}
		},
	}
}

// NewRaw returns a tool with a hand-written schema. run receives the
// arguments as the JSON object the caller sent; toolsdk has checked only that
// it is one. If s.Parameters is nil, the tool takes no parameters.
func NewRaw(s Schema, run func(ctx context.Context, args json.RawMessage) (any, error)) *Tool {
	if s.Parameters == nil {
		s.Parameters = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return &Tool{
		schema: s,
		call: func(ctx context.Context, args []byte) (any, error) {
			if err := checkObject(args); err != nil {
				return nil, err
			}
			return run(ctx, args)
		},
	}
}

// Schema returns the tool's schema document.
func (t *Tool) Schema() Schema {
	t.deriveOnce.Do(func() {
		if t.derive != nil {
			t.derive(&t.schema)
		}
	})
	return t.schema
}

// Command returns the tool's executable name: NAME-tool, with underscores
// as hyphens. It prefixes input error messages.
func (t *Tool) Command() string {
	return FileName(t.schema.Name)
}

// Run runs the tool once with the given command-line arguments (without the
// program name) and streams, and returns the exit status. Unlike Main it
// installs no signal handlers and never exits; the caller's ctx carries any
// deadline. It is what tests and Main use.
func (t *Tool) Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		return t.runFlags(args, stdout, stderr)
	}
	input, err := readInput(stdin, t.maxInput())
	if err == nil {
		var result any
		result, err = t.call(ctx, input)
		if err == nil {
			err = writeJSON(stdout, result)
			if err != nil {
				fmt.Fprintf(stderr, "%s: writing result: %v\n", t.Command(), err)
				return 1
			}
			return 0
		}
	}
	var inputErr *InputError
	if errors.As(err, &inputErr) {
		fmt.Fprintf(stderr, "%s: %s\n", t.Command(), inputErr.Message)
		return 1
	}
	if err := writeJSON(stdout, asOperationError(err)); err != nil {
		fmt.Fprintf(stderr, "%s: writing result: %v\n", t.Command(), err)
		return 1
	}
	return 0
}

func (t *Tool) runFlags(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 1 && args[0] == "--schema":
		b, err := json.MarshalIndent(t.Schema(), "", "  ")
		if err != nil {
			fmt.Fprintf(stderr, "%s: encoding schema: %v\n", t.Command(), err)
			return 1
		}
		stdout.Write(append(b, '\n'))
		return 0
	case len(args) == 1 && (args[0] == "--help" || args[0] == "-h"):
		fmt.Fprintf(stdout, "%s: %s\n\nUsage:\n  echo '{...}' | %s   run with JSON arguments on stdin\n  %s --schema          print the JSON schema of the arguments\n",
			t.Command(), t.schema.Description, t.Command(), t.Command())
		return 0
	default:
		fmt.Fprintf(stderr, "%s: unexpected argument %q (pipe JSON arguments to stdin, or use --schema)\n", t.Command(), args[0])
		return 2
	}
}

func (t *Tool) maxInput() int64 {
	if t.MaxInput > 0 {
		return t.MaxInput
	}
	return DefaultMaxInput
}

// readInput reads the whole argument document, refusing more than limit bytes.
func readInput(r io.Reader, limit int64) ([]byte, error) {
	input, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, &InputError{Message: "reading input: " + err.Error()}
	}
	if int64(len(input)) > limit {
		return nil, &InputError{Message: fmt.Sprintf("input too large (limit %d bytes)", limit)}
	}
	if len(bytes.TrimSpace(input)) == 0 {
		return nil, &InputError{Message: "empty input"}
	}
	return input, nil
}

// checkObject reports an input error unless data is one JSON object.
func checkObject(data []byte) error {
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v)
		return &InputError{Message: "invalid JSON: " + err.Error()}
	}
	if data = bytes.TrimSpace(data); data[0] != '{' {
		return &InputError{Message: "input must be a JSON object"}
	}
	return nil
}
