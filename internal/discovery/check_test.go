package discovery

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	tool := func(name, script string, mode os.FileMode) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(script), mode); err != nil {
			t.Fatal(err)
		}
		return path
	}
	good := tool("good-tool", "#!/bin/sh\n[ \"$1\" = --schema ] && { echo '{\"name\":\"good\",\"description\":\"d\"}'; exit 0; }\ncat\n", 0o755)
	mismatch := tool("odd-tool", "#!/bin/sh\necho '{\"name\":\"other\",\"description\":\"\"}'\n", 0o755)
	plain := tool("plain-tool", "#!/bin/sh\n", 0o644)
	crashy := tool("crashy-tool", "#!/bin/sh\n[ \"$1\" = --schema ] && { echo '{\"name\":\"crashy\",\"description\":\"d\"}'; exit 0; }\nexit 2\n", 0o755)
	notes := tool("notes.txt", "", 0o644)
	badName := tool("bad.name-tool", "", 0o755)
	timeout := func(string) time.Duration { return 10 * time.Second }

	tests := []struct {
		path string
		opts CheckOptions
		want []Level
	}{
		{good, CheckOptions{}, []Level{OK, OK, OK}},
		{good, CheckOptions{Call: true, Args: []byte(`{"a":1}`), CallTimeout: timeout}, []Level{OK, OK, OK, OK}},
		{mismatch, CheckOptions{}, []Level{OK, OK, OK, Warn, Warn}},
		{plain, CheckOptions{}, []Level{OK, Fail}},
		{crashy, CheckOptions{Call: true, Args: []byte(`{}`), CallTimeout: timeout}, []Level{OK, OK, OK, Fail}},
		{notes, CheckOptions{}, []Level{Fail}},
		{badName, CheckOptions{}, []Level{Fail}},
		{filepath.Join(dir, "gone-tool"), CheckOptions{}, []Level{OK, Fail}},
	}
	for _, tt := range tests {
		findings := Check(context.Background(), tt.path, tt.opts)
		var got []Level
		for _, f := range findings {
			got = append(got, f.Level)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Check(%s) levels (-want +got):\n%s\n%+v", filepath.Base(tt.path), diff, findings)
		}
		if want := !containsFail(tt.want); Passed(findings) != want {
			t.Errorf("Passed(Check(%s)) = %v", filepath.Base(tt.path), !want)
		}
	}

	var b bytes.Buffer
	WriteFindings(&b, "x-tool", []Finding{{OK, "name: x", ""}, {Warn, "slow", "be quick"}, {Fail, "broken", ""}})
	want := "x-tool\n  ok    name: x\n  warn  slow\n        fix: be quick\n  FAIL  broken\n"
	if b.String() != want {
		t.Errorf("WriteFindings:\n%s\nwant\n%s", b.String(), want)
	}
}

func containsFail(levels []Level) bool {
	for _, l := range levels {
		if l == Fail {
			return true
		}
	}
	return false
}

// Locate finds the tool of the name asked for, and none for a name no tool
// has.
