// Command file-edit-tool replaces an exact string in a file, atomically:
// every byte outside the replaced text stays as it was, and a crash leaves
// the old file or the new one, never a mix.
package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/ikigai-tools/ikigai/toolsdk"
)

type params struct {
	FilePath   string `json:"file_path" description:"Path of the file to edit, absolute or relative to the working directory"`
	OldString  string `json:"old_string" description:"The exact text to replace, whitespace and line endings included"`
	NewString  string `json:"new_string" description:"The text to put in its place"`
	ReplaceAll bool   `json:"replace_all,omitempty" description:"Replace every occurrence of old_string (default false: it must occur exactly once)"`
}

type result struct {
	Output       string `json:"output" description:"What was done, e.g. \"Replaced 1 occurrence in config.txt\""`
	Replacements int    `json:"replacements" description:"How many occurrences were replaced"`
}

const op = "editing file"

var tool = toolsdk.New(toolsdk.Schema{
	Name: "file_edit",
	Description: "Replace exact text in a file. old_string must match the file exactly, whitespace included, " +
		"and occur exactly once unless replace_all is set; include surrounding lines to make it unique.",
	Annotations: &toolsdk.Annotations{DestructiveHint: new(true)},
}, run)

func main() { tool.Main() }

func run(ctx context.Context, p params) (result, error) {
	if err := toolsdk.CheckPath(op, p.FilePath); err != nil {
		return result{}, err
	}
	switch {
	case p.OldString == "":
		return result{}, toolsdk.Errorf("INVALID_ARG", "Error: %s '%s': old_string is empty", op, p.FilePath)
	case p.OldString == p.NewString:
		return result{}, toolsdk.Errorf("INVALID_ARG", "Error: %s '%s': old_string and new_string are the same", op, p.FilePath)
	}
	data, err := readFile(p.FilePath)
	if err != nil {
		return result{}, err
	}
	from, to := []byte(p.OldString), []byte(p.NewString)
	count := bytes.Count(data, from)
	switch {
	case count == 0 && !p.ReplaceAll:
		return result{}, toolsdk.Errorf("NOT_FOUND", "Error: %s '%s': String not found%s", op, p.FilePath, hint(data, from, to))
	case count > 1 && !p.ReplaceAll:
		return result{}, toolsdk.Errorf("NOT_UNIQUE", "Error: %s '%s': String found %d times, use replace_all to replace all", op, p.FilePath, count)
	case len(data)+count*(len(to)-len(from)) > toolsdk.MaxFileSize:
		return result{}, toolsdk.Errorf("FILE_TOO_LARGE", "Error: %s '%s': the edited file would be more than %d MiB", op, p.FilePath, toolsdk.MaxFileSize>>20)
	}
	if count > 0 {
		err := toolsdk.WriteFileAtomic(ctx, p.FilePath, func(w io.Writer) error {
			return replace(w, data, from, to, count)
		})
		if err != nil {
			return result{}, err
		}
	}
	noun := "occurrences"
	if count == 1 {
		noun = "occurrence"
	}
	return result{Output: fmt.Sprintf("Replaced %d %s in %s", count, noun, filepath.Base(p.FilePath)), Replacements: count}, nil
}

// readFile reads the whole file. Its size comes from the open descriptor,
// so it is the size of the file read even if path is replaced meanwhile.
func readFile(path string) ([]byte, error) {
	f, info, err := toolsdk.OpenRegular(op, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if info.Size() > toolsdk.MaxFileSize {
		return nil, tooLarge(path)
	}
	var buf bytes.Buffer
	buf.Grow(int(info.Size()) + bytes.MinRead) // room enough that reading to the end never reallocates
	if _, err := buf.ReadFrom(io.LimitReader(f, toolsdk.MaxFileSize+1)); err != nil {
		return nil, toolsdk.FileError("READ_FAILED", op, path, err)
	}
	if buf.Len() > toolsdk.MaxFileSize { // it grew while being read
		return nil, tooLarge(path)
	}
	return buf.Bytes(), nil
}

func tooLarge(path string) error {
	return toolsdk.Errorf("FILE_TOO_LARGE", "Error: %s '%s': file is more than %d MiB", op, path, toolsdk.MaxFileSize>>20)
}
