package config

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAddRemoveServer(t *testing.T) {
	stdio := ServerEntry{Command: "github-mcp-server", Args: []string{"stdio"}}
	web := ServerEntry{Type: "http", URL: "https://docs.example/mcp", Headers: map[string]string{"Authorization": "Bearer ${TOKEN}"}}
	for _, tc := range []struct {
		name, in, key, server string
		entry                 ServerEntry
		want                  string
	}{
		{"empty file", "", "mcp_servers", "gh", stdio,
			"{\n  \"mcp_servers\": {\n    \"gh\": {\n      \"command\": \"github-mcp-server\",\n      \"args\": [\n        \"stdio\"\n      ]\n    }\n  }\n}\n"},
		{"no servers yet", "{\n\t\"model\":   \"x\"\n}\n", "mcp_servers", "docs", web,
			"{\n\t\"model\":   \"x\",\n\t\"mcp_servers\": {\n    \"docs\": {\n      \"type\": \"http\",\n      \"url\": \"https://docs.example/mcp\",\n      \"headers\": {\n        \"Authorization\": \"Bearer ${TOKEN}\"\n      }\n    }\n  }\n}\n"},
		{"after the others, under the key the file has", "{\"mcpServers\": {\"a\": {\"command\": \"a\"}},   \"model\":\"x\"}", "mcp_servers", "gh", ServerEntry{Command: "gh"},
			"{\"mcpServers\": {\"a\": {\"command\": \"a\"},\n    \"gh\": {\n      \"command\": \"gh\"\n    }},   \"model\":\"x\"}"},
		{"indented as the file is", "{\n  \"mcpServers\": {\n      \"a\": {\"command\": \"a\"}\n  }\n}", "mcpServers", "b", ServerEntry{Command: "b"},
			"{\n  \"mcpServers\": {\n      \"a\": {\"command\": \"a\"},\n      \"b\": {\n        \"command\": \"b\"\n      }\n  }\n}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := AddServer([]byte(tc.in), tc.key, tc.server, tc.entry)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if _, err := AddServer([]byte(`{"mcp_servers": {"gh": {"command": "x"}}}`), "mcp_servers", "gh", stdio); err == nil || err.Error() != `server "gh" exists already under "mcp_servers"; remove it first` {
		t.Errorf("add twice: %v", err)
	}
}

func TestRemoveServer(t *testing.T) {
	file := "{\n  \"model\": \"m\",\n  \"mcp_servers\": {\n    \"a\": {\"command\": \"a\"},\n    \"b\": {\"command\": \"b\", \"args\": [\"}\"]},\n    \"c\": {\"url\": \"http://c/\"}\n  }\n}\n"
	for name, want := range map[string]string{
		"a": "{\n  \"model\": \"m\",\n  \"mcp_servers\": {\n    \"b\": {\"command\": \"b\", \"args\": [\"}\"]},\n    \"c\": {\"url\": \"http://c/\"}\n  }\n}\n",
		"b": "{\n  \"model\": \"m\",\n  \"mcp_servers\": {\n    \"a\": {\"command\": \"a\"},\n    \"c\": {\"url\": \"http://c/\"}\n  }\n}\n",
		"c": "{\n  \"model\": \"m\",\n  \"mcp_servers\": {\n    \"a\": {\"command\": \"a\"},\n    \"b\": {\"command\": \"b\", \"args\": [\"}\"]}\n  }\n}\n",
	} {
		got, err := RemoveServer([]byte(file), name)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, string(got)); diff != "" {
			t.Errorf("remove %s (-want +got):\n%s", name, diff)
		}
	}
	if got, err := RemoveServer([]byte(`{"mcpServers": {"x": {"command": "x"}}}`), "x"); err != nil || string(got) != `{"mcpServers": {}}` {
		t.Errorf("remove the only one: %s, %v", got, err)
	}
	if _, err := RemoveServer([]byte(`{"mcp_servers": {}}`), "x"); err != ErrNoServer {
		t.Errorf("remove a missing one: %v", err)
	}
}

func TestHasServer(t *testing.T) {
	for _, tc := range []struct {
		file, name string
		want       bool
	}{
		{`{"mcp_servers": {"a": {"command": "a"}}}`, "a", true},
		{`{"mcpServers": {"a": {"command": "a"}}}`, "a", true},
		{`{"mcp_servers": {"a": {"command": "a"}}}`, "b", false},
		{`{"model": "a"}`, "a", false},
		{``, "a", false},
		{`{"mcp_servers": `, "a", false},
	} {
		if got := HasServer([]byte(tc.file), tc.name); got != tc.want {
			t.Errorf("HasServer(%s, %s) = %v, want %v", tc.file, tc.name, got, tc.want)
		}
	}
}
