package files

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
	"unicode"
	"unicode/utf8"

	"github.com/ikigai-tools/ikigai/toolsdk"
)

// Error codes of the core tools' file operations.
const (
	// CodeFileNotFound: the file, or a directory on its path, does not
	// exist (ENOENT, ENOTDIR).
	CodeFileNotFound = "FILE_NOT_FOUND"
	// CodePermissionDenied: the operation is not allowed (EACCES, EPERM,
	// EROFS), or the file may not be changed.
	CodePermissionDenied = "PERMISSION_DENIED"
	// CodeNoSpace: the disk or the user's quota is full (ENOSPC, EDQUOT).
	CodeNoSpace = "NO_SPACE"
	// CodeOpenFailed: the file could not be opened for another reason.
	CodeOpenFailed = "OPEN_FAILED"
	// CodeSizeFailed: the file's size could not be learnt.
	CodeSizeFailed = "SIZE_FAILED"
	// CodeReadFailed: reading failed, or the file is not one that can be
	// read (a directory, a device, a pipe).
	CodeReadFailed = "READ_FAILED"
	// CodeWriteFailed: writing failed.
	CodeWriteFailed = "WRITE_FAILED"
	// CodeFileTooLarge: the file, or what it would become, is larger than
	// MaxFileSize.
	CodeFileTooLarge = "FILE_TOO_LARGE"
	// CodeBinaryFile: the file is binary (see BinaryOffset) and the
	// operation is for text.
	CodeBinaryFile = "BINARY_FILE"
	// CodeFileChanged: the file changed between reading it and replacing
	// it (see EditFileAtomic); nothing was written.
	CodeFileChanged = "FILE_CHANGED"
	// CodeInvalidPath: a path argument breaks the rules of CheckPath.
	CodeInvalidPath = "INVALID_PATH"
	// CodeInvalidPattern: a pattern argument breaks the rules of
	// CheckPattern, or is not a valid expression.
	CodeInvalidPattern = "INVALID_PATTERN"
)

// Error returns the operation error for err, which an operation on the
// file at path failed with. Its code comes from the OS error where one fits,
// and is code otherwise:
//
//	ENOENT, ENOTDIR          FILE_NOT_FOUND
//	EACCES, EPERM, EROFS     PERMISSION_DENIED
//	ENOSPC, EDQUOT           NO_SPACE
//
// Its message reads "Error: {op} '{path}': {reason}", the reason in the
// OS's words ("No such file or directory"). op names the operation as the
// user asked for it ("reading file"), and path is the path as the user gave
// it, whatever path the failing call used.
func Error(code, op, path string, err error) *toolsdk.Error {
	var errno syscall.Errno
	reason := Reason(err).Error()
	if errors.As(err, &errno) {
		reason = capitalize(errno.Error())
		switch errno {
		case syscall.ENOENT, syscall.ENOTDIR:
			code = CodeFileNotFound
		case syscall.EACCES, syscall.EPERM, syscall.EROFS:
			code = CodePermissionDenied
		case syscall.ENOSPC, syscall.EDQUOT:
			code = CodeNoSpace
		}
	}
	return &toolsdk.Error{Code: code, Op: op, Path: path, Reason: reason}
}

// Reason returns err without the path and operation that the os package's
// errors (*fs.PathError, *os.LinkError, *os.SyscallError) add to the
// system's reason: a message names the path as the user gave it, not the
// one the failing call used.
func Reason(err error) error {
	var pathErr *fs.PathError
	var linkErr *os.LinkError
	var sysErr *os.SyscallError
	switch {
	case errors.As(err, &pathErr):
		return pathErr.Err
	case errors.As(err, &linkErr):
		return linkErr.Err
	case errors.As(err, &sysErr):
		return sysErr.Err
	}
	return err
}

// capitalize gives an OS error message the capital that strerror(3) has.
func capitalize(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}
