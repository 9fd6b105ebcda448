package repl_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ikigai-tools/ikigai/internal/agent"
	"github.com/ikigai-tools/ikigai/internal/approval"
	"github.com/ikigai-tools/ikigai/internal/discovery"
	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/provider/anthropic"
	"github.com/ikigai-tools/ikigai/internal/provider/pick"
	"github.com/ikigai-tools/ikigai/internal/provider/providertest"
	"github.com/ikigai-tools/ikigai/internal/registry"
	"github.com/ikigai-tools/ikigai/internal/repl"
	"github.com/ikigai-tools/ikigai/internal/session"
	"github.com/ikigai-tools/ikigai/internal/skills"
)

// backend is a Backend over real tools in a directory and the fake model
// API.
type backend struct {
	dirs  discovery.Dirs
	reg   *registry.Registry
	srv   *providertest.Server
	model string
}

func (b *backend) Tools(context.Context) (*registry.Registry, error) { return b.reg, nil }

func (b *backend) Refresh(ctx context.Context) (*registry.Registry, error) {
	b.reg = discovery.Scan(ctx, b.dirs)
	return b.reg, nil
}

func (b *backend) Model(context.Context) (*pick.Choice, error) {
	p, err := anthropic.New(anthropic.Config{APIKey: "test", BaseURL: b.srv.AnthropicURL(), Retry: provider.Retry{Attempts: 1}})
	return &pick.Choice{Provider: p, Name: "anthropic", Model: b.model, Reason: "the test says so"}, err
}

func (b *backend) SetModel(ctx context.Context, name string) (*pick.Choice, error) {
	b.model = name
	return b.Model(ctx)
}

func (b *backend) Choose(ctx context.Context, name string) (*pick.Choice, error) {
	c, err := b.Model(ctx)
	if c != nil {
		c.Model = name
	}
	return c, err
}

func (b *backend) Agent(ctx context.Context, asker approval.Asker, observe func(agent.Event)) (*agent.Agent, error) {
	c, err := b.Model(ctx)
	if err != nil {
		return nil, err
	}
	return &agent.Agent{
		Provider: c.Provider,
		Model:    c.Model,
		Tools:    b.Tools,
		Policy:   &approval.Policy{Mode: approval.Ask, Asker: asker},
		Timeout:  func(string) time.Duration { return 10 * time.Second },
		Observe:  observe,
	}, nil
}

const echoTool = `#!/bin/sh
if [ "$1" = --schema ]; then echo '{"name":"echo","description":"Echo","annotations":{"readOnlyHint":true}}'; exit 0; fi
cat
`

type fixture struct {
	shell *repl.Shell
	be    *backend
	tools string // the user tools directory
	store *session.Store
}

func newFixture(t *testing.T, replies ...providertest.Reply) *fixture {
	t.Helper()
	root := t.TempDir()
	f := &fixture{tools: filepath.Join(root, "tools"), store: session.At(filepath.Join(root, "sessions"))}
	os.MkdirAll(f.tools, 0o755)
	os.WriteFile(filepath.Join(f.tools, "echo-tool"), []byte(echoTool), 0o755)
	srv := providertest.NewServer(providertest.Transcript{Replies: replies})
	t.Cleanup(srv.Close)
	f.be = &backend{dirs: discovery.Dirs{User: f.tools, SchemaTimeout: 10 * time.Second}, srv: srv, model: "claude-test"}
	f.be.Refresh(context.Background())
	skillDir := filepath.Join(root, "skills")
	os.MkdirAll(skillDir, 0o755)
	os.WriteFile(filepath.Join(skillDir, "go.md"), []byte("# Writing Go\n\nUse gofmt.\n"), 0o644)
	f.shell = &repl.Shell{Backend: f.be, Dir: "/project", Sessions: f.store, Skills: skills.Dirs{User: skillDir}}
	return f
}

func (f *fixture) run(t *testing.T, line string) repl.Result {
	t.Helper()
	res, err := f.shell.Handle(context.Background(), line)
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return res
}

