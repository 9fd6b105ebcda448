// Command file-read-tool returns a text file's content, whole or a window
// of its lines. A window streams: reading the end of a huge file does not
// load the file.
package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/ikigai-tools/ikigai/toolsdk"
	"github.com/ikigai-tools/ikigai/toolsdk/files"
	"github.com/ikigai-tools/ikigai/toolsdk/output"
)

type params struct {
	FilePath string `json:"file_path" description:"Path of the file to read, absolute or relative to the working directory"`
	Offset   int    `json:"offset,omitempty" description:"First line to return, counting from 1 (default: the first line)"`
	Limit    int    `json:"limit,omitempty" description:"How many lines to return (default: as many as fit in one result)"`
}

type result struct {
	Output     string  `json:"output" description:"The lines as they are in the file, newlines included, invalid UTF-8 replaced"`
	LinesRead  int     `json:"lines_read,omitempty" description:"How many lines output holds"`
	TotalLines int     `json:"total_lines,omitempty" description:"How many lines the file has, when known"`
	Truncated  bool    `json:"truncated,omitempty" description:"The result's size limit ended the read before what was asked for"`
	NextOffset int     `json:"next_offset,omitempty" description:"The offset to continue reading from; absent at the end of the file"`
	Images     []image `json:"images,omitempty" description:"An image file's picture, which the model sees"`
}

// image is a picture as the protocol carries it in a result.
type image struct {
	MediaType string `json:"media_type"`
	Data      []byte `json:"data"` // base64 in JSON
}

const (
	op = "reading file"
	// chunkSize is how much is read at a time.
	chunkSize = 256 << 10
)

var tool = toolsdk.New(toolsdk.Schema{
	Name: "file_read",
	Description: "Read a text file. Returns its content exactly, without line numbers. Large files come back in parts: " +
		"pass offset (a 1-based line number) and limit (a number of lines) to read a window, and continue from next_offset. " +
		"An image (PNG, JPEG, GIF, WebP) comes back as the picture itself.",
	Annotations: &toolsdk.Annotations{ReadOnlyHint: true},
}, run)

func main() { tool.Main() }

// readImage returns the image file f, of the media type t, for the model
// to see.
func readImage(f io.ReaderAt, size int64, path, t string) (result, error) {
	if size > files.MaxImage {
		return result{}, &toolsdk.Error{Code: files.CodeFileTooLarge, Op: op, Path: path,
			Reason: fmt.Sprintf("the image is %d bytes, more than the %d (%d MiB) a model takes", size, files.MaxImage, files.MaxImage>>20)}
	}
	data := make([]byte, size)
	if _, err := f.ReadAt(data, 0); err != nil && err != io.EOF {
		return result{}, files.Error(files.CodeReadFailed, op, path, err)
	}
	if why := files.CheckImage(data); why != "" {
		code := files.CodeFileTooLarge // a side of too many pixels
		if _, _, ok := files.ImageSize(data); !ok {
			code = files.CodeBinaryFile
		}
		return result{}, &toolsdk.Error{Code: code, Op: op, Path: path, Reason: why}
	}
	return result{Output: fmt.Sprintf("An image (%s, %d bytes): the model sees it.", t, size), Images: []image{{MediaType: t, Data: data}}}, nil
}

func run(ctx context.Context, p params) (result, error) {
	if err := files.CheckPath(op, p.FilePath); err != nil {
		return result{}, err
	}
	if p.Offset < 0 {
		return result{}, toolsdk.InvalidField("offset")
	}
	if p.Limit < 0 {
		return result{}, toolsdk.InvalidField("limit")
	}
	f, info, err := files.OpenRegular(op, p.FilePath)
	if err != nil {
		return result{}, err
	}
	defer f.Close()
	whole := p.Offset == 0 && p.Limit == 0
	if whole && info.Size() > files.MaxFileSize {
		return result{}, &toolsdk.Error{Code: files.CodeFileTooLarge, Op: op, Path: p.FilePath,
			Reason: fmt.Sprintf("file is %.1f MiB, more than the %d MiB that can be read whole; read it in windows with offset and limit",
				float64(info.Size())/(1<<20), files.MaxFileSize>>20)}
	}
	probe := make([]byte, files.BinaryProbe)
	n, err := f.ReadAt(probe, 0)
	if err != nil && err != io.EOF {
		return result{}, files.Error(files.CodeReadFailed, op, p.FilePath, err)
	}
	if t := files.ImageType(probe[:n]); t != "" && whole {
		return readImage(f, info.Size(), p.FilePath, t)
	}
	if i := files.BinaryOffset(probe[:n]); i >= 0 {
		return result{}, &toolsdk.Error{Code: files.CodeBinaryFile, Op: op, Path: p.FilePath,
			Reason: fmt.Sprintf("binary file (NUL byte at offset %d)", i)}
	}

	w := window{offset: max(p.Offset, 1), limit: p.Limit, budget: output.DefaultBudget}
	res, err := w.read(&scanner{ctx: ctx, r: f, buf: make([]byte, chunkSize)}, info.Size() <= files.MaxFileSize)
	if err != nil {
		if ctx.Err() != nil {
			return result{}, ctx.Err()
		}
		return result{}, files.Error(files.CodeReadFailed, op, p.FilePath, err)
	}
	if whole && !res.Truncated {
		return result{Output: res.Output}, nil
	}
	return res, nil
}

