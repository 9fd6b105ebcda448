package execute

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzEnvelope checks that whatever a tool prints, the envelope the model
// gets is one line of valid JSON in valid UTF-8, carrying the tool's
// document unchanged in meaning when it printed one.
func FuzzEnvelope(f *testing.F) {
	for _, seed := range []string{
		`{"output":"hi"}`, " [1, 2]\n", `"text"`, `{"a":"caf` + "\xe9" + `"}`, `{}{}`, "", "hello\n", `{"a":"<&>"}`,
		"{\"a\":\"\u2028\"}", `{"a":1e400}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, stdout []byte) {
		result, problem := resultOf(stdout)
		env := Succeeded(result)
		if problem != "" {
			env = Failed(InvalidOutput, "Tool 't' %s", problem)
			env.Stdout = string(stdout)
		}
		line := env.JSON()
		if !utf8.Valid(line) || !json.Valid(line) || bytes.ContainsAny(line, "\n\r") {
			t.Fatalf("envelope %q is not one line of valid JSON", line)
		}
		if problem == "" && utf8.Valid(stdout) {
			var want, got any
			json.Unmarshal(stdout, &want)
			json.Unmarshal(result, &got)
			if a, b := mustJSON(t, want), mustJSON(t, got); a != b {
				t.Fatalf("result %s differs from what the tool printed, %s", b, a)
			}
		}
	})
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
