// Command ikigai is a terminal LLM agent whose every tool is an external
// executable.
package main

import (
	"os"

	"github.com/ikigai-tools/ikigai/internal/app"
)

func main() {
	app.New().Run(os.Args) // errors are printed, and the exit status set, by the app
}