func TestToolCommands(t *testing.T) {
	f := newFixture(t)
	echo := filepath.Join(f.tools, "echo-tool")
	if got, want := f.run(t, "/tool").Output, "Available tools:\n  echo ("+echo+")"; got != want {
		t.Errorf("/tool:\n%s\nwant\n%s", got, want)
	}
	want := "Tool: echo\nPath: " + echo + "\nSchema:\n{\n  \"name\": \"echo\",\n  \"description\": \"Echo\",\n  \"annotations\": {\n    \"readOnlyHint\": true\n  }\n}"
	if got := f.run(t, "/tool echo").Output; got != want {
		t.Errorf("/tool echo:\n%s\nwant\n%s", got, want)
	}
	if got := f.run(t, "/tool nosuch").Output; got != "no tool named 'nosuch' (ikigai tools lists them)" {
		t.Errorf("/tool nosuch: %s", got)
	}

	// A new tool and a broken one appear after /refresh.
	os.WriteFile(filepath.Join(f.tools, "two-tool"), []byte("#!/bin/sh\necho '{\"name\":\"two\",\"description\":\"d\"}'\n"), 0o755)
	os.WriteFile(filepath.Join(f.tools, "bad-tool"), []byte("#!/bin/sh\necho nonsense\n"), 0o755)
	got := f.run(t, "/refresh").Output
	want = "Debug: tool 'bad' schema failed (schema is not JSON)\nTool registry refreshed: 2 tools loaded"
	if got != want {
		t.Errorf("/refresh:\n%s\nwant\n%s", got, want)
	}
	if got := f.run(t, "/tool").Output; !strings.Contains(got, "\n  two (") || !strings.Contains(got, "\nFailed (not offered to the model):\n  bad (") {
		t.Errorf("/tool after refresh:\n%s", got)
	}
}

func TestParsing(t *testing.T) {
	f := newFixture(t, providertest.Reply{Text: "A path."})
	want := "Unknown command: /nosuch\nCommands: /help /tool /refresh /model /approval /reasoning /clear /context /compact /skills /load /stats /jobs /rewind /diff /exit"
	if got := f.run(t, "/nosuch arg").Output; got != want {
		t.Errorf("unknown command: %q", got)
	}
	if res := f.run(t, "  \n "); res.Output != "" || res.Outcome != nil {
		t.Errorf("a blank line did something: %+v", res)
	}
	// A path is a prompt, not a command.
	if res := f.run(t, "/etc/hosts: what is in it?"); res.Outcome == nil || res.Outcome.Text != "A path." {
		t.Errorf("a path was not sent as a prompt: %+v", res)
	}
	if !f.run(t, "/exit").Quit {
		t.Error("/exit does not quit")
	}
	if got := f.run(t, "/help").Output; !strings.Contains(got, "\n  /tool [NAME]        list the tools, or show one's path and schema\n") {
		t.Errorf("/help:\n%s", got)
	}
}

func TestModel(t *testing.T) {
	f := newFixture(t, providertest.Reply{Text: "Hi."})
	if got := f.run(t, "/model"); got.Output != "Model: claude-test (anthropic, the test says so)" || got.Model != "" {
		t.Errorf("/model: %+v", got)
	}
	// The new model is in the result, for the status line.
	if got := f.run(t, "/model claude-other"); got.Output != "Model: claude-other (anthropic, the test says so)" || got.Model != "claude-other" {
		t.Errorf("/model claude-other: %+v", got)
	}
	f.run(t, "hello")
	reqs := f.be.srv.Requests() // /model asked for the models first
	if got := reqs[len(reqs)-1].Body; !strings.Contains(string(got), `"model":"claude-other"`) {
		t.Errorf("the request went to another model: %s", got)
	}
}

// /reasoning shows the setting and changes it for the session's next
// requests.
func TestReasoning(t *testing.T) {
	f := newFixture(t, providertest.Reply{Thinking: "Short.", Text: "Hi."})
	f.shell.Reasoning = provider.ReasoningLow
	if got := f.run(t, "/reasoning").Output; got != "Reasoning: low" {
		t.Errorf("/reasoning: %q", got)
	}
	if got := f.run(t, "/reasoning max").Output; got != `Error: reasoning "max": want off, low, medium or high` {
		t.Errorf("/reasoning max: %q", got)
	}
	if got := f.run(t, "/reasoning high").Output; got != "Reasoning: high" {
		t.Errorf("/reasoning high: %q", got)
	}
	if got := f.shell.Status("m").Reasoning; got != "high" {
		t.Errorf("the status line shows reasoning %q, want high", got)
	}
	res := f.run(t, "hello")
	body := string(f.be.srv.Requests()[0].Body)
	if !strings.Contains(body, `"thinking":{"budget_tokens":31999,"type":"enabled"}`) || res.Outcome.Text != "Hi." {
		t.Errorf("the request asked %s; answer %q", body, res.Outcome.Text)
	}
	msgs := f.shell.Conversation()
	if th, ok := msgs[1].Parts[0].(provider.Thinking); !ok || th.Text != "Short." {
		t.Errorf("the answer kept %+v, want its thinking first", msgs[1].Parts)
	}
}

