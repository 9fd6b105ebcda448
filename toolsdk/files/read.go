package files

import (
	"bytes"
	"io/fs"
	"os"
	"syscall"

	"github.com/ikigai-tools/ikigai/toolsdk"
)

// MaxFileSize is the largest file a core tool reads whole or writes: 100 MiB.
const MaxFileSize = 100 << 20

// BinaryProbe is how much of the start of a file is looked at to decide
// whether it is binary.
const BinaryProbe = 8 << 10

// BinaryOffset returns the offset of the first NUL byte in the first
// BinaryProbe bytes of head, the start of a file, or -1 when there is none.
// A file with a NUL byte there is binary, as git decides.
func BinaryOffset(head []byte) int {
	return bytes.IndexByte(head[:min(len(head), BinaryProbe)], 0)
}

// OpenRegular opens the file at path for reading, and returns it with its
// FileInfo, taken from the open descriptor so that it describes the file
// that was opened even if path changes meanwhile. A directory, a device or
// a named pipe is refused with READ_FAILED; opening a pipe does not wait
// for a writer. Errors are from [Error] for op, with the fallback codes
// OPEN_FAILED and SIZE_FAILED.
func OpenRegular(op, path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, Error(CodeOpenFailed, op, path, err)
	}
	info, err := f.Stat()
	switch {
	case err != nil:
		err = Error(CodeSizeFailed, op, path, err)
	case info.IsDir():
		err = Error(CodeReadFailed, op, path, syscall.EISDIR)
	case !info.Mode().IsRegular():
		err = &toolsdk.Error{Code: CodeReadFailed, Op: op, Path: path, Reason: "not a regular file"}
	default:
		return f, info, nil
	}
	f.Close()
	return nil, nil, err
}
