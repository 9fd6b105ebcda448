// Command sonic is stdjson with sonic instead of encoding/json.
package main

import (
	"io"
	"os"

	"github.com/bytedance/sonic"
)

type args struct {
	Command string `json:"command"`
}

type result struct {
	Output   string `json:"output"`
	ExitCode int    `json:"exit_code"`
}

var api = sonic.Config{ValidateString: true}.Froze()

func main() {
	in, _ := io.ReadAll(os.Stdin)
	var a args
	if err := api.Unmarshal(in, &a); err != nil {
		os.Exit(1)
	}
	out, _ := api.Marshal(result{Output: a.Command})
	os.Stdout.Write(append(out, '\n'))
}
