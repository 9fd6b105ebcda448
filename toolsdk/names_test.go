package toolsdk_test

import (
	"strings"
	"testing"

	"github.com/ikigai-tools/ikigai/toolsdk"
)

func TestToolName(t *testing.T) {
	tests := []struct {
		file string
		name string
		ok   bool
	}{
		{"file-read-tool", "file_read", true},
		{"bash-tool", "bash", true},
		{"my_tool-tool", "my_tool", true},
		{"a--b-tool", "a__b", true},
		{"x.y-tool", "x.y", true}, // named like a tool; ValidName refuses the name
		{"-tool", "", false},
		{"tool", "", false},
		{"bash", "", false},
		{"bash-tool.sh", "", false},
	}
	for _, tt := range tests {
		name, ok := toolsdk.ToolName(tt.file)
		if name != tt.name || ok != tt.ok {
			t.Errorf("ToolName(%q) = %q, %v; want %q, %v", tt.file, name, ok, tt.name, tt.ok)
		}
		if ok {
			if back, _ := toolsdk.ToolName(toolsdk.FileName(name)); back != name {
				t.Errorf("ToolName(FileName(%q)) = %q", name, back)
			}
		}
	}
}

func TestFileName(t *testing.T) {
	for name, want := range map[string]string{"file_read": "file-read-tool", "bash": "bash-tool", "Get_Weather": "Get-Weather-tool"} {
		if got := toolsdk.FileName(name); got != want {
			t.Errorf("FileName(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestValidName(t *testing.T) {
	for name, want := range map[string]bool{
		"file_read":             true,
		"A1_b2":                 true,
		strings.Repeat("a", 64): true,
		strings.Repeat("a", 65): false,
		"":                      false,
		"file-read":             false,
		"x.y":                   false,
		"é":                     false,
		"a b":                   false,
	} {
		if got := toolsdk.ValidName(name); got != want {
			t.Errorf("ValidName(%q) = %v, want %v", name, got, want)
		}
	}
}
