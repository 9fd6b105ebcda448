package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// matches lists the lines m matches in text as "num:content", the way
// search sees them.
func matches(m *matcher, text []byte) []string {
	var got []string
	m.lines(text, func(num int, line []byte, at int) {
		if at >= 0 && !m.re.Match(line[at:]) {
			got = append(got, fmt.Sprintf("bad offset %d in %q", at, line))
		}
		got = append(got, fmt.Sprintf("%d:%s", num, line))
	})
	return got
}

// reference lists the lines re matches, one at a time, the slow and
// obvious way.
func reference(re *regexp.Regexp, text []byte) []string {
	var want []string
	if len(text) == 0 {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
	for i, line := range lines {
		line = strings.TrimSuffix(line, "\r")
		if re.MatchString(line) {
			want = append(want, fmt.Sprintf("%d:%s", i+1, line))
		}
	}
	return want
}

func TestLines(t *testing.T) {
	tests := []struct {
		pattern    string
		ignoreCase bool
		text       string
		want       []string
	}{
		{"foo", false, "foo\nbar\nfoo bar\n", []string{"1:foo", "3:foo bar"}},
		{"foo", false, "no match\n", nil},
		{"foo", false, "", nil},
		{"foo", false, "last line\nhas foo", []string{"2:has foo"}},
		{"^$", false, "a\n\nb\n", []string{"2:"}},
		{"^", false, "a\nb\n", []string{"1:a", "2:b"}}, // a final newline starts no line
		{"foo$", false, "foo\r\nfoo \r\n", []string{"1:foo"}},
		{`a\nb`, false, "a\nb\n", nil}, // lines hold no newline
		{`\r`, false, "a\r\nb\rc\n", []string{"2:b\rc"}},
		{"x+y", false, "xxy\nyx\nxyy\n", []string{"1:xxy", "3:xyy"}},
		{`func \w+\(ctx`, false, "func a(ctx)\nfunc (ctx)\n", []string{"1:func a(ctx)"}},
		{"ERROR", true, "error\nError\nerr\n", []string{"1:error", "2:Error"}},
		{"(?i)error", false, "ERROR\n", []string{"1:ERROR"}},
		{"kelvin", true, "\u212Aelvin\nKELVIN\nkelvi\n", []string{"1:\u212Aelvin", "2:KELVIN"}},
		{"straße", true, "STRASSE\nstraSSe\nstraße\nſtraße\n", []string{"3:straße", "4:ſtraße"}},
		{"é", false, "café\ncafe\n", []string{"1:café"}},
		{"\uFFFD", false, "a\xffb\nab\n", []string{"1:a\xffb"}},
		{"a.c", false, "abc\na\xffc\nac\n", []string{"1:abc", "2:a\xffc"}},
		{"foo|bar", false, "bar\nbaz\nfoo\n", []string{"1:bar", "3:foo"}},
		{"TODO|FIXME", false, "FIXME a\nTODO b\nTODO FIXME c\nnone\n", []string{"1:FIXME a", "2:TODO b", "3:TODO FIXME c"}},
		{"ab|b", false, "xab\nb\nc\n", []string{"1:xab", "2:b"}},
		{"(?m)^b", false, "ab\nba\n", []string{"2:ba"}},
		{`\bgo\b`, false, "go\ngolang\nlet's go\n", []string{"1:go", "3:let's go"}},
	}
	for _, tt := range tests {
		m, err := newMatcher(tt.pattern, tt.ignoreCase)
		if err != nil {
			t.Fatalf("%q: %v", tt.pattern, err)
		}
		if diff := cmp.Diff(tt.want, matches(m, []byte(tt.text))); diff != "" {
			t.Errorf("%q (ignore case %v) in %q (-want +got):\n%s", tt.pattern, tt.ignoreCase, tt.text, diff)
		}
	}
}

func TestRequiredLiterals(t *testing.T) {
	tests := []struct {
		pattern    string
		ignoreCase bool
		lits       []string // in upper case when ignoring case
		exact      bool
	}{
		{"errors.New", false, []string{"errors"}, false},
		{`errors\.New`, false, []string{"errors.New"}, true},
		{`func \w+\(ctx context\.Context`, false, []string{"(ctx context.Context"}, false},
		{"(foo)+bar", false, []string{"foo"}, false},
		{"a{2,}bcd", false, []string{"bcd"}, false},
		{"x*", false, nil, false},
		{"TODO|FIXME", false, []string{"TODO", "FIXME"}, true},
		{"TODO|FIXME|x*", false, nil, false},
		{"(TODO|FIXME): fix", false, []string{": fix"}, false},
		{"(TODO|FIXME)d", false, []string{"TODO", "FIXME"}, false},
		{"a|b|c|d|e|f|g|h|i", false, nil, false}, // a character class
		{"aa|bb|cc|dd|ee|ff|gg|hh|ii", false, nil, false},
		{"TODO", true, []string{"TODO"}, true},
		{"todo|fixme", true, []string{"TODO", "FIXME"}, true},
		{"(?i)foo(?-i)Quux", false, []string{"Quux"}, false},
		{"é", false, []string{"é"}, true},
		{"ßs", true, nil, false}, // no byte searchable in every case
		{"ab|ßs", true, nil, false},
		{"line\n", false, []string{"line\n"}, false},
	}
	for _, tt := range tests {
		m, err := newMatcher(tt.pattern, tt.ignoreCase)
		if err != nil {
			t.Fatalf("%q: %v", tt.pattern, err)
		}
		var lits []string
		for _, l := range m.lits {
			lits = append(lits, string(l.text))
		}
		if !cmp.Equal(lits, tt.lits) || m.exact != tt.exact {
			t.Errorf("%q: literals %q exact %v, want %q %v", tt.pattern, lits, m.exact, tt.lits, tt.exact)
		}
	}
}

func TestFormat(t *testing.T) {
	long := strings.Repeat("a", 1000) + "MATCH" + strings.Repeat("b", 1000)
	tests := []struct {
		line string
		at   int
		want string
	}{
		{"short", 0, "f.go:7: short"},
		{strings.Repeat("x", maxLine), 0, "f.go:7: " + strings.Repeat("x", maxLine)},
		{long, 1000, "f.go:7: [... 900 bytes omitted ...]" + long[900:1400] + "[... 605 bytes omitted ...]"},
		{long, 10, "f.go:7: " + long[:500] + "[... 1505 bytes omitted ...]"},
		{long, 2004, "f.go:7: [... 1505 bytes omitted ...]" + long[1505:]},
		// A window never splits a character.
		{strings.Repeat("é", 600), 600, "f.go:7: [... 500 bytes omitted ...]" + strings.Repeat("é", 250) + "[... 200 bytes omitted ...]"},
		{"bad \xff byte", 0, "f.go:7: bad \uFFFD byte"},
	}
	for _, tt := range tests {
		if got := format("f.go", 7, []byte(tt.line), tt.at); got != tt.want {
			t.Errorf("format(%.20q..., %d) =\n%q, want\n%q", tt.line, tt.at, got, tt.want)
		}
	}
}

// FuzzLines checks the fast paths of line matching against matching every
// line with the regexp: line splitting, CRLF, long lines, invalid UTF-8,
// case folding, literals found by their rarest byte.
func FuzzLines(f *testing.F) {
	seeds := []struct {
		pattern    string
		ignoreCase bool
		text       string
	}{
		{"foo", false, "foo\nbar\r\nfoo bar"},
		{`errors\.New`, false, "x := errors.New(\"a\")\nerrors.Newer\n"},
		{"errors.New", false, "errorsXNew\r\n\r\n"},
		{"NEW", true, "new\nNew\nnEw\n"},
		{"kelvin", true, "\u212Aelvin ſ\n"},
		{"s", true, "ſ\nS\ns\n"},
		{"k+", true, "\u212A\u212Ak\n"},
		{"^$", false, "\n\n\r\n"},
		{"a$", false, "a\r\na\r\r\n"},
		{"x", false, strings.Repeat("x", 5000) + "\n" + strings.Repeat("y", 5000)},
		{"\uFFFD", false, "\xff\xfe\n\xef\xbf\xbd\n"},
		{"é", true, "É\xc3\n\xc3\xa9\n"},
		{"[a-z]+[0-9]{2}", false, "ab12\nAB12\n"},
		{"a\x00b", false, "a\x00b\n"},
		{"TODO|FIXME|XXX", false, "XXX FIXME\nTODO\n"},
		{"(?i)ab|ſb", false, "AB\nsb\nſB\n"},
		{"$", false, "x\r\r\nx\r"},
		{`\w+_\w+_\w+`, false, "a_b_c\n_a_b\r\na_é_c\n"},
		{`\b[A-Z]\B`, false, "A\nAb\n\xffAb\n"},
	}
	for _, s := range seeds {
		f.Add(s.pattern, s.ignoreCase, []byte(s.text))
	}
	f.Fuzz(func(t *testing.T, pattern string, ignoreCase bool, text []byte) {
		m, err := newMatcher(pattern, ignoreCase)
		if err != nil {
			return
		}
		want := reference(m.re, text)
		got := matches(m, text)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q (ignore case %v) in %q (-want +got):\n%s", pattern, ignoreCase, text, diff)
		}
		// The automaton alone over the whole text, whether or not the
		// pattern has literals, its table emptied at every step.
		if diff := cmp.Diff(want, dfaLines(unlimited(m, 2), text)); diff != "" {
			t.Errorf("%q (ignore case %v) in %q, the automaton alone (-want +got):\n%s", pattern, ignoreCase, text, diff)
		}
		m.lines(text, func(num int, line []byte, at int) {
			if at < 0 {
				at = m.re.FindIndex(line)[0]
			}
			out := format("f", num, line, at)
			// At most the window, each byte of it perhaps replaced by a
			// 3-byte U+FFFD, two markers and the prefix.
			if !utf8.ValidString(out) || len(out) > 3*maxLine+2*len("[... 1234567890 bytes omitted ...]")+len("f:1234567890: ") {
				t.Errorf("format(%q, %d) = %q: invalid UTF-8 or too long", line, at, out)
			}
			if len(line) <= maxLine && utf8.Valid(line) && out != fmt.Sprintf("f:%d: %s", num, line) {
				t.Errorf("format changed a short valid line %q into %q", line, out)
			}
		})
	})
}
