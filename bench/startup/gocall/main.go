// Command gocall is the least a Go program can do to run a tool with JSON
// arguments and print what it wrote: the floor under ikigai tools call.
//
//	gocall PATH JSON
package main

import (
	"os"
	"os/exec"
	"strings"
)

func main() {
	cmd := exec.Command(os.Args[1])
	cmd.Stdin = strings.NewReader(os.Args[2])
	out, _ := cmd.Output()
	os.Stdout.Write(out)
}
