package toolsdk_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ikigai-tools/ikigai/toolsdk"
)

// A tool that upper-cases a file in place. WriteFileAtomic makes the change
// all or nothing, and FileError turns what the OS said into the protocol's
// error codes and messages.
func ExampleWriteFileAtomic() {
	shout := toolsdk.New(toolsdk.Schema{Name: "shout", Description: "Upper-case a file"},
		func(ctx context.Context, p struct {
			Path string `json:"path"`
		}) (string, error) {
			data, err := os.ReadFile(p.Path)
			if err != nil {
				return "", toolsdk.FileError("READ_FAILED", "reading file", p.Path, err)
			}
			err = toolsdk.WriteFileAtomic(ctx, p.Path, func(w io.Writer) error {
				_, err := io.WriteString(w, strings.ToUpper(string(data)))
				return err
			})
			if err != nil {
				return "", err
			}
			return "Shouted " + filepath.Base(p.Path), nil
		})

	dir, _ := os.MkdirTemp("", "shout")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "note.txt"), []byte("hello\n"), 0o644)
	shout.Run(context.Background(), nil, strings.NewReader(`{"path":"`+dir+`/note.txt"}`), os.Stdout, os.Stderr)
	data, _ := os.ReadFile(filepath.Join(dir, "note.txt"))
	fmt.Printf("%q\n", data)
	shout.Run(context.Background(), nil, strings.NewReader(`{"path":"missing.txt"}`), os.Stdout, os.Stderr)
	// Output:
	// "Shouted note.txt"
	// "HELLO\n"
	// {"error":"Error: reading file 'missing.txt': No such file or directory","error_code":"FILE_NOT_FOUND"}
}

func ExampleFileError() {
	_, err := os.Open("/nonexistent/config.json")
	e := toolsdk.FileError("OPEN_FAILED", "reading file", "config.json", err)
	fmt.Println(e.Code)
	fmt.Println(e.Message)
	// Output:
	// FILE_NOT_FOUND
	// Error: reading file 'config.json': No such file or directory
}
