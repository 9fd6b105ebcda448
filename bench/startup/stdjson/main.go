// Command stdjson decodes one argument object and encodes one result with
// encoding/json: the JSON work of one tool call, for start-up comparison.
package main

import (
	"encoding/json"
	"os"
)

type args struct {
	Command string `json:"command"`
}

type result struct {
	Output   string `json:"output"`
	ExitCode int    `json:"exit_code"`
}

func main() {
	var a args
	if err := json.NewDecoder(os.Stdin).Decode(&a); err != nil {
		os.Exit(1)
	}
	json.NewEncoder(os.Stdout).Encode(result{Output: a.Command})
}
