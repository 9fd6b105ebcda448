package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/session"
)

func init() {
	register("repl: --continue of a long session", benchContinue)
}

// continueMessages is how long the saved session is.
const continueMessages = 10_000

// benchContinue times ikigai --continue of a saved session of 10,000
// messages, compacted every thousand, in a pseudo-terminal from the
// process's start to the prompt, and its peak RSS, interleaved with
// starting a new session in the same directory.
func benchContinue(b *bench) error {
	dir := filepath.Join(b.work, "continue")
	home, state := filepath.Join(dir, "home"), filepath.Join(dir, "state")
	project := filepath.Join(dir, "project")
	for _, d := range []string{home, project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	size, err := writeLongSession(filepath.Join(state, "ikigai", "sessions"), project)
	if err != nil {
		return err
	}
	env := append(os.Environ(), "HOME="+home, "TERM=xterm-256color", "IKIGAI_PROVIDER=anthropic",
		"ANTHROPIC_API_KEY=unused", "IKIGAI_MODEL=bench-model", "XDG_STATE_HOME="+state)
	ikigai := b.Ikigai()
	runs := b.Runs(20)
	fresh := Sample{Cmd: Cmd{Label: "ikigai (a new session)"}}
	cont := Sample{Cmd: Cmd{Label: fmt.Sprintf("ikigai --continue (%d messages)", continueMessages)}}
	for i := range runs + 1 { // the first round warms the caches up
		for _, s := range []*Sample{&fresh, &cont} {
			argv := []string{ikigai}
			if s == &cont {
				argv = append(argv, "--continue")
			}
			t, rss, err := ptyRun(env, project, argv, "/help for commands")
			if err != nil {
				return err
			}
			if i > 0 {
				s.Times = append(s.Times, t[0])
				s.MaxRSS = max(s.MaxRSS, rss)
			}
		}
	}
	b.Printf("A saved session of %d messages (%.1f MiB on disk), compacted every 1,000, resumed in a pseudo-terminal: "+
		"from starting the process to the prompt on the screen, %d runs each, interleaved with starting a new session.\n\n",
		continueMessages, float64(size)/(1<<20), runs)
	b.Table([]Sample{fresh, cont}, map[string]string{
		cont.Cmd.Label: fmt.Sprintf("< 200 ms: %s; RSS < 100 MiB: %s", Verdict(cont.Median() < 200*time.Millisecond), Verdict(cont.MaxRSS < 100<<10)),
	})
	return nil
}

// writeLongSession writes a session of continueMessages messages held in
// dir: turns of a prompt, a tool call, its result and an answer, compacted
// every thousand messages to a summary and the last turns. It returns the
// file's size.
func writeLongSession(sessions, dir string) (int64, error) {
	w := session.At(sessions).Create(session.Meta{ID: session.NewID(time.Now()), Dir: dir,
		Started: time.Now().UTC(), Provider: "anthropic", Model: "bench-model"})
	defer w.Close()
	var conv []provider.Message
	result, _ := json.Marshal(map[string]any{"tool_success": true, "result": map[string]any{"output": strings.Repeat("a line of output\n", 40), "exit_code": 0}})
	for n := 0; n < continueMessages; n += 4 {
		turn := []provider.Message{
			provider.UserText(fmt.Sprintf("Turn %d: %s", n/4, strings.Repeat("please look at this ", 10))),
			{Role: provider.Assistant, Parts: []provider.Part{provider.Text("Looking."),
				provider.ToolCall{ID: fmt.Sprintf("toolu_%d", n), Name: "bash", Arguments: json.RawMessage(`{"command":"go test ./..."}`)}}},
			{Role: provider.User, Parts: []provider.Part{provider.ToolResult{CallID: fmt.Sprintf("toolu_%d", n), Content: string(result)}}},
			{Role: provider.Assistant, Parts: []provider.Part{provider.Text("The tests pass. " + strings.Repeat("Details follow. ", 20))}},
		}
		for _, m := range turn {
			if err := w.Append(m); err != nil {
				return 0, err
			}
		}
		conv = append(conv, turn...)
		if (n+4)%1000 == 0 {
			kept := conv[len(conv)-8:]
			conv = append([]provider.Message{provider.UserText("[The conversation so far, summarised to save context]\n\nSummary.")}, kept...)
			if err := w.Compact(conv); err != nil {
				return 0, err
			}
		}
	}
	info, err := os.Stat(w.Path())
	if err != nil {
		return 0, err
	}
	return info.Size(), nil
}
