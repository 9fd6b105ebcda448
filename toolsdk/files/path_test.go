package files

import (
	"strings"
	"testing"

	"github.com/ikigai-tools/ikigai/toolsdk"
)

func TestCheckPath(t *testing.T) {
	tests := []struct {
		path string
		want string // "" when valid
	}{
		{"a.txt", ""},
		{"/etc/passwd", ""},
		{"./a/b", ""},
		{"a..b/..c/d..", ""},
		{strings.Repeat("a", MaxPathLen), ""},
		{"", "Error: reading file '': path is empty"},
		{"..", "Error: reading file '..': path contains a '..' component"},
		{"a/../b", "Error: reading file 'a/../b': path contains a '..' component"},
		{"/tmp/..", "Error: reading file '/tmp/..': path contains a '..' component"},
		{"a\x00b", "Error: reading file 'a\x00b': path contains a NUL byte"},
		{strings.Repeat("a", MaxPathLen+1), "Error: reading file '" + strings.Repeat("a", 64) + "...': path is longer than 4096 bytes"},
	}
	for _, tt := range tests {
		err := CheckPath("reading file", tt.path)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("CheckPath(%q) = %v, want nil", tt.path, err)
		case tt.want != "" && err == nil:
			t.Errorf("CheckPath(%q) = nil, want %q", tt.path, tt.want)
		case tt.want != "":
			e := err.(*toolsdk.Error)
			if e.Code != "INVALID_PATH" || e.Error() != tt.want {
				t.Errorf("CheckPath(%q) = %s %q, want INVALID_PATH %q", tt.path, e.Code, e.Error(), tt.want)
			}
		}
	}
}
