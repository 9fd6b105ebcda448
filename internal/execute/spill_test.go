package execute

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestSpill(t *testing.T) {
	output := strings.Repeat("line\n", 20000) // 100,000 bytes
	encoded, _ := json.Marshal(output)
	cases := []struct {
		name   string
		result string
		// what the file holds, and the field the note names
		file, field, ext string
		// what stays of the result beside the preview
		kept map[string]any
	}{
		{"a command's output", `{"output":` + string(encoded) + `,"exit_code":0}`, output, "output", ".txt", map[string]any{"exit_code": 0.0}},
		{"a string", string(encoded), output, "", ".txt", nil},
		{"many small fields", `[` + strings.Repeat(`{"a":1},`, 10000) + `{"a":1}]`, "", "", ".json", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "results")
			env := Spill(Succeeded(json.RawMessage(tc.result)), DefaultInline, dir, "toolu_1")
			if !env.Success || env.Spilled == nil || len(env.JSON()) > DefaultInline {
				t.Fatalf("Spill gave %d bytes: %.300s", len(env.JSON()), env.JSON())
			}
			s := env.Spilled
			if want := filepath.Join(dir, "toolu_1"+tc.ext); s.Path != want || s.Field != tc.field {
				t.Errorf("spilled to %q (field %q), want %q (field %q)", s.Path, s.Field, want, tc.field)
			}
			data, err := os.ReadFile(s.Path)
			if err != nil {
				t.Fatal(err)
			}
			if tc.file != "" && string(data) != tc.file {
				t.Errorf("the file holds %.100q, want the field's text", data)
			}
			if tc.file == "" && (!json.Valid(data) || strings.Count(string(data), "\n") < 10000) {
				t.Errorf("the file is not the result as indented JSON: %.100q", data)
			}
			if s.Bytes != len(data) || !strings.Contains(s.Note, s.Path) || !strings.Contains(s.Note, "file_read") {
				t.Errorf("spilled = %+v for a file of %d bytes", s, len(data))
			}
			for _, p := range []string{s.Path, dir} {
				fi, err := os.Stat(p)
				if err != nil {
					t.Fatal(err)
				}
				if want := map[bool]os.FileMode{true: 0o700, false: 0o600}[fi.IsDir()]; fi.Mode().Perm() != want {
					t.Errorf("%s has mode %v, want %v", p, fi.Mode().Perm(), want)
				}
			}
			// The preview keeps both ends, and the result's other fields.
			if !strings.Contains(string(env.Result), "omitted") {
				t.Errorf("the preview has no marker: %.300s", env.Result)
			}
			if tc.kept != nil {
				var got map[string]any
				json.Unmarshal(env.Result, &got)
				delete(got, tc.field)
				if diff := cmp.Diff(tc.kept, got); diff != "" {
					t.Errorf("other fields (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestSpillLeaves(t *testing.T) {
	big := json.RawMessage(`"` + strings.Repeat("x", 40000) + `"`)
	dir := t.TempDir()
	for name, env := range map[string]Envelope{
		"a small result": Succeeded(json.RawMessage(`{"output":"hi"}`)),
		"a failure":      Failed(ToolCrashed, "Tool 't' crashed"),
	} {
		if got := Spill(env, DefaultInline, dir, "c"); !cmp.Equal(got, env) {
			t.Errorf("%s: Spill changed it to %s", name, got.JSON())
		}
	}
	if got := Spill(Succeeded(big), 0, dir, "c"); got.Spilled != nil {
		t.Errorf("a budget of 0 spilled: %s", got.JSON())
	}
	// A budget so small that the preview and the note would be bigger
	// than the result: it goes whole, and no file is left.
	small := Succeeded(json.RawMessage(`"` + strings.Repeat("x", 700) + `"`))
	if got := Spill(small, 600, filepath.Join(dir, "tiny"), "c"); !cmp.Equal(got, small) {
		t.Errorf("a result smaller than its preview spilled: %s", got.JSON())
	}
	if _, err := os.Stat(filepath.Join(dir, "tiny", "c.txt")); !os.IsNotExist(err) {
		t.Errorf("the file was left: %v", err)
	}
	// Two calls with one id keep two files.
	a, b := Spill(Succeeded(big), DefaultInline, dir, "c"), Spill(Succeeded(big), DefaultInline, dir, "c")
	if a.Spilled.Path == b.Spilled.Path || b.Spilled.Path != filepath.Join(dir, "c-2.txt") {
		t.Errorf("the same id spilled to %q and %q", a.Spilled.Path, b.Spilled.Path)
	}
}

// A result that cannot be kept still reaches the model cut, with why.
func TestSpillUnwritable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o600)
	big := json.RawMessage(`"` + strings.Repeat("x", 40000) + `"`)
	for dir, why := range map[string]string{"": "no session to keep it in", filepath.Join(file, "results"): "could not be kept: not a directory"} {
		env := Spill(Succeeded(big), DefaultInline, dir, "c")
		if env.Spilled == nil || env.Spilled.Path != "" || !strings.Contains(env.Spilled.Note, why) || len(env.JSON()) > DefaultInline {
			t.Errorf("dir %q: %.400s", dir, env.JSON())
		}
	}
}

func TestSpillName(t *testing.T) {
	for id, want := range map[string]string{
		"toolu_01A-b":   "toolu_01A-b",
		"call/../x y":   "call____x_y",
		"":              "call",
		"héllo":         "h_llo",
		"../../etc/pwd": "______etc_pwd",
	} {
		if got := SpillName(id); got != want {
			t.Errorf("SpillName(%q) = %q, want %q", id, got, want)
		}
	}
}

// What a hostile or clumsy tool returns still reaches the model within the
// budget, and the file it is kept in reads with file_read: no NUL byte
// (which makes it binary) and no line longer than foldWidth.
func TestSpillHostile(t *testing.T) {
	str := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	lines := strings.Repeat("line\n", 200000)
	cases := []struct {
		name, result string
		inline       int
	}{
		{"two big fields", `{"stdout":` + str(strings.Repeat("a\n", 1600000)) + `,"stderr":` + str(strings.Repeat("b\n", 1500000)) + `}`, DefaultInline},
		{"a big array beside the text", `{"output":` + str(lines) + `,"matches":[` + strings.Repeat(`"m",`, 200000) + `"m"]}`, DefaultInline},
		{"a small budget", `{"output":` + str(lines) + `}`, 2048},
		{"a budget near the result", `{"output":` + str(strings.Repeat("x", 40000)) + `}`, 40000},
		{"one line", `{"output":` + str(strings.Repeat("0123456789", 500000)) + `}`, DefaultInline},
		{"one line in JSON", `[` + str(strings.Repeat("0123456789", 500000)) + `]`, DefaultInline},
		{"NUL bytes", `{"output":` + str(strings.Repeat("bin\x00ary\n", 20000)) + `}`, DefaultInline},
		{"invalid UTF-8", `{"output":"` + strings.Repeat("caf\xe9\\n", 20000) + `"}`, DefaultInline},
		{"control characters", `{"output":` + str(strings.Repeat("\x01\x02\x1b[0m", 20000)) + `}`, DefaultInline},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			env := Spill(Succeeded(json.RawMessage(tc.result)), tc.inline, dir, "c")
			if env.Spilled == nil || env.Spilled.Path == "" {
				t.Fatalf("not spilled: %.300s", env.JSON())
			}
			if n := len(env.JSON()); n > tc.inline || !json.Valid(env.JSON()) {
				t.Errorf("the model gets %d bytes, budget %d: %.300s", n, tc.inline, env.JSON())
			}
			data, err := os.ReadFile(env.Spilled.Path)
			if err != nil {
				t.Fatal(err)
			}
			if strings.IndexByte(string(data), 0) >= 0 {
				t.Errorf("the file holds a NUL byte")
			}
			for i, line := range strings.Split(string(data), "\n") {
				if len(line) > foldWidth {
					t.Fatalf("line %d of the file is %d bytes", i+1, len(line))
				}
			}
			if env.Spilled.Bytes != len(data) {
				t.Errorf("bytes = %d, the file has %d", env.Spilled.Bytes, len(data))
			}
		})
	}
}

