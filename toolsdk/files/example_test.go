package files_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ikigai-tools/ikigai/toolsdk"
	"github.com/ikigai-tools/ikigai/toolsdk/files"
)

// A tool that upper-cases a file in place. CheckPath applies the core
// tools' rules to the argument, WriteFileAtomic makes the change all or
// nothing, and Error turns what the OS said into the protocol's error
// codes and messages.
func ExampleWriteFileAtomic() {
	shout := toolsdk.New(toolsdk.Schema{Name: "shout", Description: "Upper-case a file"},
		func(ctx context.Context, p struct {
			Path string `json:"path"`
		}) (string, error) {
			const op = "shouting"
			if err := files.CheckPath(op, p.Path); err != nil {
				return "", err
			}
			data, err := os.ReadFile(p.Path)
			if err != nil {
				return "", files.Error(files.CodeReadFailed, op, p.Path, err)
			}
			err = files.WriteFileAtomic(ctx, p.Path, func(w io.Writer) error {
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
	shout.Run(context.Background(), nil, strings.NewReader(`{"path":"../etc/passwd"}`), os.Stdout, os.Stderr)
	// Output:
	// "Shouted note.txt"
	// "HELLO\n"
	// {"error":"Error: shouting 'missing.txt': No such file or directory","error_code":"FILE_NOT_FOUND"}
	// {"error":"Error: shouting '../etc/passwd': path contains a '..' component","error_code":"INVALID_PATH"}
}

func ExampleError() {
	_, err := os.Open("/nonexistent/config.json")
	e := files.Error(files.CodeOpenFailed, "reading file", "config.json", err)
	fmt.Println(e.Code)
	fmt.Println(e)
	// Output:
	// FILE_NOT_FOUND
	// Error: reading file 'config.json': No such file or directory
}

func ExampleCheckPath() {
	fmt.Println(files.CheckPath("reading file", "src/../../etc/passwd"))
	// Output: Error: reading file 'src/../../etc/passwd': path contains a '..' component
}

// A tool that reads text refuses what cannot be read as text: a device, a
// pipe, a directory, a binary file.
func ExampleOpenRegular() {
	f, _, err := files.OpenRegular("reading file", os.DevNull)
	fmt.Println(f, err)

	f, _, err = files.OpenRegular("reading file", "example_test.go")
	if err != nil {
		panic(err)
	}
	defer f.Close()
	head := make([]byte, files.BinaryProbe)
	n, _ := f.Read(head)
	fmt.Println("binary:", files.BinaryOffset(head[:n]) >= 0)
	// Output:
	// <nil> Error: reading file '/dev/null': not a regular file
	// binary: false
}
