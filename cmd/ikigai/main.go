// Command ikigai is a terminal LLM agent whose every tool is an external
// executable.
package main

import (
	"fmt"
	"os"

	"github.com/ikigai-tools/ikigai/internal/buildinfo"
)

func main() {
	if len(os.Args) == 2 && (os.Args[1] == "version" || os.Args[1] == "--version") {
		fmt.Println("ikigai", buildinfo.Version)
		return
	}
	fmt.Fprintln(os.Stderr, "usage: ikigai version")
	os.Exit(2)
}
