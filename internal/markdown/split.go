package markdown

import "strings"

// A Splitter cuts streamed Markdown into blocks, each given out once it is
// complete: a paragraph, list, table or quote at the blank line after it,
// a heading or a rule at the end of its line, a fenced code block at its
// closing fence. What a block holds is never given out twice.
type Splitter struct {
	buf   string // the text not given out yet
	fence string // the open code fence, "" outside one
	lines []string
}

// Write takes the next piece of text and returns the blocks it completed.
func (s *Splitter) Write(text string) []string {
	s.buf += text
	var blocks []string
	for {
		i := strings.IndexByte(s.buf, '\n')
		if i < 0 {
			return blocks
		}
		line := s.buf[:i]
		s.buf = s.buf[i+1:]
		blocks = append(blocks, s.line(line)...)
	}
}

// line takes one whole line, returning the blocks it completes.
func (s *Splitter) line(line string) []string {
	trimmed := strings.TrimSpace(line)
	if s.fence != "" {
		s.lines = append(s.lines, line)
		if strings.HasPrefix(trimmed, s.fence) && strings.Trim(trimmed, s.fence[:1]) == "" {
			s.fence = ""
			return []string{s.take()}
		}
		return nil
	}
	switch {
	case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
		fence := trimmed[:3]
		for strings.HasPrefix(trimmed[len(fence):], fence[:1]) {
			fence += fence[:1]
		}
		before := s.takeAll()
		s.fence = fence
		s.lines = append(s.lines, line)
		return before
	case trimmed == "":
		return s.takeAll()
	case strings.HasPrefix(trimmed, "#") || trimmed == "---" || trimmed == "***" || trimmed == "___":
		before := s.takeAll()
		s.lines = append(s.lines, line)
		return append(before, s.take())
	}
	s.lines = append(s.lines, line)
	return nil
}

// Pending is the text of the block under way, for showing as it is.
func (s *Splitter) Pending() string {
	return strings.Join(append(append([]string{}, s.lines...), s.buf), "\n")
}

// Flush returns the rest, as the last block, when the answer ends.
func (s *Splitter) Flush() (string, bool) {
	if s.buf != "" {
		s.lines = append(s.lines, s.buf)
		s.buf = ""
	}
	s.fence = ""
	b := s.takeAll()
	return strings.Join(b, ""), len(b) > 0
}

// takeAll returns the block under way, if there is one.
func (s *Splitter) takeAll() []string {
	if len(s.lines) == 0 {
		return nil
	}
	return []string{s.take()}
}

func (s *Splitter) take() string {
	b := strings.Join(s.lines, "\n")
	s.lines = nil
	return b
}
