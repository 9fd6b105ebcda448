// Package files gives a tool that works on files the rules the core tools
// (file_read, file_write, file_edit, glob, grep) follow, for authors who
// want their tool to behave the same way. Nothing here is needed to speak
// the protocol; package toolsdk does that.
//
// Arguments: [CheckPath] refuses empty paths, paths longer than
// [MaxPathLen], NUL bytes and ".." components; [CheckPattern] refuses empty
// patterns and ones longer than [MaxPatternLen].
//
// Reading: [OpenRegular] opens a file to read, refusing directories,
// devices and pipes without blocking on a pipe; [BinaryOffset] says whether
// a file is binary, as git decides; [MaxFileSize] is the most a core tool
// reads whole.
//
// Writing: [WriteFileAtomic] replaces a file so that a crash or a signal
// never leaves it half-written; [EditFileAtomic] does so only if nobody
// wrote the file since it was read.
//
// Errors: [Error] turns an OS error into the error codes (the Code
// constants) and the "Error: {op} '{path}': {reason}" messages the core
// tools report; [Reason] strips the path the os package's errors carry.
package files
