package output_test

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ikigai-tools/ikigai/toolsdk/output"
)

// HeadTail keeps both ends of an output too big to return whole.
func ExampleHeadTail() {
	out := output.NewHeadTail(16)
	for i := range 1000 {
		fmt.Fprintf(out, "%d\n", i)
	}
	fmt.Printf("%q\n", out.String())
	// Output: "0\n1\n2\n3\n\n[... 3874 bytes omitted ...]\n998\n999\n"
}

func ExampleTruncate() {
	log := strings.Repeat("step ok\n", 100) + "FAILED: disk full\n"
	short, cut := output.Truncate(log, 60)
	fmt.Println(cut)
	fmt.Println(short)
	// Output:
	// true
	// step ok
	// step ok
	// step ok
	// step o
	// [... 758 bytes omitted ...]
	//  ok
	// step ok
	// FAILED: disk full
}

// A listing of whole lines, as many as fit, and how many that is.
func ExampleJoinLines() {
	paths := []string{"cmd/main.go", "internal/a.go", "internal/b.go"}
	text, n := output.JoinLines(slices.Values(paths), 30)
	fmt.Printf("%q, %d of %d listed\n", text, n, len(paths))
	// Output: "cmd/main.go\ninternal/a.go", 2 of 3 listed
}
