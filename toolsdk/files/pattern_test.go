package files

import (
	"strings"
	"testing"

	"github.com/ikigai-tools/ikigai/toolsdk"
)

func TestCheckPattern(t *testing.T) {
	tests := []struct {
		pattern string
		want    string // "" when valid
	}{
		{"a", ""},
		{strings.Repeat("é", MaxPatternLen), ""},
		{"", "Error: invalid glob '': glob is empty"},
		{strings.Repeat("é", MaxPatternLen+1), "Error: invalid glob '" + strings.Repeat("é", 64) + "...': glob is longer than 1024 characters"},
	}
	for _, tt := range tests {
		err := CheckPattern("glob", tt.pattern)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("CheckPattern(%q) = %v, want nil", tt.pattern, err)
		case tt.want != "" && err == nil:
			t.Errorf("CheckPattern(%q) = nil, want %q", tt.pattern, tt.want)
		case tt.want != "":
			e := err.(*toolsdk.Error)
			if e.Code != "INVALID_PATTERN" || e.Error() != tt.want {
				t.Errorf("CheckPattern(%q) = %s %q, want INVALID_PATTERN %q", tt.pattern, e.Code, e.Error(), tt.want)
			}
		}
	}
}
