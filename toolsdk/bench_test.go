package toolsdk_test

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/ikigai-tools/ikigai/toolsdk"
)

// BenchmarkCall measures what toolsdk adds to one call: decoding and
// validating a 1 KiB argument object, and encoding the result.
func BenchmarkCall(b *testing.B) {
	type params struct {
		FilePath   string `json:"file_path"`
		OldString  string `json:"old_string"`
		NewString  string `json:"new_string"`
		ReplaceAll bool   `json:"replace_all,omitempty"`
	}
	type result struct {
		Output       string `json:"output"`
		Replacements int    `json:"replacements"`
	}
	tool := toolsdk.New(toolsdk.Schema{Name: "edit"}, func(ctx context.Context, p params) (result, error) {
		return result{Output: "Replaced 1 occurrence in " + p.FilePath, Replacements: 1}, nil
	})
	text := strings.Repeat("lorem ipsum \"dolor\" sit amet\n", 15) // two of these make about 1 KiB
	input := `{"file_path":"src/internal/agent/loop.go","old_string":` + quote(text) + `,"new_string":` + quote(text) + `,"replace_all":false}`
	if n := len(input); n < 1000 || n > 1100 {
		b.Fatalf("input is %d bytes, want about 1 KiB", n)
	}
	ctx := context.Background()
	b.SetBytes(int64(len(input)))
	for b.Loop() {
		if code := tool.Run(ctx, nil, strings.NewReader(input), io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit status %d", code)
		}
	}
}

func quote(s string) string {
	return `"` + strings.NewReplacer(`"`, `\"`, "\n", `\n`).Replace(s) + `"`
}
