package repl_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ikigai-tools/ikigai/internal/commands"
	"github.com/ikigai-tools/ikigai/internal/provider/providertest"
)

const writeTool = `#!/bin/sh
if [ "$1" = --schema ]; then echo '{"name":"write","description":"Writes"}'; exit 0; fi
cat >/dev/null; echo '{"written":true}'
`

// TestCustomCommands: /NAME ARGS runs the command's prompt with the
// arguments put in, with its model and its allowed tools for that turn
// only; /help lists the commands; a built-in's name cannot be taken.
func TestCustomCommands(t *testing.T) {
	f := newFixture(t,
		providertest.Reply{ToolCalls: []providertest.Call{{ID: "w", Name: "write", Arguments: json.RawMessage(`{}`)}}},
		providertest.Reply{Text: "Reviewed."},
		providertest.Reply{ToolCalls: []providertest.Call{{ID: "w2", Name: "write", Arguments: json.RawMessage(`{}`)}}},
		providertest.Reply{Text: "Not allowed."},
	)
	os.WriteFile(filepath.Join(f.tools, "write-tool"), []byte(writeTool), 0o755)
	f.be.Refresh(context.Background())
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "review.md"), []byte("---\ndescription: review a file\nargument-hint: FILE\nmodel: claude-review\nallowed_tools: [write]\n---\nReview $ARGUMENTS for bugs.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "clear.md"), []byte("Clear the air.\n"), 0o644)
	f.shell.Commands = commands.Dirs{User: dir}

	res := f.run(t, "/review src/x.go")
	if res.Outcome == nil || res.Outcome.Text != "Reviewed." {
		t.Fatalf("/review: %+v", res)
	}
	reqs := f.be.srv.Requests()
	var first struct {
		Model    string `json:"model"`
		Messages []struct {
			Content []struct {
				Text    string `json:"text"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"content"`
		} `json:"messages"`
	}
	json.Unmarshal(reqs[0].Body, &first)
	if first.Model != "claude-review" || first.Messages[0].Content[0].Text != "Review src/x.go for bugs." {
		t.Errorf("the command's request: model %q, prompt %q", first.Model, first.Messages[0].Content[0].Text)
	}
	json.Unmarshal(reqs[1].Body, &first)
	if got := first.Messages[2].Content[0].Content[0].Text; got != `{"tool_success":true,"result":{"written":true}}` {
		t.Errorf("the allowed tool was not run: %s", got)
	}

	// The next prompt has neither the model nor the allowed tools.
	f.run(t, "Write it again")
	json.Unmarshal(f.be.srv.Requests()[3].Body, &first)
	if first.Model != "claude-test" || !strings.Contains(first.Messages[6].Content[0].Content[0].Text, `"error_code":"TOOL_DENIED"`) {
		t.Errorf("after the command: model %q, result %s", first.Model, first.Messages[6].Content[0].Content[0].Text)
	}

	help := f.run(t, "/help").Output
	for _, want := range []string{"\nCustom commands:\n", "\n  /review FILE  review a file (user)\n", "\n  /clear        (not used: a built-in command has this name) (user)\n"} {
		if !strings.Contains(help, want) {
			t.Errorf("/help lacks %q:\n%s", want, help)
		}
	}
	if got := f.run(t, "/nosuch").Output; !strings.HasSuffix(got, "/stats /jobs /rewind /diff /exit /review") {
		t.Errorf("unknown command: %s", got)
	}
	if got := f.run(t, "/clear").Output; !strings.HasPrefix(got, "Started a new conversation") {
		t.Errorf("/clear ran the custom command: %s", got)
	}
}
