package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ikigai-tools/ikigai/toolsdk/tooltest"
)

func TestTimeout(t *testing.T) {
	res := tooltest.Call(t, tool, `{"pattern":"**"}`, tooltest.WithTimeout(time.Nanosecond))
	if res.Stdout != `{"error":"Error: timed out before finishing","error_code":"TIMEOUT"}`+"\n" {
		t.Errorf("got %+v", res)
	}
}

func TestDepthLimit(t *testing.T) {
	// Patterns without ** are matched only as deep as they reach; one
	// with a / inside braces reaches as deep as its longest alternative.
	tests := []struct {
		pattern string
		want    string
	}{
		{"*.go", `{"output":"a.go","count":1}`},
		{"*/*.go", `{"output":"d/b.go","count":1}`},
		{"{*,*/*/*}.go", `{"output":"a.go\nd/e/c.go","count":2}`},
	}
	dir := t.TempDir()
	for _, name := range []string{"a.go", "d/b.go", "d/e/c.go"} {
		writeFile(t, dir, name)
	}
	t.Chdir(dir)
	for _, tt := range tests {
		res := tooltest.Call(t, tool, `{"pattern":"`+tt.pattern+`"}`)
		if res.Stdout != tt.want+"\n" {
			t.Errorf("%s: got %q, want %q", tt.pattern, res.Stdout, tt.want)
		}
	}
}

func writeFile(t *testing.T, dir, name string) {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}
