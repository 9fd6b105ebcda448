// Command ikigai is a terminal LLM agent whose every tool is an external
// executable.
package main

import (
	"os"

	"github.com/ikigai-tools/ikigai/internal/app"
)

func main() {
	// The app prints its errors and exits with their status; an error that
	// still comes back is a usage error it has already printed.
	if err := app.Run(os.Args); err != nil {
		os.Exit(2)
	}
}
