package execute

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
