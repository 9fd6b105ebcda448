// Package prompt turns what the user gives ikigai into the text of a
// prompt: the words of the command line, text piped on stdin, or both, and
// the lines of a script fed to the plain line mode.
package prompt

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"
)

// Limits on piped text.
const (
	// MaxStdin is the most stdin may hold when it is the whole prompt, or
	// one line of the plain mode.
	MaxStdin = 8 << 20
	// MaxAttached is the most piped text a prompt given on the command
	// line takes along (git diff | ikigai -p "review this").
	MaxAttached = 1 << 20
)

// Input is where a one-shot prompt comes from.
type Input struct {
	// Args is the prompt given on the command line; "" for none.
	Args string
	// Stdin is read unless it is a terminal.
	Stdin           io.Reader
	StdinIsTerminal bool
}

// Read returns the prompt in: the command line's, followed by what was
// piped on stdin, if anything, in a fenced block; or, without one, all of
// stdin. Its errors are the user's to fix: no prompt anywhere, or too much.
func Read(in Input) (string, error) {
	piped := !in.StdinIsTerminal && in.Stdin != nil
	if in.Args == "" && !piped {
		return "", errors.New(`ikigai -p needs a prompt: ikigai -p "PROMPT", or the prompt on stdin`)
	}
	var data []byte
	if piped {
		limit := MaxStdin
		if in.Args != "" {
			limit = MaxAttached
		}
		var err error
		data, err = io.ReadAll(io.LimitReader(in.Stdin, int64(limit)+1))
		switch {
		case err != nil:
			return "", fmt.Errorf("reading the prompt from stdin: %w", err)
		case len(data) > limit && in.Args != "":
			return "", fmt.Errorf("the text piped on stdin is larger than %d MiB; pipe less, or save it to a file and name the file in the prompt", limit>>20)
		case len(data) > limit:
			return "", fmt.Errorf("the prompt on stdin is larger than %d MiB", limit>>20)
		}
	}
	text := strings.TrimSpace(strings.ToValidUTF8(string(data), "\uFFFD"))
	switch {
	case in.Args == "" && text == "":
		return "", errors.New("ikigai -p: the prompt on stdin is empty")
	case in.Args == "":
		return text, nil
	case text == "":
		return in.Args, nil
	}
	return in.Args + "\n\n" + Fenced(text), nil
}

// Fenced puts text in a Markdown code block whose fence is longer than any
// run of backticks in it, so that nothing in the text can close the block.
func Fenced(text string) string {
	longest, run := 0, 0
	for i := 0; i < len(text); i++ {
		if text[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + "\n" + text + "\n" + fence
}

// Lines yields first, if it is not empty, then each line of r, as the
// plain mode takes them: one prompt or command a line, invalid UTF-8
// replaced. A line longer than MaxStdin ends it with an error.
func Lines(first string, r io.Reader) iter.Seq2[string, error] {
	return func(yield func(string, error) bool) {
		if first != "" && !yield(first, nil) {
			return
		}
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, MaxStdin)
		for sc.Scan() {
			if !yield(string(bytes.ToValidUTF8(sc.Bytes(), []byte("\uFFFD"))), nil) {
				return
			}
		}
		if err := sc.Err(); err != nil {
			yield("", err)
		}
	}
}
