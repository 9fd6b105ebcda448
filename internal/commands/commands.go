// Package commands finds the user's custom commands: Markdown files whose
// body is a prompt, typed in the REPL as /NAME ARGS (or given to ikigai -p).
// NAME.md in ~/.ikigai/commands, or in a trusted project's
// .ikigai/commands, which wins over the user's of the same name. The body
// may hold $ARGUMENTS (all the arguments) and $1 to $9 (each one); a front
// matter may set the command's description, argument hint, model and the
// tools it may run without asking, for the turn it starts.
package commands

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// MaxSize is the largest command file read: its body becomes a prompt.
const MaxSize = 256 << 10

// Source says which directory a command came from.
type Source string

const (
	User    Source = "user"
	Project Source = "project"
)

// Dirs are the directories commands are found in; an empty or missing one
// holds none. Project is set only for a trusted directory.
type Dirs struct {
	User, Project string
}

// A Command is one custom command.
type Command struct {
	Name   string `json:"name"`
	Source Source `json:"source"`
	Path   string `json:"path"`
	// Description says what it does, for /help: the front matter's, else
	// the body's first line.
	Description string `json:"description"`
	// ArgumentHint says what arguments it takes, for /help.
	ArgumentHint string `json:"argument_hint,omitempty"`
	// Model is the model its turn goes to; "" for the conversation's.
	Model string `json:"model,omitempty"`
	// AllowedTools are rules for the calls its turn runs without asking.
	AllowedTools []string `json:"allowed_tools,omitempty"`
	// Body is the prompt, before the arguments are put in.
	Body string `json:"-"`
	// Err says why the file cannot be used; the command is listed, and
	// running it says so.
	Err error `json:"-"`
}

// List returns the commands in d, one per name, sorted by name.
func List(d Dirs) []Command {
	byName := map[string]Command{}
	for _, dir := range []struct {
		path string
		src  Source
	}{{d.User, User}, {d.Project, Project}} {
		for _, c := range listDir(dir.path, dir.src) {
			byName[c.Name] = c // the project's wins
		}
	}
	list := make([]Command, 0, len(byName))
	for _, c := range byName {
		list = append(list, c)
	}
	slices.SortFunc(list, func(a, b Command) int { return strings.Compare(a.Name, b.Name) })
	return list
}

// Find returns the command called name.
func Find(d Dirs, name string) (Command, bool) {
	for _, c := range List(d) {
		if c.Name == name {
			return c, true
		}
	}
	return Command{}, false
}

