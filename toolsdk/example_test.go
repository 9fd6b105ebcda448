package toolsdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/ikigai-tools/ikigai/toolsdk"
)

type greetParams struct {
	Name  string `json:"name" description:"Who to greet"`
	Style string `json:"style,omitempty" description:"How to greet" enum:"plain,loud"`
}

type greeting struct {
	Greeting string `json:"greeting"`
}

var greet = toolsdk.New(toolsdk.Schema{
	Name:        "greet",
	Description: "Greet someone by name",
	Annotations: &toolsdk.Annotations{ReadOnlyHint: true},
}, func(ctx context.Context, p greetParams) (greeting, error) {
	g := "Hello, " + p.Name
	if p.Style == "loud" {
		g = strings.ToUpper(g) + "!"
	}
	return greeting{g}, nil
})

// A typed tool: the schema comes from the struct, and the function gets
// decoded, validated arguments.
func ExampleNew() {
	greet.Run(context.Background(), nil, strings.NewReader(`{"name":"Ada","style":"loud"}`), os.Stdout, os.Stdout)
	// Output: {"greeting":"HELLO, ADA!"}
}

// What the agent sees when it asks a tool for its schema.
func ExampleNew_schema() {
	greet.Run(context.Background(), []string{"--schema"}, nil, os.Stdout, os.Stderr)
	// Output:
	// {
	//   "name": "greet",
	//   "description": "Greet someone by name",
	//   "parameters": {
	//     "type": "object",
	//     "properties": {
	//       "name": {
	//         "type": "string",
	//         "description": "Who to greet"
	//       },
	//       "style": {
	//         "type": "string",
	//         "description": "How to greet",
	//         "enum": [
	//           "plain",
	//           "loud"
	//         ]
	//       }
	//     },
	//     "required": [
	//       "name"
	//     ]
	//   },
	//   "annotations": {
	//     "readOnlyHint": true
	//   },
	//   "returns": {
	//     "type": "object",
	//     "properties": {
	//       "greeting": {
	//         "type": "string"
	//       }
	//     },
	//     "required": [
	//       "greeting"
	//     ]
	//   }
	// }
}

// Input errors are one line on stderr and exit status 1.
func ExampleNew_inputError() {
	code := greet.Run(context.Background(), nil, strings.NewReader(`{"name":42}`), os.Stdout, os.Stdout)
	fmt.Println("exit status", code)
	// Output:
	// greet-tool: missing or invalid name field
	// exit status 1
}

// A raw tool brings its own schema and gets the arguments as JSON.
func ExampleNewRaw() {
	echo := toolsdk.NewRaw(toolsdk.Schema{
		Name:        "echo",
		Description: "Return the arguments unchanged",
		Parameters:  json.RawMessage(`{"type":"object","additionalProperties":true}`),
	}, func(ctx context.Context, args json.RawMessage) (any, error) {
		return args, nil
	})
	echo.Run(context.Background(), nil, strings.NewReader(`{ "a": [1, 2] }`), os.Stdout, os.Stderr)
	// Output: {"a":[1,2]}
}

// An operation error is a result with an error_code, and exit status 0.
func ExampleMissingCredentials() {
	weather := toolsdk.New(toolsdk.Schema{Name: "weather", Description: "Current weather"},
		func(ctx context.Context, p struct {
			City string `json:"city"`
		}) (any, error) {
			if os.Getenv("WEATHER_API_KEY_FOR_EXAMPLE") == "" {
				return nil, toolsdk.MissingCredentials("Error: WEATHER_API_KEY is not set",
					"Get a key at https://weather.example/keys",
					"export WEATHER_API_KEY=...")
			}
			return nil, nil
		})
	code := weather.Run(context.Background(), nil, strings.NewReader(`{"city":"Oslo"}`), os.Stdout, os.Stderr)
	fmt.Println("exit status", code)
	// Output:
	// {"error":"Error: WEATHER_API_KEY is not set","error_code":"MISSING_CREDENTIALS","help":{"steps":["Get a key at https://weather.example/keys","export WEATHER_API_KEY=..."]}}
	// exit status 0
}
