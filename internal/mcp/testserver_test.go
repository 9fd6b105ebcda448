package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"
)

// The test binary is also the MCP server the client tests start: with
// IKIGAI_TEST_MCP_SERVER set, it serves testServer on stdio instead of
// running the tests.
func TestMain(m *testing.M) {
	if mode, ok := os.LookupEnv("IKIGAI_TEST_MCP_SERVER"); ok {
		serveTest(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// longTool is a tool name that makes a model name longer than 64.
var longTool = "a_tool_whose_name_is_far_too_long_for_a_model_" + strings.Repeat("x", 40)

// serveTest serves the test tools. mode says how the start goes: "hang"
// never answers, "exit" fails at once, anything else serves. Each start
// appends the server's pid to the file IKIGAI_TEST_MCP_STARTS names.
func serveTest(mode string) {
	if f := os.Getenv("IKIGAI_TEST_MCP_STARTS"); f != "" {
		log, _ := os.OpenFile(f, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		fmt.Fprintln(log, os.Getpid())
		log.Close()
	}
	fmt.Fprintln(os.Stderr, "test server starting")
	switch mode {
	case "raw":
		serveRaw()
		return
	case "banner":
		fmt.Println("Test MCP server v1.0 listening on stdio")
		fmt.Println("")
		fmt.Println("ready")
	case "hang":
		select {}
	case "exit":
		fmt.Fprintln(os.Stderr, "bad configuration: no such repository")
		os.Exit(1)
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	type said struct {
		Said string `json:"said"`
		Pid  int    `json:"pid"`
	}
	type text struct {
		Text string `json:"text"`
	}
	sdk.AddTool(s, &sdk.Tool{Name: "echo", Description: "Says it back",
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, Title: "Echo"}, Meta: sdk.Meta{"deferredHint": true}},
		func(_ context.Context, _ *sdk.CallToolRequest, in text) (*sdk.CallToolResult, said, error) {
			return nil, said{Said: in.Text, Pid: os.Getpid()}, nil
		})
	raw := func(name string, h sdk.ToolHandler) {
		s.AddTool(&sdk.Tool{Name: name, Description: "test tool " + name, InputSchema: map[string]any{"type": "object"}}, h)
	}
	result := func(content ...string) *sdk.CallToolResult {
		r := &sdk.CallToolResult{}
		for _, c := range content {
			r.Content = append(r.Content, &sdk.TextContent{Text: c})
		}
		return r
	}
	raw("lines", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		r := result("one", "two")
		r.Content = append(r.Content, &sdk.ImageContent{Data: []byte("PNG"), MIMEType: "image/png"})
		return r, nil
	})
	raw("fail", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		r := result("it went wrong")
		r.IsError = true
		return r, nil
	})
	raw("env", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return result(os.Getenv("TEST_VALUE")), nil
	})
	raw("process", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		sid, _ := unix.Getsid(0)
		return result(fmt.Sprintf("pid=%d sid=%d", os.Getpid(), sid), strings.Join(os.Environ(), "\n")), nil
	})
	raw("crash", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		fmt.Fprintln(os.Stderr, "panic: dying on purpose")
		os.Exit(3)
		return nil, nil
	})
	raw("hang", func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		<-ctx.Done() // the client's cancellation arrives
		return nil, ctx.Err()
	})
	raw("freeze", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		// The whole server stops answering. The stop can take a moment to
		// reach every thread: this one must not answer meanwhile.
		syscall.Kill(os.Getpid(), syscall.SIGSTOP)
		select {}
	})
	raw("garbage", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		os.Stdout.WriteString("this is not JSON-RPC\n")
		time.Sleep(time.Hour)
		return nil, nil
	})
	raw("big", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return result(strings.Repeat("x", 5<<20)), nil // 5 MiB: more than the model takes whole
	})
	raw("huge", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return result(strings.Repeat("x", 17<<20)), nil // past the SDK's 16 MiB a message
	})
	s.AddResource(&sdk.Resource{URI: "test://big", Name: "big", MIMEType: "text/plain"}, func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "the whole " + strings.Repeat("y", 50<<10)}}}, nil
	})
	raw("resources", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		r := result("see these")
		r.Content = append(r.Content,
			&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "test://small", MIMEType: "text/plain", Text: "small text"}},
			&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "test://big", MIMEType: "text/plain", Text: strings.Repeat("y", 50<<10)}},
			&sdk.ResourceLink{URI: "test://big", Name: "big", Description: "a big file"},
			&sdk.ImageContent{Data: make([]byte, 6<<20), MIMEType: "image/png"})
		return r, nil
	})
	raw("slow", func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		if tok := req.Params.GetProgressToken(); tok != nil {
			for i := 1; i <= 2; i++ {
				req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: 2, Message: "steps done"})
			}
		}
		<-ctx.Done() // until the client has seen the progress and cancels
		return nil, ctx.Err()
	})
	raw("grow", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		raw("grown", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return result("new"), nil })
		return result("grew"), nil
	})
	raw("dotted.name", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return result("dot"), nil
	})
	raw(longTool, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return result("long"), nil
	})
	raw("x--echo", func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return result("x"), nil
	})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// serveRaw speaks MCP by hand, so as to send what the SDK would not: an
// image whose data is base64 without its padding.
func serveRaw() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name            string `json:"name"`
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &req) != nil || req.ID == nil {
			continue // a notification
		}
		var result string
		switch req.Method {
		case "initialize":
			result = `{"protocolVersion":"` + req.Params.ProtocolVersion + `","capabilities":{"tools":{}},"serverInfo":{"name":"raw","version":"1"}}`
		case "tools/list":
			result = `{"tools":[{"name":"badimage","inputSchema":{"type":"object"}},{"name":"pid","inputSchema":{"type":"object"}}]}`
		case "tools/call":
			result = fmt.Sprintf(`{"content":[{"type":"text","text":"pid %d"}]}`, os.Getpid())
			if req.Params.Name == "badimage" {
				result = `{"content":[{"type":"text","text":"a dot"},{"type":"image","mimeType":"image/png","data":"iVBORw0KGgo"}]}`
			}
		default:
			result = `{}`
		}
		fmt.Printf("{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n", req.ID, result)
	}
}
