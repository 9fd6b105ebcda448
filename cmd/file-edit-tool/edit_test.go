package main

import (
	"bytes"
	"testing"
)

// FuzzReplace checks the replacement against bytes.Replace: the same
// occurrences replaced, every other byte kept. Where old_string is absent,
// the hint must not fail, and a whitespace match it reports must be real.
func FuzzReplace(f *testing.F) {
	for _, seed := range []struct {
		data, from, to string
		all            bool
	}{
		{"port = 8080\n", "8080", "9090", false},
		{"a\x00b\r\nc\r\n", "b\r\n", "B\n", false},
		{"aaaaa", "aa", "b", true},
		{"x := 1\ny := 1\n", " := 1", " := 2", true},
		{"no newline at end", "end", "", false},
		{"\xff\xfe\xfd", "\xfe", "é", false},
		{"\tif x {\n\t\ty()\n\t}\n", "if x {\n    y()\n}", "z", false},
		{"one\r\ntwo\r\n", "one\ntwo", "1\n2", false},
		{"done(ctx)\n", "todo(ctx)", "done(ctx)", false},
		{"a b", " ", "_", true},
	} {
		f.Add([]byte(seed.data), []byte(seed.from), []byte(seed.to), seed.all)
	}
	f.Fuzz(func(t *testing.T, data, from, to []byte, all bool) {
		if len(from) == 0 {
			return // INVALID_ARG before any of this runs
		}
		count := bytes.Count(data, from)
		n := count
		if !all {
			n = min(count, 1)
		}
		var got bytes.Buffer
		if err := replace(&got, data, from, to, n); err != nil {
			t.Fatal(err)
		}
		if want := bytes.Replace(data, from, to, n); !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("replace(%q, %q, %q, %d) = %q, want %q", data, from, to, n, got.Bytes(), want)
		}
		if count > 0 {
			return
		}
		hint(data, from, to)
		if first, last, ok := matchIgnoringSpace(data, from); ok {
			lines := bytes.SplitAfter(data, []byte{'\n'})
			if first < 1 || first > last || last > len(lines) {
				t.Fatalf("match at lines %d-%d of %d", first, last, len(lines))
			}
			span := squash(bytes.Join(lines[first-1:last], nil))
			if !bytes.Contains(span, squash(from)) {
				t.Fatalf("lines %d-%d %q do not hold %q but for whitespace", first, last, span, from)
			}
		}
	})
}

func squash(b []byte) []byte {
	return bytes.Join(bytes.FieldsFunc(b, func(r rune) bool { return r < 0x80 && isSpace(byte(r)) }), nil)
}

func TestHint(t *testing.T) {
	const file = "package main\n\nfunc main() {\n\tif err := run(); err != nil {\n\t\tlog.Fatal(err)\n\t}\n}\n"
	tests := []struct {
		name, from, to, want string
	}{
		{"nothing close", "os.Exit(1)", "os.Exit(2)", ""},
		{"indentation", "  log.Fatal(err)", "x", ". Line 5 matches it except for whitespace (indentation, spacing or line endings); read the file and copy the text exactly"},
		{"across lines", "}\n}", "x", ". Lines 6-7 match it except for whitespace (indentation, spacing or line endings); read the file and copy the text exactly"},
		{"blank lines differ", "package main\nfunc", "x", ". Lines 1-3 match it except for whitespace (indentation, spacing or line endings); read the file and copy the text exactly"},
		{"only whitespace", "  \n ", "x", ""},
		{"already applied", "log.Print(err)", "log.Fatal(err)", ". new_string is already there, at line 5: the edit may have been made already"},
		{"too short to tell", "log.Print(err)", "}", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := hint([]byte(file), []byte(tt.from), []byte(tt.to)); got != tt.want {
				t.Errorf("got %q\nwant %q", got, tt.want)
			}
		})
	}
}
