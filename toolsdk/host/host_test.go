package host_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/ikigai-tools/ikigai/toolsdk"
	"github.com/ikigai-tools/ikigai/toolsdk/host"
)

// serve answers each connection's request with reply, and sends what it
// got on the channel.
func serve(t *testing.T, reply string) (string, <-chan host.Request) {
	t.Helper()
	addr := filepath.Join(t.TempDir(), "api.sock")
	ln, err := net.Listen("unix", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	got := make(chan host.Request, 10)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			line, _ := bufio.NewReader(conn).ReadBytes('\n')
			var req host.Request
			json.Unmarshal(line, &req)
			got <- req
			conn.Write([]byte(reply + "\n"))
			conn.Close()
		}
	}()
	return addr, got
}

func TestCall(t *testing.T) {
	addr, got := serve(t, `{"v":1,"ok":true,"result":{"id":"job-1","command":"make","pid":7,"status":"running"}}`)
	c := &host.Client{Addr: addr, Token: "tok"}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var job host.Job
	if err := c.Call(ctx, host.OpJobStart, host.JobStart{Command: "make"}, &job); err != nil {
		t.Fatal(err)
	}
	if job.ID != "job-1" || job.PID != 7 || job.Status != "running" {
		t.Errorf("job %+v", job)
	}
	req := <-got
	if req.V != 1 || req.Token != "tok" || req.Op != "job.start" || string(req.Args) != `{"command":"make"}` || req.TimeoutMS <= 0 || req.TimeoutMS > 10000 {
		t.Errorf("request %+v", req)
	}
}

// The host's errors are the tool's operation errors.
func TestCallError(t *testing.T) {
	addr, _ := serve(t, `{"v":1,"ok":false,"error":"Error: no job 'job-9' in this session","error_code":"JOB_NOT_FOUND"}`)
	err := (&host.Client{Addr: addr, Token: "tok"}).Call(context.Background(), host.OpJobRead, host.JobRead{ID: "job-9"}, nil)
	var e *toolsdk.Error
	if !errors.As(err, &e) || e.Code != "JOB_NOT_FOUND" || e.Message != "Error: no job 'job-9' in this session" {
		t.Errorf("got %v", err)
	}
}

// Without ikigai, a clear operation error.
func TestUnavailable(t *testing.T) {
	t.Setenv(host.EnvAPI, "")
	t.Setenv(host.EnvToken, "")
	_, err := host.FromEnv()
	var e *toolsdk.Error
	if !errors.As(err, &e) || e.Code != host.HostUnavailable {
		t.Errorf("FromEnv: %v", err)
	}
	err = (&host.Client{Addr: filepath.Join(t.TempDir(), "gone.sock"), Token: "t"}).Call(context.Background(), host.OpPing, nil, nil)
	if !errors.As(err, &e) || e.Code != host.HostUnavailable {
		t.Errorf("Call to no socket: %v", err)
	}
}
