package hostapi

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ikigai-tools/ikigai/toolsdk/host"
)

// The ring keeps the latest RingSize bytes; a read from further back says
// how much it lost.
func TestRing(t *testing.T) {
	var r ring
	r.Write(bytes.Repeat([]byte("a"), RingSize-2))
	data, dropped, total := r.since(0)
	if len(data) != RingSize-2 || dropped != 0 || total != RingSize-2 {
		t.Fatalf("since(0) = %d bytes, %d dropped, %d total", len(data), dropped, total)
	}
	r.Write([]byte("bcdef"))
	data, dropped, _ = r.since(total)
	if string(data) != "bcdef" || dropped != 0 {
		t.Errorf("since(end of first) = %q, %d dropped", data, dropped)
	}
	data, dropped, _ = r.since(0)
	if len(data) != RingSize || dropped != 3 || !bytes.HasSuffix(data, []byte("aabcdef")) {
		t.Errorf("since(0) after wrapping = %d bytes ending %q, %d dropped", len(data), data[len(data)-7:], dropped)
	}
}

// A read returns at most max_bytes, the end of what is new, and counts the
// rest as dropped; the next read has nothing new. Closing the server ends
// the job.
func TestJobRead(t *testing.T) {
	s := start(t, Options{Dir: t.TempDir()})
	c, end := begin(t, s, "job")
	defer end()
	ctx := context.Background()
	var job host.Job
	if err := c.Call(ctx, host.OpJobStart, host.JobStart{Command: "printf 0123456789; exec sleep 30"}, &job); err != nil {
		t.Fatal(err)
	}
	// Until the output is there: the job prints it soon after it starts.
	for range 1000 {
		if err := c.Call(ctx, host.OpJobRead, host.JobRead{ID: job.ID, MaxBytes: 4}, &job); err != nil {
			t.Fatal(err)
		}
		if job.Output != nil && *job.Output != "" {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if job.Output == nil || *job.Output != "6789" || job.Dropped != 6 || job.Status != "running" {
		t.Fatalf("read: %+v", job)
	}
	var again host.Job
	if err := c.Call(ctx, host.OpJobRead, host.JobRead{ID: job.ID}, &again); err != nil || again.Output == nil || *again.Output != "" || again.Dropped != 0 {
		t.Errorf("second read: %+v %v", again, err)
	}
	pid := job.PID
	s.Close()
	if alive(pid) {
		t.Errorf("the job (pid %d) outlived the server", pid)
	}
	if err := c.Call(ctx, host.OpJobList, nil, nil); err == nil || !strings.Contains(err.Error(), "cannot reach") {
		t.Errorf("after Close: %v", err)
	}
}
