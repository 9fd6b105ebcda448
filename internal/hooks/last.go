package hooks

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/ikigai-tools/ikigai/internal/calllog"
)

// Last is a hook's last run, as the log recorded it.
type Last struct {
	Time       time.Time `json:"time"`
	Outcome    string    `json:"outcome"`
	Failure    Failure   `json:"failure,omitempty"`
	DurationMS float64   `json:"duration_ms"`
}

// LastRuns reads the log in dir (the rotated file first) and returns each
// hook's last run, by the hook's ID. A log that cannot be read has no runs.
func LastRuns(dir string) map[string]Last {
	last := map[string]Last{}
	if dir == "" {
		return last
	}
	path := filepath.Join(dir, calllog.FileName)
	for _, name := range []string{path + ".1", path} {
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			var l struct {
				Last
				Msg  string `json:"msg"`
				Hook string `json:"hook"`
			}
			if json.Unmarshal(sc.Bytes(), &l) == nil && l.Msg == LogMessage && l.Hook != "" {
				last[l.Hook] = l.Last
			}
		}
		f.Close()
	}
	return last
}
