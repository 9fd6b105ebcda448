package execute

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/ikigai-tools/ikigai/internal/fserr"
	"github.com/ikigai-tools/ikigai/internal/plainjson"
	"github.com/ikigai-tools/ikigai/toolsdk/output"
)

const (
	// DefaultInline is how big a result's envelope may be, encoded, and
	// still go to the model whole: about 8k tokens.
	DefaultInline = 32 << 10
	// previewBytes is how much of a spilled result the model sees in its
	// place, head and tail together, at most: a quarter of the budget.
	previewBytes = 8 << 10
	// minPreview is how much it sees at least, however small the budget.
	minPreview = 512
	// foldWidth is the longest line a spilled result's file holds: longer
	// ones are split, since file_read shows only the start of a line
	// longer than its result.
	foldWidth = 4 << 10
)

// Spilled says where the whole of a result too big for the model's context
// was kept, as the envelope's "result_file".
type Spilled struct {
	// Path is the file holding the whole result; "" when it could not be
	// written, and Note says why.
	Path  string `json:"path,omitempty"`
	Bytes int    `json:"bytes"` // of what the file holds
	// Field names the result's field the file holds as plain text (the
	// field the result shows cut); "" when the file holds the whole
	// result as indented JSON, or the text of a result that is a string.
	Field string `json:"field,omitempty"`
	Note  string `json:"note"`
}

// Spill returns env with a successful result whose envelope is bigger than
// inline bytes cut to a preview of its head and tail, the whole of it kept
// in dir/name (a file of mode 0600; dir is made, 0700, if need be). The
// file holds what is easiest to read with file_read and search with grep:
// the text of the result's biggest string field, when that field is most
// of it (a command's output), or the result as indented JSON. Any other
// envelope comes back as it was.
func Spill(env Envelope, inline int, dir, name string) Envelope {
	if !env.Success || len(env.Result) == 0 || inline <= 0 || len(env.JSON()) <= inline {
		return env
	}
	content, field, ext, preview := spillContent(env.Result, min(previewBytes, max(inline/4, minPreview)))
	content, folded := fold(content)
	s := &Spilled{Bytes: len(content), Field: field}
	var path string
	err := os.ErrInvalid
	if dir != "" {
		if err = os.MkdirAll(dir, 0o700); err == nil {
			path, err = writeNew(filepath.Join(dir, name), ext, content)
		}
	}
	what := "The whole result"
	if field != "" {
		what = fmt.Sprintf("The whole %q field, as text,", field)
	}
	switch {
	case dir == "":
		s.Note = fmt.Sprintf("This result was %d bytes, too big to show whole; this is its head and tail. The rest was not kept: this run has no session to keep it in.", len(env.Result))
	case err == nil:
		s.Path = path
		s.Note = fmt.Sprintf("This result was %d bytes, too big to show whole; this is its head and tail. %s is in %s: read parts of it with file_read (offset and limit) or search it with grep.", len(env.Result), what, path)
		if folded {
			s.Note += fmt.Sprintf(" Lines longer than %d bytes are split there.", foldWidth)
		}
	default:
		s.Note = fmt.Sprintf("This result was %d bytes, too big to show whole; this is its head and tail. The rest could not be kept: %s.", len(env.Result), fserr.Reason(err))
	}
	out := env
	out.Result, out.Spilled = preview, s
	if len(out.JSON()) >= len(env.JSON()) {
		// A budget smaller than a preview and its note: whole is less.
		if s.Path != "" {
			os.Remove(s.Path)
		}
		return env
	}
	return out
}

// spillContent returns what a spilled result's file holds, the field of the
// result it is ("" for all of it), the file's extension, and the result to
// show in its place, its text cut to about budget bytes. Text holding a NUL
// byte is kept as JSON, escaped, since file_read and grep take a file with
// one for binary.
func spillContent(result json.RawMessage, budget int) (content []byte, field, ext string, preview json.RawMessage) {
	cut := func(text string) json.RawMessage {
		short, _ := output.Truncate(text, budget)
		b, _ := plainjson.Marshal(short)
		return b
	}
	var text string
	if json.Unmarshal(result, &text) == nil && !strings.Contains(text, "\x00") {
		return []byte(text), "", ".txt", cut(text)
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(result, &fields) == nil {
		biggest, size := "", 0
		for k, v := range fields {
			if len(v) > size && v[0] == '"' {
				biggest, size = k, len(v)
			}
		}
		if size > 0 && size >= len(result)/2 && json.Unmarshal(fields[biggest], &text) == nil && !strings.Contains(text, "\x00") {
			fields[biggest] = cut(text)
			// The other fields stay whole, unless they are big too.
			if b, err := plainjson.Marshal(fields); err == nil && len(b) <= 2*budget {
				return []byte(text), biggest, ".txt", b
			}
		}
	}
	var indented bytes.Buffer
	json.Indent(&indented, result, "", "  ") // cannot fail: result is valid
	indented.WriteByte('\n')
	return indented.Bytes(), "", ".json", cut(indented.String())
}

// fold splits the lines of data longer than foldWidth, at a character
// boundary, and reports whether it split any.
func fold(data []byte) ([]byte, bool) {
	var out []byte
	copied, start := 0, 0 // data[:copied] is in out; the line began at start
	for i := 0; i < len(data); i++ {
		if data[i] == '\n' {
			start = i + 1
			continue
		}
		if i-start < foldWidth {
			continue
		}
		at := i
		for j := i; j > i-utf8.UTFMax && j > start; j-- {
			if utf8.RuneStart(data[j]) {
				at = j
				break
			}
		}
		if out == nil {
			out = make([]byte, 0, len(data)+len(data)/foldWidth+1)
		}
		out = append(append(out, data[copied:at]...), '\n')
		copied, start = at, at
	}
	if out == nil {
		return data, false
	}
	return append(out, data[copied:]...), true
}

// writeNew writes data to a new file of mode 0600 named base+ext, or
// base-2+ext and so on when that exists (a server that repeats call ids),
// and returns its path.
func writeNew(base, ext string, data []byte) (string, error) {
	path := base + ext
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	for n := 2; errors.Is(err, fs.ErrExist) && n < 100; n++ {
		path = fmt.Sprintf("%s-%d%s", base, n, ext)
		f, err = os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	}
	if errors.Is(err, fs.ErrExist) {
		f, err = os.CreateTemp(filepath.Dir(base), filepath.Base(base)+"-*"+ext)
	}
	if err != nil {
		return "", err
	}
	path = f.Name()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return "", err
	}
	return path, nil
}

// SpillName is the name a call's spilled result file starts with: its
// call id, made safe for a file name.
func SpillName(callID string) string {
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, callID)
	if name == "" || len(name) > 100 {
		name = "call"
	}
	return name
}
