package prompt

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

func TestRead(t *testing.T) {
	tests := []struct {
		name    string
		in      Input
		want    string
		wantErr string
	}{
		{"the arguments", Input{Args: "hi", StdinIsTerminal: true, Stdin: strings.NewReader("ignored")}, "hi", ""},
		{"stdin alone", Input{Stdin: strings.NewReader("  review this\n")}, "review this", ""},
		{"both", Input{Args: "review this", Stdin: strings.NewReader("diff --git a b\n+x\n")},
			"review this\n\n```\ndiff --git a b\n+x\n```", ""},
		{"empty pipe", Input{Args: "hi", Stdin: strings.NewReader(" \n")}, "hi", ""},
		{"nothing at all", Input{StdinIsTerminal: true}, "", `ikigai -p needs a prompt: ikigai -p "PROMPT", or the prompt on stdin`},
		{"empty stdin alone", Input{Stdin: strings.NewReader("\n")}, "", "ikigai -p: the prompt on stdin is empty"},
		{"invalid UTF-8", Input{Args: "x", Stdin: strings.NewReader("a\xffb")}, "x\n\n```\na\uFFFDb\n```", ""},
		{"too much piped with a prompt", Input{Args: "x", Stdin: strings.NewReader(strings.Repeat("a", MaxAttached+1))}, "",
			"the text piped on stdin is larger than 1 MiB; pipe less, or save it to a file and name the file in the prompt"},
		{"just enough piped", Input{Args: "x", Stdin: strings.NewReader(strings.Repeat("a", MaxAttached))},
			"x\n\n```\n" + strings.Repeat("a", MaxAttached) + "\n```", ""},
		{"too much as the prompt", Input{Stdin: strings.NewReader(strings.Repeat("a", MaxStdin+1))}, "", "the prompt on stdin is larger than 8 MiB"},
		{"a read error", Input{Args: "x", Stdin: iotest.ErrReader(errors.New("boom"))}, "", "reading the prompt from stdin: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Read(tt.in)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("Read = %q, %v; want error %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("Read = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestFenced(t *testing.T) {
	for text, want := range map[string]string{
		"plain":           "```\nplain\n```",
		"has ``` inside":  "````\nhas ``` inside\n````",
		"`````x":          "``````\n`````x\n``````",
		"a ` and `` only": "```\na ` and `` only\n```",
	} {
		if got := Fenced(text); got != want {
			t.Errorf("Fenced(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestLines(t *testing.T) {
	collect := func(first string, r io.Reader) ([]string, error) {
		var lines []string
		for l, err := range Lines(first, r) {
			if err != nil {
				return lines, err
			}
			lines = append(lines, l)
		}
		return lines, nil
	}
	got, err := collect("first", strings.NewReader("one\n\ntwo\xff\nthree"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"first", "one", "", "two\uFFFD", "three"}, got); diff != "" {
		t.Errorf("Lines (-want +got):\n%s", diff)
	}
	got, err = collect("", strings.NewReader(strings.Repeat("a", MaxStdin+1)))
	if err == nil || len(got) != 0 {
		t.Errorf("a line over MaxStdin: %q, %v; want an error", got, err)
	}
}
