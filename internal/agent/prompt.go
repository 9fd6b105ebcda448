package agent

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ikigai-tools/ikigai/internal/instructions"
	"github.com/ikigai-tools/ikigai/internal/registry"
)

// SystemPrompt returns the default system prompt for a session in dir
// offering the named tools, with the instruction files' guidance
// appended in order.
func SystemPrompt(dir string, tools []string, guidance []instructions.Text) string {
	var b strings.Builder
	fmt.Fprintf(&b, `You are ikigai, a coding agent working in the user's terminal, in the directory %s.

Every tool you have is an external program. You call it with JSON arguments; its answer comes back in an envelope:
{"tool_success": true, "result": ...} when the program ran, where the result may itself be an error such as {"error": "...", "error_code": "FILE_NOT_FOUND"};
{"tool_success": false, "error": "...", "error_code": "TOOL_TIMEOUT"} when the program itself failed, timed out, or the user refused the call (TOOL_DENIED). Do not retry a refused call unchanged.

How to work:
- Look before you change: read the files involved and search the code rather than guessing.
- Make the change the user asked for and no other. Keep to the project's style.
- After changing code, build or test it when the project makes that possible, and say what you ran.
- Several independent tool calls can go in one answer; read-only ones run at the same time.
- Answer briefly. Show code only when it helps; the user can read the files.
`, dir)
	has := func(name string) bool { return slices.Contains(tools, name) }
	var tips []string
	if has("file_read") {
		tips = append(tips, "Read files with file_read (offset and limit for a window of a long file), not with cat.")
	}
	if has("grep") || has("glob") {
		tips = append(tips, "Find code with grep (regular expressions, .gitignore respected) and files with glob (**/*.go), not with find or grep in bash.")
	}
	if has("file_edit") {
		tips = append(tips, "Change files with file_edit: old_string must match the file exactly, whitespace included, and once, unless replace_all is set; include enough context to make it unique.")
	}
	if has("file_write") {
		tips = append(tips, "Create files, or replace one whole, with file_write.")
	}
	if has("web_search") || has("web_fetch") {
		tips = append(tips, "Look things up with web_search and read pages with web_fetch (offset and limit for a long page).")
	}
	if has("bash") {
		tips = append(tips, "Use bash for builds, tests, git and other commands; give long-running commands a timeout.")
	}
	if len(tips) > 0 {
		b.WriteString("\nTools:\n")
		for _, t := range tips {
			b.WriteString("- " + t + "\n")
		}
	}
	for _, in := range guidance {
		fmt.Fprintf(&b, "\n%s:\n\n%s\n", in.Title, strings.TrimRight(in.Text, "\n"))
	}
	return b.String()
}

// DeferredPrompt is the part of the system prompt that tells the model of
// the deferred tools, which requests leave out until it enables them: one
// line each, its name and the first sentence of its description. "" when
// there are none.
func DeferredPrompt(tools []registry.Definition, search string) string {
	var b strings.Builder
	for _, t := range tools {
		if t.Deferred {
			fmt.Fprintf(&b, "- %s: %s\n", t.Name, FirstSentence(t.Description))
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return fmt.Sprintf("\nMore tools, not loaded yet: call %s with words from what you need (or their names) to load them; "+
		"they stay loaded for the rest of the conversation.\n%s", search, b.String())
}

// FirstSentence is the first sentence of a tool's description, on one
// line and at most 160 characters.
func FirstSentence(desc string) string {
	desc = strings.Join(strings.Fields(desc), " ")
	for i := 0; i < len(desc); i++ {
		if (desc[i] == '.' || desc[i] == '!' || desc[i] == '?') && (i+1 == len(desc) || desc[i+1] == ' ') {
			desc = desc[:i+1]
			break
		}
	}
	if r := []rune(desc); len(r) > 160 {
		desc = string(r[:159]) + "…"
	}
	return desc
}
