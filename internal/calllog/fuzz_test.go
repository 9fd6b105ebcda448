package calllog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// Whatever surrounds it, a secret from the environment never survives
// scrubbing, and what comes out is valid UTF-8 within the limit.
func FuzzScrub(f *testing.F) {
	f.Add("error: ", " rejected", 40)
	f.Add("Authorization: Bearer ", "\n", 512)
	f.Add("api_key=", "&x=1", 10)
	f.Add("\xff\xfe", "é", 3)
	const secret = "sk-ant-api03-FUZZSECRET0123456789"
	s := newScrubber([]string{"ANTHROPIC_API_KEY=" + secret})
	f.Fuzz(func(t *testing.T, before, after string, max int) {
		max = 1 + abs(max)%1024
		got := s.clean(before+secret+after, max)
		if strings.Contains(got, secret) {
			t.Fatalf("the secret survived: %q", got)
		}
		if !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8: %q", got)
		}
		if len(got) > max+len("...") {
			t.Fatalf("%d bytes, more than %d and an ellipsis", len(got), max)
		}
	})
}

// Whatever text stands around it, a credential of a family the scrubber
// knows never survives scrubbing, not even in part: no run of 8 bytes of
// its secret is left that the surrounding text did not bring. The seeds
// are secretSamples and testdata/fuzz/FuzzScrubSecrets.
func FuzzScrubSecrets(f *testing.F) {
	for i := range secretSamples {
		f.Add(i, "error: ", " rejected")
		f.Add(i, `{"stderr":"`, `\n"}`)
	}
	s := newScrubber(nil)
	f.Fuzz(func(t *testing.T, family int, before, after string) {
		sample := secretSamples[abs(family%len(secretSamples))]
		got := s.clean(before+" "+sample.text+" "+after, 1<<20)
		const window = 8
		for i := 0; i+window <= len(sample.secret); i++ {
			w := sample.secret[i : i+window]
			if strings.Contains(got, w) && !strings.Contains(before, w) && !strings.Contains(after, w) {
				t.Fatalf("%s: %q of the secret survived: %q", sample.family, w, got)
			}
		}
	})
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// Any log, however broken, is read without error: lines that are not
// calls are skipped.
func FuzzReadStats(f *testing.F) {
	f.Add(`{"time":"2026-01-02T10:00:00Z","msg":"tool call","tool":"bash","source":"system","duration_ms":4,"outcome":"ok"}` + "\n")
	f.Add(`{"msg":"tool call","tool":"x","duration_ms":-1,"outcome":"failed","error_code":""}` + "\n{\n")
	f.Add("\x00\xff\n\n{\"msg\":\"tool call\",\"tool\":\"\"}")
	f.Fuzz(func(t *testing.T, log string) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, FileName), []byte(log), 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := ReadStats(dir)
		if err != nil {
			t.Fatal(err)
		}
		calls := 0
		for _, tool := range s.Tools {
			calls += tool.Calls
			if tool.Failed > tool.Calls || tool.P95MS < tool.MedianMS {
				t.Fatalf("inconsistent: %+v", tool)
			}
		}
		if calls != s.Calls {
			t.Fatalf("%d calls in the tools, %d in all", calls, s.Calls)
		}
		var text strings.Builder
		s.WriteText(&text)
	})
}
