// Command gobash is the least a Go program can do to run a shell command
// and print its output: the floor under bash-tool's round trip.
package main

import (
	"os"
	"os/exec"
)

func main() {
	out, _ := exec.Command("bash", "-c", "echo hello").CombinedOutput()
	os.Stdout.Write(out)
}
