package prompt

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/ikigai-tools/ikigai/internal/lazyregexp"
	"github.com/ikigai-tools/ikigai/toolsdk/files"
)

// Limits on what a mention attaches, as file_read has them.
const (
	// FileBudget is the most of one file's text a mention attaches: whole
	// lines, as file_read returns them.
	FileBudget = 32 << 10
	// MaxFile is the largest file a mention reads.
	MaxFile = 100 << 20
	// MaxListing is the most entries a directory's listing shows.
	MaxListing = 500
	// MaxImages and MaxImageBytes bound the images one prompt mentions:
	// what one request carries (internal/agent), and well within a line
	// of a session file once in base64.
	MaxImages     = 20
	MaxImageBytes = 12 << 20
)

// An Image is a picture a prompt mentions, for a model that reads images.
type Image struct {
	Path      string // as the prompt names it
	MediaType string // image/png, image/jpeg, image/gif or image/webp
	Data      []byte
}

// Expanded is a prompt with what it mentions attached.
type Expanded struct {
	// Text is the prompt as typed, followed by the text of each file or
	// directory it mentions.
	Text string
	// Images are the pictures it mentions, in order.
	Images []Image
}

// mention matches @path or @"a path" at the start of the text or after
// white space, with an optional #L10 or #L10-20 line range.
var mention = lazyregexp.New(`(^|\s)@(?:"([^"\n]+)"|([^\s"]+))`)

// lineRange is a mention's line range suffix.
var lineRange = lazyregexp.New(`#L(\d+)(?:-L?(\d+))?$`)

// Expand attaches what text mentions with @: a file's text (a window of
// it with #L10-20), a directory's listing, an image. Paths are relative to
// dir. A word after @ counts as a path when it is quoted, holds a slash, a
// dot or a leading ~, or names something that exists, so that "@alice"
// stays a word; a path that counts and is missing is an error, returned
// before anything is sent.
func Expand(text, dir string) (Expanded, error) {
	out := Expanded{Text: text}
	var attached []string
	seen := map[string]bool{}
	for _, m := range mention().FindAllStringSubmatch(text, -1) {
		quoted, word := m[2], m[3]
		name := quoted
		if name == "" {
			name = strings.TrimRight(word, ",;:!?)]}'")
			name = strings.TrimSuffix(name, ".") // the end of a sentence
			if name == "" {
				continue
			}
		}
		ref := name
		first, last := 0, 0
		if r := lineRange().FindStringSubmatch(name); r != nil {
			name = strings.TrimSuffix(name, r[0])
			first, _ = strconv.Atoi(r[1])
			last = first
			if r[2] != "" {
				last, _ = strconv.Atoi(r[2])
			}
			if first < 1 || last < first {
				return Expanded{}, fmt.Errorf("@%s: a line range is #LFIRST-LAST, from line 1", ref)
			}
		}
		path := resolve(name, dir)
		info, err := os.Stat(path)
		if err != nil && quoted == "" && !strings.ContainsAny(name, "/.~") {
			continue // a word, not a path
		}
		if seen[ref] {
			continue
		}
		seen[ref] = true
		switch {
		case err != nil:
			return Expanded{}, fmt.Errorf("@%s: %w", name, reason(err))
		case info.IsDir():
			listing, err := listDir(path)
			if err != nil {
				return Expanded{}, fmt.Errorf("@%s: %w", name, reason(err))
			}
			attached = append(attached, fmt.Sprintf("<directory path=%q>\n%s</directory>", name, listing))
		default:
			a, img, err := readMention(path, name, first, last)
			if err != nil {
				return Expanded{}, fmt.Errorf("@%s: %w", name, err)
			}
			if img != nil {
				out.Images = append(out.Images, *img)
				size := 0
				for _, i := range out.Images {
					size += len(i.Data)
				}
				if len(out.Images) > MaxImages || size > MaxImageBytes {
					return Expanded{}, fmt.Errorf("@%s: a prompt takes at most %d images, %d MiB in all; mention fewer", name, MaxImages, MaxImageBytes>>20)
				}
				continue
			}
			attached = append(attached, a)
		}
	}
	if len(attached) > 0 {
		out.Text = text + "\n\n" + strings.Join(attached, "\n\n")
	}
	return out, nil
}