// A conversation is saved as it goes, a skill joins it, /clear starts a
// new one, and a saved one can be resumed.
func TestSessionsAndSkills(t *testing.T) {
	f := newFixture(t,
		providertest.Reply{ToolCalls: []providertest.Call{{ID: "toolu_1", Name: "echo", Arguments: json.RawMessage(`{"x":1}`)}}},
		providertest.Reply{Text: "Echoed."},
		providertest.Reply{Text: "Still here."},
		providertest.Reply{Text: "Fresh start."},
	)
	if got := f.run(t, "/skills").Output; got != "Skills (/load NAME adds one to the conversation):\n  go  user  Writing Go" {
		t.Errorf("/skills:\n%s", got)
	}
	if got := f.run(t, "/load go").Output; got != "Skill loaded: go" {
		t.Errorf("/load go: %s", got)
	}
	if got := f.run(t, "/load nosuch").Output; got != "No skill named 'nosuch' (/skills lists them)" {
		t.Errorf("/load nosuch: %s", got)
	}
	if res := f.run(t, "echo something"); res.Outcome.Text != "Echoed." {
		t.Errorf("outcome %+v", res.Outcome)
	}
	id := f.shell.SessionID()
	saved, err := f.store.Open(id)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(f.shell.Conversation(), saved.Messages); diff != "" {
		t.Errorf("saved conversation (-live +saved):\n%s", diff)
	}
	if len(saved.Messages) != 5 || !strings.Contains(saved.Messages[0].Text(), "Use gofmt.") {
		t.Errorf("saved %d messages, first %q", len(saved.Messages), saved.Messages[0].Text())
	}
	if m := saved.Meta; m.Dir != "/project" || m.Provider != "anthropic" || m.Model != "claude-test" {
		t.Errorf("meta %+v", m)
	}

	// Another shell resumes it once the first is done with it: the next
	// request carries everything.
	g := &repl.Shell{Backend: f.be, Dir: "/project", Sessions: f.store}
	var inUse *session.InUseError
	if err := g.Resume(saved); !errors.As(err, &inUse) {
		t.Fatalf("resumed a session in use: %v", err)
	}
	if err := f.shell.Close(); err != nil {
		t.Fatal(err)
	}
	if err := g.Resume(saved); err != nil {
		t.Fatal(err)
	}
	res, err := g.Handle(context.Background(), "are you there?")
	if err != nil || res.Outcome.Text != "Still here." {
		t.Fatalf("resumed: %+v, %v", res.Outcome, err)
	}
	if g.SessionID() != id {
		t.Errorf("resumed session is %s, want %s", g.SessionID(), id)
	}
	again, _ := f.store.Open(id)
	if len(again.Messages) != 7 {
		t.Errorf("the resumed session has %d messages, want 7", len(again.Messages))
	}

	res, _ = g.Handle(context.Background(), "/clear")
	if res.Output != "Started a new conversation (the last one is saved as "+id+")." {
		t.Errorf("/clear: %s", res.Output)
	}
	if w, err := f.store.Continue(again); err != nil {
		t.Errorf("the session left by /clear is still held: %v", err)
	} else {
		w.Close()
	}
	g.Handle(context.Background(), "new topic")
	if g.SessionID() == id || len(g.Conversation()) != 2 {
		t.Errorf("after /clear: session %s with %d messages", g.SessionID(), len(g.Conversation()))
	}
	if reqs := f.be.srv.Requests(); !strings.Contains(string(reqs[len(reqs)-1].Body), `"messages":[{"content":[{"text":"new topic"`) {
		t.Errorf("the request after /clear carried the old conversation: %s", reqs[len(reqs)-1].Body)
	}
}

