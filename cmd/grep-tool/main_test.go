package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ikigai-tools/ikigai/toolsdk/output"
	"github.com/ikigai-tools/ikigai/toolsdk/tooltest"
)

// Files arrive in any order and pruning drops lines along the way; the
// output must still be the sorted prefix of all the lines, and count them all.
func TestOutputKeepsTheSortedPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var all []fileMatches
	for i := range 2000 {
		f := fileMatches{path: fmt.Sprintf("dir%d/file%04d.go", rng.IntN(10), i)}
		for n := range 1 + rng.IntN(40) {
			l := fmt.Sprintf("%s:%d: %s", f.path, n+1, strings.Repeat("x", rng.IntN(80)))
			f.lines = append(f.lines, l)
			f.size += len(l) + 1
			f.count++
		}
		all = append(all, f)
	}
	var out found
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := w; i < len(all); i += 4 {
				out.add(all[i])
			}
		})
	}
	wg.Wait()
	got := out.result()

	slices.SortFunc(all, func(a, b fileMatches) int { return strings.Compare(a.path, b.path) })
	var lines []string
	for _, f := range all {
		lines = append(lines, f.lines...)
	}
	want, n := output.JoinLines(slices.Values(lines), output.DefaultBudget)
	if got.Output != want || got.Count != len(lines) || !got.Truncated || n == 0 {
		t.Errorf("got %d bytes, count %d, truncated %v; want %d bytes (%d lines), count %d",
			len(got.Output), got.Count, got.Truncated, len(want), n, len(lines))
	}
}

func TestTimeout(t *testing.T) {
	res := tooltest.Call(t, tool, `{"pattern":"x","path":"."}`, tooltest.WithTimeout(time.Nanosecond))
	if res.Stdout != `{"error":"Error: timed out before finishing","error_code":"TIMEOUT"}`+"\n" {
		t.Errorf("got %+v", res)
	}
}
