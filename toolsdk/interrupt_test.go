package toolsdk_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ikigai-tools/ikigai/toolsdk"
	"github.com/ikigai-tools/ikigai/toolsdk/files"
)

// A signal that stops the process in the middle of files.WriteFileAtomic
// removes its temporary file: the hook it registers with OnInterrupt runs.
func TestInterruptDuringWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file.txt")
	os.WriteFile(file, []byte("old"), 0o644)
	var during []string
	err := files.WriteFileAtomic(context.Background(), file, func(w io.Writer) error {
		during = names(t, dir)
		toolsdk.RunInterruptHooks() // what Main does before it exits on a signal
		return errors.New("stopped")
	})
	if err == nil || len(during) != 2 {
		t.Fatalf("error %v; while writing the directory held %q, want the file and a temporary file", err, during)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"file.txt"}) {
		t.Errorf("directory holds %q after the interrupt, want only file.txt", got)
	}
	if got, _ := os.ReadFile(file); string(got) != "old" {
		t.Errorf("file holds %q, want the old content", got)
	}
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
