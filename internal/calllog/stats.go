package calllog

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// Stats summarises the tool calls in the log, per tool.
type Stats struct {
	// Files are the log files read, the older first.
	Files []string    `json:"files"`
	Calls int         `json:"calls"`
	From  *time.Time  `json:"from,omitempty"` // the first call's time
	To    *time.Time  `json:"to,omitempty"`   // the last call's time
	Tools []ToolStats `json:"tools"`
}

// ToolStats are one tool's calls.
type ToolStats struct {
	Tool string `json:"tool"`
	// Source is where the tool came from at its last call.
	Source string `json:"source"`
	Calls  int    `json:"calls"`
	// Failed counts the calls that were not OK: failures and operation
	// errors; Codes counts them by error code.
	Failed   int            `json:"failed"`
	Codes    map[string]int `json:"codes"`
	MedianMS float64        `json:"median_ms"`
	P95MS    float64        `json:"p95_ms"`
}

// line is a tool call line as Record writes it.
type line struct {
	Time       time.Time `json:"time"`
	Msg        string    `json:"msg"`
	Tool       string    `json:"tool"`
	Source     string    `json:"source"`
	DurationMS float64   `json:"duration_ms"`
	Outcome    string    `json:"outcome"`
	Code       string    `json:"error_code"`
}

// ReadStats reads the log in dir, the rotated file first, and summarises
// its tool calls. Lines that are not tool calls, or not JSON (a line cut
// short by a crash), are skipped. A missing log holds no calls.
func ReadStats(dir string) (*Stats, error) {
	s := &Stats{Files: []string{}, Tools: []ToolStats{}}
	durations := map[string][]float64{}
	index := map[string]int{}
	path := filepath.Join(dir, FileName)
	for _, name := range []string{path + ".1", path} {
		f, err := os.Open(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		s.Files = append(s.Files, name)
		err = eachCall(f, func(l line) {
			i, ok := index[l.Tool]
			if !ok {
				i = len(s.Tools)
				index[l.Tool] = i
				s.Tools = append(s.Tools, ToolStats{Tool: l.Tool, Codes: map[string]int{}})
			}
			t := &s.Tools[i]
			t.Source = l.Source
			t.Calls++
			if l.Outcome != OK {
				t.Failed++
				t.Codes[l.Code]++
			}
			durations[l.Tool] = append(durations[l.Tool], l.DurationMS)
			s.Calls++
			if s.From == nil {
				s.From = &l.Time
			}
			s.To = &l.Time
		})
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	for i := range s.Tools {
		t := &s.Tools[i]
		d := durations[t.Tool]
		slices.Sort(d)
		t.MedianMS, t.P95MS = percentile(d, 50), percentile(d, 95)
	}
	slices.SortFunc(s.Tools, func(a, b ToolStats) int { return strings.Compare(a.Tool, b.Tool) })
	return s, nil
}

// eachCall calls fn with every tool call line read from r.
func eachCall(r io.Reader, fn func(line)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		var l line
		if json.Unmarshal(sc.Bytes(), &l) != nil || l.Msg != callMessage || l.Tool == "" {
			continue
		}
		fn(l)
	}
	if errors.Is(sc.Err(), bufio.ErrTooLong) {
		return nil // a line no Record wrote; what came before stands
	}
	return sc.Err()
}

// percentile returns the nearest-rank p-th percentile of sorted values.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[max(rank, 1)-1]
}

// WriteText writes the statistics as a table for people: one row per tool
// with its calls, failures, median and 95th percentile duration, and the
// failures by code.
func (s *Stats) WriteText(w io.Writer) error {
	if s.Calls == 0 {
		_, err := fmt.Fprintln(w, "No tool calls logged yet.")
		return err
	}
	fmt.Fprintf(w, "%d tool calls from %s to %s\n\n", s.Calls, s.From.Local().Format(time.DateTime), s.To.Local().Format(time.DateTime))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOOL\tSOURCE\tCALLS\tFAILED\tMEDIAN\tP95\tFAILURES")
	for _, t := range s.Tools {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t%s\n", t.Tool, t.Source, t.Calls, t.Failed, ms(t.MedianMS), ms(t.P95MS), codes(t.Codes))
	}
	return tw.Flush()
}

// codes lists failure counts by code, most frequent first.
func codes(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		if m[a] != m[b] {
			return m[b] - m[a]
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// ms formats a duration in milliseconds with a precision that suits it.
func ms(v float64) string {
	switch {
	case v >= 1000:
		return fmt.Sprintf("%.2f s", v/1000)
	case v >= 10:
		return fmt.Sprintf("%.0f ms", v)
	default:
		return fmt.Sprintf("%.1f ms", v)
	}
}
