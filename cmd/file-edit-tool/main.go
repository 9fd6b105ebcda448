// Command file-edit-tool replaces an exact string in a file, atomically:
// every byte outside the replaced text stays as it was, and a crash leaves
// the old file or the new one, never a mix.
package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/ikigai-tools/ikigai/toolsdk"
	"github.com/ikigai-tools/ikigai/toolsdk/files"
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

// Error codes of file_edit's own, besides those of package files.
const (
	codeInvalidArg = "INVALID_ARG" // old_string is empty, or the same as new_string
	codeNotFound   = "NOT_FOUND"   // old_string is not in the file
	codeNotUnique  = "NOT_UNIQUE"  // old_string is there more than once, without replace_all
)

var tool = toolsdk.New(toolsdk.Schema{
	Name: "file_edit",
	Description: "Replace exact text in a file. old_string must match the file exactly, whitespace included, " +
		"and occur exactly once unless replace_all is set; include surrounding lines to make it unique. " +
		"If another program writes the file meanwhile, nothing is written: FILE_CHANGED.",
	Annotations: &toolsdk.Annotations{DestructiveHint: new(true)},
}, run)

func main() { tool.Main() }

func run(ctx context.Context, p params) (result, error) {
	if err := files.CheckPath(op, p.FilePath); err != nil {
		return result{}, err
	}
	switch {
	case p.OldString == "":
		return result{}, &toolsdk.Error{Code: codeInvalidArg, Op: op, Path: p.FilePath, Reason: "old_string is empty"}
	case p.OldString == p.NewString:
		return result{}, &toolsdk.Error{Code: codeInvalidArg, Op: op, Path: p.FilePath, Reason: "old_string and new_string are the same"}
	}
	data, read, err := readFile(p.FilePath)
	if err != nil {
		return result{}, err
	}
	from, to := []byte(p.OldString), []byte(p.NewString)
	count := bytes.Count(data, from)
	switch {
	case count == 0 && !p.ReplaceAll:
		return result{}, &toolsdk.Error{Code: codeNotFound, Op: op, Path: p.FilePath, Reason: "String not found" + hint(data, from, to)}
	case count > 1 && !p.ReplaceAll:
		return result{}, &toolsdk.Error{Code: codeNotUnique, Op: op, Path: p.FilePath,
			Reason: fmt.Sprintf("String found %d times, use replace_all to replace all", count)}
	case len(data)+count*(len(to)-len(from)) > files.MaxFileSize:
		return result{}, &toolsdk.Error{Code: files.CodeFileTooLarge, Op: op, Path: p.FilePath,
			Reason: fmt.Sprintf("the edited file would be more than %d MiB", files.MaxFileSize>>20)}
	}
	if count > 0 {
		// Only if nobody wrote the file since it was read: FILE_CHANGED
		// keeps what they wrote.
		err := files.EditFileAtomic(ctx, p.FilePath, read, func(w io.Writer) error {
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

// readFile reads the whole file, and returns it with the file's FileInfo
// before the read, from the open descriptor: it describes the file read
// even if path is replaced meanwhile.
func readFile(path string) ([]byte, fs.FileInfo, error) {
	f, info, err := files.OpenRegular(op, path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if info.Size() > files.MaxFileSize {
		return nil, nil, tooLarge(path)
	}
	var buf bytes.Buffer
	buf.Grow(int(info.Size()) + bytes.MinRead) // room enough that reading to the end never reallocates
	if _, err := buf.ReadFrom(io.LimitReader(f, files.MaxFileSize+1)); err != nil {
		return nil, nil, files.Error(files.CodeReadFailed, op, path, err)
	}
	if buf.Len() > files.MaxFileSize { // it grew while being read
		return nil, nil, tooLarge(path)
	}
	return buf.Bytes(), info, nil
}

func tooLarge(path string) error {
	return &toolsdk.Error{Code: files.CodeFileTooLarge, Op: op, Path: path, Reason: fmt.Sprintf("file is more than %d MiB", files.MaxFileSize>>20)}
}