// ValidName reports whether name can be typed as /NAME: a letter, then
// letters, digits, hyphens and underscores.
func ValidName(name string) bool {
	if name == "" || !isLetter(name[0]) {
		return false
	}
	for i := range len(name) {
		if c := name[i]; !isLetter(c) && !(c >= '0' && c <= '9') && c != '-' && c != '_' {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// listDir returns the commands directly in dir: NAME.md files.
func listDir(dir string, src Source) []Command {
	if dir == "" {
		return nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var list []Command
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".md")
		if !ok || !ValidName(name) {
			continue
		}
		c := Command{Name: name, Source: src, Path: filepath.Join(dir, e.Name())}
		c.Err = c.read()
		if c.Err != nil {
			c.Description = "cannot be used: " + c.Err.Error()
		}
		list = append(list, c)
	}
	return list
}

// read reads the command's file into c.
func (c *Command) read() error {
	f, err := os.Open(c.Path)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	switch {
	case err != nil:
		return err
	case info.IsDir():
		return errors.New("a directory, not a file")
	case !info.Mode().IsRegular():
		return errors.New("not a regular file")
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	switch {
	case err != nil:
		return err
	case len(data) > MaxSize:
		return fmt.Errorf("larger than %d KiB", MaxSize>>10)
	}
	text := strings.ReplaceAll(strings.ToValidUTF8(string(data), "\uFFFD"), "\r\n", "\n")
	front, body, err := splitFront(text)
	c.Body = strings.TrimSpace(body)
	if err == nil {
		err = c.apply(front)
	}
	if c.Description == "" {
		first, _, _ := strings.Cut(c.Body, "\n")
		c.Description = strings.TrimSpace(strings.TrimLeft(first, "#"))
	}
	if err == nil && c.Body == "" {
		err = errors.New("the file holds no prompt")
	}
	return err
}

// splitFront splits a file into its front matter (the lines between a
// first line of --- and the next ---) and its body.
func splitFront(text string) (front []string, body string, err error) {
	rest, ok := strings.CutPrefix(text, "---\n")
	if !ok {
		return nil, text, nil
	}
	lines := strings.Split(rest, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) == "---" {
			return lines[:i], strings.Join(lines[i+1:], "\n"), nil
		}
	}
	return nil, text, errors.New("the front matter has no closing ---")
}

// apply reads the front matter: "key: value" lines, a list as [a, b], as
// "- item" lines below its key, or, for allowed_tools, separated by
// commas as Claude Code writes it. Keys may be written with hyphens, as
// Claude Code's are; unknown keys are left alone.
func (c *Command) apply(front []string) error {
	for i := 0; i < len(front); i++ {
		line := strings.TrimSpace(front[i])
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			return fmt.Errorf("front matter line %d: want key: value, got %q", i+2, line)
		}
		key = strings.ReplaceAll(strings.TrimSpace(key), "-", "_")
		value = strings.TrimSpace(value)
		switch key {
		case "description":
			c.Description = unquote(value)
		case "argument_hint":
			c.ArgumentHint = unquote(value)
		case "model":
			c.Model = unquote(value)
		case "allowed_tools":
			list, err := parseList(value)
			if err != nil {
				return fmt.Errorf("allowed_tools: %v", err)
			}
			for value == "" && i+1 < len(front) {
				item, ok := strings.CutPrefix(strings.TrimSpace(front[i+1]), "- ")
				if !ok {
					break
				}
				list = append(list, unquote(strings.TrimSpace(item)))
				i++
			}
			c.AllowedTools = list
		}
	}
	return nil
}

// parseList reads an inline list: [a, "b c"], or a, b c. A comma inside
// parentheses (a rule's pattern) does not split.
func parseList(value string) ([]string, error) {
	if strings.HasPrefix(value, "[") {
		inner, ok := strings.CutSuffix(value[1:], "]")
		if !ok {
			return nil, errors.New("a list that starts with [ ends with ]")
		}
		value = inner
	}
	var list []string
	depth, start := 0, 0
	for i := 0; i <= len(value); i++ {
		if i < len(value) {
			switch value[i] {
			case '(':
				depth++
			case ')':
				depth--
			}
			if value[i] != ',' || depth > 0 {
				continue
			}
		}
		if item := unquote(strings.TrimSpace(value[start:i])); item != "" {
			list = append(list, item)
		}
		start = i + 1
	}
	return list, nil
}

// unquote removes the quotes around a YAML scalar.
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}

// Expand returns the prompt the command makes of args: $ARGUMENTS becomes
// args, $1 to $9 its words (a quoted string is one word; a missing word
// is empty). A body that uses neither gets the arguments appended, so that
// they are not lost.
func (c Command) Expand(args string) string {
	args = strings.TrimSpace(args)
	words := splitWords(args)
	used := false
	var b strings.Builder
	body := c.Body
	for {
		i := strings.IndexByte(body, '$')
		if i < 0 {
			b.WriteString(body)
			break
		}
		b.WriteString(body[:i])
		body = body[i:]
		switch {
		case strings.HasPrefix(body, "$ARGUMENTS"):
			b.WriteString(args)
			body, used = body[len("$ARGUMENTS"):], true
		case len(body) > 1 && body[1] >= '1' && body[1] <= '9':
			if n := int(body[1] - '1'); n < len(words) {
				b.WriteString(words[n])
			}
			body, used = body[2:], true
		default:
			b.WriteByte('$')
			body = body[1:]
		}
	}
	if !used && args != "" {
		b.WriteString("\n\nARGUMENTS: " + args)
	}
	return b.String()
}

// splitWords splits args at spaces, keeping what is quoted together.
func splitWords(args string) []string {
	var words []string
	var w strings.Builder
	in, quote := false, byte(0)
	for i := range len(args) {
		ch := args[i]
		switch {
		case quote != 0 && ch == quote:
			quote = 0
		case quote != 0:
			w.WriteByte(ch)
		case ch == '"' || ch == '\'':
			quote, in = ch, true
		case ch == ' ' || ch == '\t' || ch == '\n':
			if in {
				words = append(words, w.String())
				w.Reset()
				in = false
			}
		default:
			w.WriteByte(ch)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words
}