// A session that cannot be saved says so once, and where, and the
// conversation goes on: in the result of the line that met it, or at once
// to Warn when that is set, as ikigai -p sets it.
func TestSaveFailure(t *testing.T) {
	f := newFixture(t, providertest.Reply{Text: "One."}, providertest.Reply{Text: "Two."})
	blocker := filepath.Join(t.TempDir(), "file")
	os.WriteFile(blocker, nil, 0o644)
	f.shell.Sessions = session.At(filepath.Join(blocker, "sessions"))
	res := f.run(t, "first")
	want := "Warning: the conversation cannot be saved to " + filepath.Join(blocker, "sessions", f.shell.SessionID()+".jsonl") + ": not a directory"
	if diff := cmp.Diff([]string{want}, res.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if res := f.run(t, "second"); len(res.Warnings) != 0 || res.Outcome.Text != "Two." {
		t.Errorf("second prompt: %+v", res)
	}

	g := newFixture(t, providertest.Reply{Text: "One."}, providertest.Reply{Text: "Two."})
	g.shell.Sessions = f.shell.Sessions
	var warned []string
	g.shell.Warn = func(w string) { warned = append(warned, w) }
	if _, err := g.shell.Prompt(context.Background(), "first"); err != nil {
		t.Fatal(err)
	}
	res = g.run(t, "second")
	want = "Warning: the conversation cannot be saved to " + filepath.Join(blocker, "sessions", g.shell.SessionID()+".jsonl") + ": not a directory"
	if diff := cmp.Diff([]string{want}, warned); diff != "" || len(res.Warnings) != 0 {
		t.Errorf("warned (-want +got):\n%s\nand in the result %q", diff, res.Warnings)
	}
}

// A prompt the API rejects for good is taken out of the conversation and
// of its file, and the error says how to start afresh: the next prompt
// goes without it, and so does a shell that resumes the session.
func TestRejectedPromptIsTakenOut(t *testing.T) {
	f := newFixture(t,
		providertest.Reply{Text: "One."},
		providertest.Reply{Status: 400, Error: "messages.2.content.0: a document block is too large"},
		providertest.Reply{Text: "Two."},
		providertest.Reply{Status: 400, Error: "messages.4.content.0: a document block is too large"},
	)
	f.run(t, "first")
	_, err := f.shell.Handle(context.Background(), "a huge paste")
	want := "anthropic: request rejected (HTTP 400): messages.2.content.0: a document block is too large\n" +
		"To fix it:\n  1. If the conversation has grown too long for the model, /clear starts a new one (the prompt that failed was not kept)"
	if err == nil || err.Error() != want {
		t.Fatalf("error:\n%v\nwant\n%s", err, want)
	}
	if res := f.run(t, "second"); res.Outcome.Text != "Two." {
		t.Fatalf("second: %+v", res.Outcome)
	}
	body := string(f.be.srv.Requests()[2].Body)
	if strings.Contains(body, "a huge paste") || !strings.Contains(body, `"text":"first"`) || !strings.Contains(body, `"text":"second"`) {
		t.Errorf("the request after the failure: %s", body)
	}
	saved, err := f.store.Open(f.shell.SessionID())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(f.shell.Conversation(), saved.Messages); diff != "" || len(saved.Messages) != 4 {
		t.Errorf("saved conversation (-live +saved):\n%s", diff)
	}

	// Without the commands of the interactive shell (ikigai -p), a
	// resumed conversation is left behind by running without --continue.
	f.shell.Close()
	g := &repl.Shell{Backend: f.be, Dir: "/project", Sessions: f.store}
	if err := g.Resume(saved); err != nil {
		t.Fatal(err)
	}
	_, err = g.Prompt(context.Background(), "another huge paste")
	if err == nil || !strings.HasSuffix(err.Error(), "\n  1. If the conversation has grown too long for the model, leave out --continue and --resume to start a new one (the prompt that failed was not kept)") {
		t.Errorf("error: %v", err)
	}
	if again, _ := f.store.Open(f.shell.SessionID()); len(again.Messages) != 4 {
		t.Errorf("the session holds %d messages after the failure, want 4", len(again.Messages))
	}
}