// A server that repeats one call id many times still gets each result kept.
func TestSpillManySameID(t *testing.T) {
	dir := t.TempDir()
	big := json.RawMessage(`"` + strings.Repeat("x", 40000) + `"`)
	seen := map[string]bool{}
	for range 150 {
		env := Spill(Succeeded(big), DefaultInline, dir, "c")
		if env.Spilled.Path == "" || seen[env.Spilled.Path] {
			t.Fatalf("spilled to %q: %s", env.Spilled.Path, env.Spilled.Note)
		}
		seen[env.Spilled.Path] = true
	}
}

func TestFold(t *testing.T) {
	long := strings.Repeat("é", 5000) // 10,000 bytes
	for _, in := range []string{"short\n", long, "a\n" + long + "\nb\n" + long, strings.Repeat("\xe9", 9000)} {
		out, folded := fold([]byte(in))
		pieces := strings.Split(string(out), "\n")
		for _, p := range pieces {
			if len(p) > foldWidth || utf8.ValidString(in) && !utf8.ValidString(p) {
				t.Errorf("a piece of %d bytes, valid %v", len(p), utf8.ValidString(p))
			}
		}
		if added := len(out) - len(in); added != strings.Count(string(out), "\n")-strings.Count(in, "\n") || folded != (added > 0) {
			t.Errorf("fold added %d bytes, folded %v", added, folded)
		}
		if strings.ReplaceAll(string(out), "\n", "") != strings.ReplaceAll(in, "\n", "") {
			t.Errorf("fold changed the text")
		}
	}
}