// window is the part of a file to return: limit lines (0 for no limit)
// from line offset, within budget bytes of encoded output.
type window struct {
	offset, limit, budget int
}

// read reads the window from s. It counts the file's lines when it reaches
// the end anyway, or when count says the rest is small enough to read.
func (w window) read(s *scanner, count bool) (result, error) {
	if err := s.skip(w.offset - 1); err != nil {
		return result{}, err
	}
	var (
		out     strings.Builder
		used    int    // encoded bytes in out
		lines   int    // lines in out
		cur     []byte // the current line, at most budget bytes of it
		curLen  int    // the current line's full length
		pending bool   // a line was read but left out
		cut     bool   // the budget ended the read
	)
	for w.limit == 0 || lines < w.limit {
		more, err := s.fill()
		if err != nil {
			return result{}, err
		}
		if !more && curLen == 0 {
			break
		}
		if more {
			seg := s.data
			if i := bytes.IndexByte(seg, '\n'); i >= 0 {
				seg = seg[:i+1]
			}
			s.data = s.data[len(seg):]
			curLen += len(seg)
			cur = append(cur, seg[:min(len(seg), w.budget-len(cur))]...)
			if seg[len(seg)-1] != '\n' {
				continue
			}
		}
		// A whole line, or the last one, without a newline. One longer than
		// the budget does not fit, even if replacing invalid bytes would
		// shrink it.
		text := strings.ToValidUTF8(string(cur), "\uFFFD")
		n := output.EncodedLen(text)
		switch {
		case curLen == len(cur) && used+n <= w.budget:
			out.WriteString(text)
			used += n
			lines++
		case lines == 0:
			length := curLen
			if more { // it ended with a newline
				length--
			}
			out.WriteString(cutLine(cur, length, w.offset, w.budget))
			lines, cut = 1, true
		default:
			pending, cut = true, true
		}
		cur, curLen = cur[:0], 0
		if cut {
			break
		}
	}

	res := result{Output: out.String(), LinesRead: lines, Truncated: cut}
	more := pending
	if !more {
		var err error
		if more, err = s.fill(); err != nil {
			return result{}, err
		}
	}
	if more {
		res.NextOffset = w.offset + lines
	}
	if count || !more {
		total, err := s.countLines()
		if err != nil {
			return result{}, err
		}
		res.TotalLines = total
	}
	return res, nil
}

// cutLine returns the start of a line too long for the budget, cut at a
// character boundary, and a marker saying how long the whole line is.
func cutLine(line []byte, length, number, budget int) string {
	marker := fmt.Sprintf("\n[... line %d is %d bytes long; the rest is omitted ...]", number, length)
	room := budget - output.EncodedLen(marker)
	end := 0
	for end < len(line) {
		r, size := utf8.DecodeRune(line[end:])
		cost := 3 // an invalid byte becomes U+FFFD
		if r != utf8.RuneError || size > 1 {
			cost = output.EncodedLen(string(line[end : end+size]))
		}
		if room -= cost; room < 0 {
			break
		}
		end += size
	}
	return strings.ToValidUTF8(string(line[:end]), "\uFFFD") + marker
}

// scanner reads a file in chunks and counts its newlines as it goes.
type scanner struct {
	ctx      context.Context
	r        io.Reader
	buf      []byte
	data     []byte // the unread part of buf
	eof      bool
	read     int64 // bytes read so far
	newlines int   // newlines in them
	last     byte  // the last of them, to count a last line with no newline
}

// fill makes sure there is unread data, reading the next chunk if need be,
// and reports whether there is any before the end of the file.
func (s *scanner) fill() (bool, error) {
	for len(s.data) == 0 && !s.eof {
		if err := s.ctx.Err(); err != nil {
			return false, err
		}
		n, err := s.r.Read(s.buf)
		s.data = s.buf[:n]
		if n > 0 {
			s.read += int64(n)
			s.newlines += bytes.Count(s.data, []byte{'\n'})
			s.last = s.data[n-1]
		}
		if err == io.EOF {
			s.eof = true
		} else if err != nil {
			return false, err
		}
	}
	return len(s.data) > 0, nil
}

// skip passes over n lines, or to the end of the file if it has fewer.
func (s *scanner) skip(n int) error {
	for n > 0 {
		more, err := s.fill()
		if err != nil || !more {
			return err
		}
		if c := bytes.Count(s.data, []byte{'\n'}); c < n {
			n -= c
			s.data = nil
			continue
		}
		for ; n > 0; n-- {
			s.data = s.data[bytes.IndexByte(s.data, '\n')+1:]
		}
	}
	return nil
}

// countLines reads to the end of the file and returns how many lines it
// has: its newlines, and one more if it does not end with one.
func (s *scanner) countLines() (int, error) {
	for {
		s.data = nil
		more, err := s.fill()
		if err != nil {
			return 0, err
		}
		if !more {
			break
		}
	}
	total := s.newlines
	if s.read > 0 && s.last != '\n' {
		total++
	}
	return total, nil
}
