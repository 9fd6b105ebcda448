// Command file-write-tool creates or replaces a file with the given content,
// atomically: a crash leaves the old content or the new, never a mix.
package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/ikigai-tools/ikigai/toolsdk"
	"github.com/ikigai-tools/ikigai/toolsdk/files"
)

type params struct {
	FilePath string `json:"file_path" description:"Path of the file to write, absolute or relative to the working directory; its directory must exist"`
	Content  string `json:"content" description:"The file's complete new content"`
}

type result struct {
	Output string `json:"output" description:"What was written, e.g. \"Wrote 14 bytes to test.txt\""`
	Bytes  int    `json:"bytes" description:"How many bytes the file now holds"`
}

const op = "writing file"

var tool = toolsdk.New(toolsdk.Schema{
	Name: "file_write",
	Description: "Create a file, or replace an existing file's whole content. The directory must exist. " +
		"To change part of a file, use file_edit instead.",
	Annotations: &toolsdk.Annotations{DestructiveHint: new(true), IdempotentHint: true},
}, run)

func main() { tool.Main() }

func run(ctx context.Context, p params) (result, error) {
	if err := files.CheckPath(op, p.FilePath); err != nil {
		return result{}, err
	}
	if len(p.Content) > files.MaxFileSize {
		return result{}, &toolsdk.Error{Code: files.CodeFileTooLarge, Op: op, Path: p.FilePath,
			Reason: fmt.Sprintf("content is %d bytes, more than the %d MiB a file may have", len(p.Content), files.MaxFileSize>>20)}
	}
	err := files.WriteFileAtomic(ctx, p.FilePath, func(w io.Writer) error {
		_, err := io.WriteString(w, p.Content)
		return err
	})
	if err != nil {
		return result{}, err
	}
	return result{
		Output: fmt.Sprintf("Wrote %d bytes to %s", len(p.Content), filepath.Base(p.FilePath)),
		Bytes:  len(p.Content),
	}, nil
}
