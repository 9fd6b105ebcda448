// Package toolsdk implements the ikigai tool protocol for tools written in Go.
//
// An ikigai tool is an executable named NAME-tool. Called with --schema it
// prints a JSON description of itself; called without arguments it reads one
// JSON object of arguments on stdin and writes one JSON document on stdout.
// toolsdk does all of that: a tool author writes a parameters struct and a
// function, and calls [Tool.Main].
//
// There are two ways in. The typed way derives the JSON Schema from a Go
// struct and hands the function decoded, validated arguments:
//
//	type params struct {
//		Name string `json:"name" description:"Who to greet"`
//	}
//
//	func main() {
//		toolsdk.New(toolsdk.Schema{Name: "greet", Description: "Greets someone"},
//			func(ctx context.Context, p params) (string, error) {
//				return "Hello, " + p.Name, nil
//			}).Main()
//	}
//
// The raw way takes a hand-written schema and hands the function the
// arguments as raw JSON; see [NewRaw].
//
// Struct fields map to schema properties by their json tag. A field is
// required unless it is a pointer or its tag says omitempty. The description
// tag becomes the property's description and the enum tag (comma-separated)
// its allowed values. Strings, booleans, integers, floats, slices, maps with
// string keys and nested structs are supported.
//
// Main handles the rest of the protocol: input errors (empty stdin, invalid
// JSON, a missing or wrongly typed field) are reported on stderr as one line
// and exit status 1; an operation error returned as an [*Error] is printed as
// {"error", "error_code"} with exit status 0; results are printed as one
// compact line of valid UTF-8 JSON. The function's context is cancelled
// shortly before the host's timeout (IKIGAI_TOOL_TIMEOUT_MS) and on SIGINT or
// SIGTERM, so a tool can stop and return partial results.
//
// An operation error is an [*Error]: build it from Op, Path and Reason, as
// an [io/fs.PathError] is built, and the message reads the protocol's way,
// "Error: {op} '{path}': {reason}"; or use [Errorf] for a message that
// involves no path.
//
// The protocol's naming rules are here too, for hosts and tools alike: a
// tool's name from its file name ([ToolName]), the other way ([FileName]),
// and what a name may be ([ValidName]).
//
// Subpackages give the behaviour of the core tools to tools that want it:
// files (path rules, reading and atomic writing, error codes for file
// operations), output (keeping a result within a budget) and walk (listing
// a tree as developers' search tools do, honouring .gitignore). Subpackage
// tooltest runs a tool in-process for tests.
package toolsdk
