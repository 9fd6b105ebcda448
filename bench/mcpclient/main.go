// Command mcpclient times one tool three ways, interleaved, and prints the
// time of each call as JSON: run directly (its executable with the
// arguments on stdin), through ikigai tools call (a process per call), and
// through one long-lived ikigai mcp serve driven by the official MCP SDK.
// It checks that the three agree on the result.
//
//	mcpclient -n RUNS IKIGAI TOOL_PATH NAME JSON
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	n := flag.Int("n", 100, "calls of each kind")
	flag.Parse()
	if flag.NArg() != 4 {
		fmt.Fprintln(os.Stderr, "usage: mcpclient -n RUNS IKIGAI TOOL_PATH NAME JSON")
		os.Exit(2)
	}
	if err := run(*n, flag.Arg(0), flag.Arg(1), flag.Arg(2), flag.Arg(3)); err != nil {
		fmt.Fprintln(os.Stderr, "mcpclient:", err)
		os.Exit(1)
	}
}

func run(n int, ikigai, tool, name, args string) error {
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(ikigai, "mcp", "serve")}, nil)
	if err != nil {
		return err
	}
	defer session.Close()

	direct := func() ([]byte, error) {
		cmd := exec.Command(tool)
		cmd.Stdin = bytes.NewReader([]byte(args))
		out, err := cmd.Output()
		return bytes.TrimSpace(out), err
	}
	toolsCall := func() ([]byte, error) {
		out, err := exec.Command(ikigai, "tools", "call", name, args).Output()
		return bytes.TrimSpace(out), err
	}
	serve := func() ([]byte, error) {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
		if err != nil {
			return nil, err
		}
		if res.IsError || len(res.Content) != 1 {
			return nil, fmt.Errorf("unexpected result %+v", res)
		}
		return []byte(res.Content[0].(*mcp.TextContent).Text), nil
	}

	want, err := direct()
	if err != nil {
		return err
	}
	envelope := []byte(`{"tool_success":true,"result":` + string(want) + `}`)
	kinds := []struct {
		name string
		call func() ([]byte, error)
		want []byte
	}{{"direct", direct, want}, {"tools_call", toolsCall, envelope}, {"serve", serve, want}}
	times := map[string][]int64{}
	for i := range n + 1 { // the first round warms up
		for _, k := range kinds {
			start := time.Now()
			out, err := k.call()
			elapsed := time.Since(start)
			if err != nil {
				return fmt.Errorf("%s: %v", k.name, err)
			}
			if !bytes.Equal(out, k.want) {
				return fmt.Errorf("%s printed %s, want %s", k.name, out, k.want)
			}
			if i > 0 {
				times[k.name] = append(times[k.name], elapsed.Nanoseconds())
			}
		}
	}
	return json.NewEncoder(os.Stdout).Encode(times)
}
