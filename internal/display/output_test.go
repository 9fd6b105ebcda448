package display

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ikigai-tools/ikigai/internal/agent"
	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/registry"
	"github.com/ikigai-tools/ikigai/internal/session"
)

func testRegistry() *registry.Registry {
	tool := func(name string, src registry.Source, warnings ...string) registry.Tool {
		return registry.Tool{Entry: registry.Entry{Name: name, Source: src, Path: "/" + string(src) + "/" + name + "-tool"},
			Schema: registry.Schema{Description: "does " + name}, Warnings: warnings}
	}
	bash := tool("bash", registry.Project)
	grep := tool("grep", registry.System, `schema "name" is "x"`)
	return registry.New(
		[]registry.Tool{bash, tool("bash", registry.System), grep},
		[]registry.Failure{{Entry: registry.Entry{Name: "bad", Source: registry.User, Path: "/user/bad-tool"}, Reason: "timeout"}},
		[]registry.Entry{{Name: "deploy", Source: registry.Project, Path: "/project/deploy-tool"}},
	)
}

func TestWriteListing(t *testing.T) {
	var out, errOut bytes.Buffer
	if err := WriteListing(&out, &errOut, testRegistry(), []string{"/a"}, false); err != nil {
		t.Fatal(err)
	}
	want := `bash  project  /project/bash-tool  (shadows system /system/bash-tool)
grep  system   /system/grep-tool

Warnings:
  grep: schema "name" is "x"

Failed (not offered to the model):
  bad  user  /user/bad-tool  timeout

Not run, the directory is not trusted (ikigai trust, or --trust for one run):
  deploy  project  /project/deploy-tool
`
	if diff := cmp.Diff(want, out.String()); diff != "" || errOut.Len() > 0 {
		t.Errorf("WriteListing (-want +got):\n%s\nstderr: %s", diff, errOut.String())
	}

	out.Reset()
	WriteListing(&out, &errOut, registry.New(nil, nil, nil), []string{"/a", "/b"}, false)
	if out.String() != "" || errOut.String() != "No usable tools in /a, /b.\n" {
		t.Errorf("empty: %q, %q", out.String(), errOut.String())
	}
}

func TestNewToolList(t *testing.T) {
	doc, _ := json.Marshal(NewToolList(registry.New(nil, nil, nil)))
	if string(doc) != `{"tools":[],"failed":[],"untrusted":[]}` {
		t.Errorf("empty list: %s", doc)
	}
	l := NewToolList(testRegistry())
	if len(l.Tools) != 2 || l.Tools[0].Description != "does bash" || len(l.Tools[0].Shadows) != 1 || len(l.Failed) != 1 || len(l.Untrusted) != 1 {
		t.Errorf("list: %+v", l)
	}
}

func TestWriteSessionsAndTrust(t *testing.T) {
	var out, errOut bytes.Buffer
	WriteSessions(&out, &errOut, nil, "/state/sessions")
	if out.Len() > 0 || errOut.String() != "No saved conversations in /state/sessions.\n" {
		t.Errorf("no sessions: %q, %q", out.String(), errOut.String())
	}
	out.Reset()
	started := time.Date(2026, 1, 2, 3, 4, 0, 0, time.Local)
	WriteSessions(&out, &errOut, []session.Summary{{Meta: session.Meta{ID: "id1", Started: started, Dir: "/p"}, Messages: 3, Title: "fix it please"}}, "")
	if want := "ID   STARTED           MESSAGES  DIRECTORY  FIRST PROMPT\nid1  2026-01-02 03:04  3         /p         fix it please\n"; out.String() != want {
		t.Errorf("sessions:\n%q\nwant\n%q", out.String(), want)
	}

	out.Reset()
	errOut.Reset()
	WriteTrust(&out, &errOut, nil, nil)
	if out.Len() > 0 || errOut.String() != "No trusted directories, and none declined (ikigai trust DIR trusts one).\n" {
		t.Errorf("no trust: %q, %q", out.String(), errOut.String())
	}
	errOut.Reset()
	WriteTrust(&out, &errOut, []string{"/a", "/b"}, []string{"/c"})
	if want := "/a\n/b\n\nDeclined (not asked about again; ikigai trust DIR trusts one):\n/c\n"; out.String() != want || errOut.Len() > 0 {
		t.Errorf("trust: %q", out.String())
	}
}

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		"plain\ntext":                   "plain\ntext",
		"a\tb":                          "a    b",
		"\x1b[2Jcleared":                "[2Jcleared",
		"\x1b]0;title\x07x":             "]0;titlex",
		"nul\x00byte\x7fdel\u0085c1":    "nulbytedelc1",
		"evil\u202etxt.exe\u202c":       "eviltxt.exe",
		"\u2066isolate\u2069 \u200dzwj": "isolate \u200dzwj",
		"héllo 世界":                      "héllo 世界",
	} {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
	var b bytes.Buffer
	n, err := TerminalWriter(&b).Write([]byte("a\x1b[31mb\n"))
	if n != 8 || err != nil || b.String() != "a[31mb\n" {
		t.Errorf("TerminalWriter wrote %q (%d, %v)", b.String(), n, err)
	}
}

func TestProgress(t *testing.T) {
	var out, errOut bytes.Buffer
	p := NewProgress(&out, &errOut)
	call := provider.ToolCall{ID: "1", Name: "bash", Arguments: json.RawMessage(`{"command":"ls"}`)}
	p.Start("anthropic", "m")
	p.Event(agent.Event{Kind: agent.ResponseDone, Turn: 1, Text: "Looking.\n"})
	p.Event(agent.Event{Kind: agent.ToolCall, Turn: 1, Call: call})
	p.Event(agent.Event{Kind: agent.ToolCall, Turn: 1, Call: call})
	p.Event(agent.Event{Kind: agent.ToolProgress, Turn: 1, Call: call, Text: "1/2 files"})
	p.Event(agent.Event{Kind: agent.ToolResult, Turn: 1, Call: call, Envelope: execute.Succeeded(json.RawMessage(`{"output":"a"}`))})
	p.Event(agent.Event{Kind: agent.Retrying, Err: errors.New("overloaded"), Wait: 1234 * time.Millisecond, Attempt: 2, Attempts: 4})
	p.Event(agent.Event{Kind: agent.ResponseDone, Turn: 2, Text: "Done."})
	p.Finish(&agent.Outcome{Text: "Done.\n"}, 5)
	p.Fail(errors.New("ignored"))
	wantErr := "Looking.\n→ bash: command=\"ls\"\n→ bash: command=\"ls\"\n  bash: 1/2 files\n← bash: ok: a\noverloaded; retrying in 1.2s (attempt 2 of 4)\n"
	if out.String() != "Done.\n" || errOut.String() != wantErr {
		t.Errorf("stdout %q, stderr %q", out.String(), errOut.String())
	}
	out.Reset()
	errOut.Reset()
	p.Finish(&agent.Outcome{LimitReached: true}, 5)
	if out.Len() > 0 || !strings.HasPrefix(errOut.String(), "Stopped after 5 tool turns") {
		t.Errorf("at the limit: %q, %q", out.String(), errOut.String())
	}
}
