package calllog

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ikigai-tools/ikigai/internal/execute"
)

func TestPercentile(t *testing.T) {
	d := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}
	for _, tc := range []struct {
		values []float64
		p      float64
		want   float64
	}{
		{nil, 50, 0},
		{[]float64{7}, 50, 7},
		{[]float64{7}, 95, 7},
		{[]float64{1, 2}, 50, 1},
		{[]float64{1, 2, 3}, 50, 2},
		{d, 50, 10},
		{d, 95, 19},
		{append(d, 21), 95, 20},
	} {
		if got := percentile(tc.values, tc.p); got != tc.want {
			t.Errorf("percentile(%v, %v) = %v, want %v", tc.values, tc.p, got, tc.want)
		}
	}
}

func TestReadStats(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, FileName)
	old := `{"time":"2026-01-02T10:00:00Z","level":"INFO","msg":"tool call","tool":"bash","source":"system","duration_ms":30000,"outcome":"failed","error_code":"TOOL_TIMEOUT"}
{"time":"2026-01-02T10:00:01Z","level":"DEBUG","msg":"tool found","tool":"bash"}
`
	cur := `{"time":"2026-01-02T10:01:00Z","level":"INFO","msg":"tool call","tool":"bash","source":"user","duration_ms":4,"outcome":"ok"}
not json at all
{"time":"2026-01-02T10:02:00Z","level":"INFO","msg":"tool call","tool":"bash","source":"user","duration_ms":6,"outcome":"ok"}
{"time":"2026-01-02T10:03:00Z","level":"INFO","msg":"tool call","tool":"file_read","source":"system","duration_ms":1.5,"outcome":"error","error_code":"FILE_NOT_FOUND"}
{"time":"2026-01-02T10:04:00Z","level":"INFO","msg":"tool call","tool":"file_read","source":"system","duration_ms":0.5,"outcome":"error","error_code":"FILE_NOT_FOUND"}
{"time":"2026-01-02T10:05:00Z","level":"INFO","msg":"tool call","tool":"file_read","source":"system","duration_ms":2,"outcome":"failed","error_code":"TOOL_CRASHED"}
{"time":"2026-01-02T10:06:00Z","level":"INFO","msg":"tool c`
	os.WriteFile(path+".1", []byte(old), 0o600)
	os.WriteFile(path, []byte(cur), 0o600)

	s, err := ReadStats(dir)
	if err != nil {
		t.Fatal(err)
	}
	from, to := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC), time.Date(2026, 1, 2, 10, 5, 0, 0, time.UTC)
	want := &Stats{
		Files: []string{path + ".1", path},
		Calls: 6, From: &from, To: &to,
		Tools: []ToolStats{
			{Tool: "bash", Source: "user", Calls: 3, Failed: 1, Codes: map[string]int{"TOOL_TIMEOUT": 1}, MedianMS: 6, P95MS: 30000},
			{Tool: "file_read", Source: "system", Calls: 3, Failed: 3, Codes: map[string]int{"FILE_NOT_FOUND": 2, "TOOL_CRASHED": 1}, MedianMS: 1.5, P95MS: 2},
		},
	}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}

	var text bytes.Buffer
	s.WriteText(&text)
	local := func(t time.Time) string { return t.Local().Format(time.DateTime) }
	wantText := "6 tool calls from " + local(from) + " to " + local(to) + "\n\n" +
		"TOOL       SOURCE  CALLS  FAILED  MEDIAN  P95      FAILURES\n" +
		"bash       user    3      1       6.0 ms  30.00 s  TOOL_TIMEOUT 1\n" +
		"file_read  system  3      3       1.5 ms  2.0 ms   FILE_NOT_FOUND 2, TOOL_CRASHED 1\n"
	if diff := cmp.Diff(wantText, text.String()); diff != "" {
		t.Errorf("text (-want +got):\n%s", diff)
	}
}

func TestReadStatsEmpty(t *testing.T) {
	s, err := ReadStats(filepath.Join(t.TempDir(), "none"))
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	s.WriteText(&text)
	if text.String() != "No tool calls logged yet.\n" {
		t.Errorf("got %q", text.String())
	}
	out, _ := json.Marshal(s)
	if string(out) != `{"files":[],"calls":0,"tools":[]}` {
		t.Errorf("got %s", out)
	}
}

// What Record writes, ReadStats reads.
func TestRecordThenRead(t *testing.T) {
	dir := t.TempDir()
	l, err := Open(dir, 1<<20, true)
	if err != nil {
		t.Fatal(err)
	}
	l.Logger().Debug("discovery done")
	for _, ms := range []int{3, 1, 2} {
		l.Record(Call{Tool: "grep", Source: "system", Envelope: execute.Succeeded(json.RawMessage(`{"count":0}`)), Elapsed: time.Duration(ms) * time.Millisecond})
	}
	l.Record(Call{Tool: "grep", Source: "system", Envelope: execute.Failed(execute.ToolTimeout, "timed out"), Elapsed: time.Second})
	l.Close()
	s, err := ReadStats(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Tools
	want := []ToolStats{{Tool: "grep", Source: "system", Calls: 4, Failed: 1, Codes: map[string]int{"TOOL_TIMEOUT": 1}, MedianMS: 2, P95MS: 1000}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if s.Calls != 4 || !strings.HasSuffix(s.Files[0], FileName) {
		t.Errorf("calls %d, files %v", s.Calls, s.Files)
	}
}
