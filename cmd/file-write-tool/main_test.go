package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ikigai-tools/ikigai/toolsdk/files"
	"github.com/ikigai-tools/ikigai/toolsdk/tooltest"
)

// Content over 100 MiB is refused, and nothing is written.
func TestContentTooLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.txt")
	input := `{"file_path":"` + path + `","content":"` + strings.Repeat("a", files.MaxFileSize+1) + `"}`
	res := tooltest.Call(t, tool, input)
	want := `{"error":"Error: writing file '` + path + `': content is 104857601 bytes, more than the 100 MiB a file may have","error_code":"FILE_TOO_LARGE"}` + "\n"
	if res.Stdout != want || res.ExitCode != 0 {
		t.Errorf("got %+v\nwant stdout %s", res, want)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("%s was created: %v", path, err)
	}
}
