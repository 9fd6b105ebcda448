// Package instructions reads the instruction files that tell the model
// about a project (AGENTS.md). They come from whatever directory ikigai
// runs in, so they are read as untrusted input: regular files only, never
// blocking on a FIFO or a device, never through a symbolic link that leads
// out of the directory they belong to, and only up to a size.
package instructions

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// FileName is the name of an instruction file.
const FileName = "AGENTS.md"

// MaxFile is the most of one instruction file the system prompt takes, so
// a huge file cannot crowd out the conversation.
const MaxFile = 64 << 10

// A File is an instruction file that may exist.
type File struct {
	// Root is the directory the file belongs to: no step of its path, a
	// symbolic link included, may lead out of it.
	Root string
	// Name is the file's path relative to Root.
	Name string
	// Title is how the system prompt introduces the file.
	Title string
}

// Text is an instruction file's content.
type Text struct {
	Title string
	Text  string
}

// ReadAll reads the files that exist and can be read safely, in order;
// the others are left out, as missing files are.
func ReadAll(files []File) []Text {
	var out []Text
	for _, f := range files {
		if text, err := Read(f.Root, f.Name); err == nil && text != "" {
			out = append(out, Text{f.Title, text})
		}
	}
	return out
}

// ErrNotRegular is the error for an instruction file that is a FIFO, a
// device, a directory or anything else but a regular file.
var ErrNotRegular = errors.New("not a regular file")

// Read returns the start of the file name in the directory root, its
// invalid UTF-8 replaced and cut at MaxFile with a note saying so; "" when
// there is none. A symbolic link is followed only while it stays inside
// root.
func Read(root, name string) (string, error) {
	f, err := openBeneath(root, name)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", nil
		}
		return "", err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !info.Mode().IsRegular() {
		return "", fmt.Errorf("%s: %w", f.Name(), ErrNotRegular)
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFile+1))
	if err != nil {
		return "", err
	}
	more := len(data) > MaxFile
	text := strings.TrimSpace(strings.ToValidUTF8(string(data[:min(len(data), MaxFile)]), "\uFFFD"))
	if more {
		text += "\n[" + filepath.Base(name) + " continues; the rest is omitted]"
	}
	return text, nil
}

// openResolved resolves the path's links, refuses a result outside root,
// and opens it without blocking and without following a link at its last
// step.
func openResolved(root, name string) (*os.File, error) {
	path := filepath.Join(root, name)
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, err
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	if rel, err := filepath.Rel(realRoot, real); err != nil || !filepath.IsLocal(rel) {
		return nil, &os.PathError{Op: "open", Path: path, Err: syscall.EXDEV}
	}
	return os.OpenFile(real, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
}