// resolve returns the path name means in dir: absolute, from the home
// directory (~/), or relative to dir.
func resolve(name, dir string) string {
	if rest, ok := strings.CutPrefix(name, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(dir, name)
}

// reason is the part of err a user needs: why, not which path again.
func reason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		if errors.Is(pe.Err, fs.ErrNotExist) {
			return errors.New("no such file or directory")
		}
		return pe.Err
	}
	return err
}

// listDir lists a directory's entries, one a line, directories with a
// trailing slash, at most MaxListing of them.
func listDir(path string) (string, error) {
	entries, err := os.ReadDir(path)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for i, e := range entries {
		if i == MaxListing {
			fmt.Fprintf(&b, "[... %d more entries]\n", len(entries)-MaxListing)
			break
		}
		name := e.Name()
		if e.IsDir() {
			name += "/"
		}
		b.WriteString(name + "\n")
	}
	return b.String(), nil
}

// readMention reads the file at path for a mention: an image whole, or the
// text of lines first to last (0 for all) that fit FileBudget.
func readMention(path, name string, first, last int) (string, *Image, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", nil, reason(err)
	}
	defer f.Close()
	info, err := f.Stat()
	switch {
	case err != nil:
		return "", nil, reason(err)
	case !info.Mode().IsRegular():
		return "", nil, errors.New("not a regular file")
	case info.Size() > MaxFile:
		return "", nil, fmt.Errorf("%d MiB is more than the %d MiB a mention reads", info.Size()>>20, MaxFile>>20)
	}
	head := make([]byte, 8<<10)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", nil, reason(err)
	}
	head = head[:n]
	if t := files.ImageType(head); t != "" {
		if info.Size() > files.MaxImage {
			return "", nil, fmt.Errorf("the image is %d bytes, more than the %d (%d MiB) a model takes", info.Size(), files.MaxImage, files.MaxImage>>20)
		}
		rest, err := io.ReadAll(io.LimitReader(f, files.MaxImage-int64(len(head))+1))
		if err != nil {
			return "", nil, reason(err)
		}
		data := append(head, rest...)
		if why := files.CheckImage(data); why != "" { // it may have grown since
			return "", nil, errors.New(why)
		}
		return "", &Image{Path: name, MediaType: t, Data: data}, nil
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return "", nil, errors.New("a binary file; mention a text file, a directory or an image")
	}
	return readLines(io.MultiReader(bytes.NewReader(head), f), name, first, last)
}

// readLines returns lines first to last (all when 0) of r, as whole lines
// within FileBudget, in a <file> block that says which lines it holds.
func readLines(r io.Reader, name string, first, last int) (string, *Image, error) {
	if first == 0 {
		first = 1
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, MaxFile)
	var body strings.Builder
	line, shown, total := 0, 0, 0
	full := false
	for sc.Scan() {
		line++
		total = line
		if line < first || last > 0 && line > last || full {
			continue
		}
		text := sc.Text()
		if !utf8.ValidString(text) {
			text = strings.ToValidUTF8(text, "\uFFFD")
		}
		if body.Len()+len(text)+1 > FileBudget {
			full = true
			if shown > 0 {
				continue
			}
			// A first line longer than the whole budget: its start.
			cut := FileBudget - 100
			for cut > 0 && !utf8.RuneStart(text[cut]) {
				cut--
			}
			text = fmt.Sprintf("%s [... line %d is %d bytes long; the rest is omitted]", text[:cut], line, len(text))
		}
		body.WriteString(text + "\n")
		shown = line
	}
	if err := sc.Err(); err != nil {
		return "", nil, reason(err)
	}
	if first > total && total > 0 {
		return "", nil, fmt.Errorf("the file has %d lines", total)
	}
	attrs := fmt.Sprintf("path=%q", name)
	if shown > 0 && (first > 1 || shown < total) {
		attrs += fmt.Sprintf(" lines=\"%d-%d\" total_lines=\"%d\"", first, shown, total)
	}
	note := ""
	if last == 0 && shown < total || last > shown {
		note = fmt.Sprintf("[... the rest is not attached: read it with file_read, offset %d]\n", shown+1)
	}
	return fmt.Sprintf("<file %s>\n%s%s</file>", attrs, body.String(), note), nil, nil
}
