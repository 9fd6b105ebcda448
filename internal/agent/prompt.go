package agent

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// MaxAgentsFile is the most of AGENTS.md the system prompt takes, so a huge
// file cannot crowd out the conversation.
const MaxAgentsFile = 64 << 10

// SystemPrompt returns the default system prompt for a session in dir
// offering the named tools, with the project's AGENTS.md appended when dir
// has one.
func SystemPrompt(dir string, tools []string) string {
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
	if has("bash") {
		tips = append(tips, "Use bash for builds, tests, git and other commands; give long-running commands a timeout.")
	}
	if len(tips) > 0 {
		b.WriteString("\nTools:\n")
		for _, t := range tips {
			b.WriteString("- " + t + "\n")
		}
	}
	if agents := readAgentsFile(dir); agents != "" {
		b.WriteString("\nThe project's instructions, from AGENTS.md:\n\n")
		b.WriteString(agents)
		if !strings.HasSuffix(agents, "\n") {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// readAgentsFile returns the start of dir/AGENTS.md, or "" when there is
// none or it cannot be read.
func readAgentsFile(dir string) string {
	f, err := os.Open(filepath.Join(dir, "AGENTS.md"))
	if err != nil {
		return ""
	}
	defer f.Close()
	data, _ := io.ReadAll(io.LimitReader(f, MaxAgentsFile+1))
	more := len(data) > MaxAgentsFile
	text := strings.TrimSpace(strings.ToValidUTF8(string(data[:min(len(data), MaxAgentsFile)]), "\uFFFD"))
	if more {
		text += "\n[AGENTS.md continues; the rest is omitted]"
	}
	return text
}
