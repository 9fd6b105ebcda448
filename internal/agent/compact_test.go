package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/provider/anthropic"
	"github.com/ikigai-tools/ikigai/internal/provider/providertest"
	"github.com/ikigai-tools/ikigai/internal/registry"
)

func text(role provider.Role, s string) provider.Message {
	return provider.Message{Role: role, Parts: []provider.Part{provider.Text(s)}}
}

func call(id string) provider.Message {
	return provider.Message{Role: provider.Assistant, Parts: []provider.Part{provider.ToolCall{ID: id, Name: "x", Arguments: json.RawMessage(`{}`)}}}
}

func result(id, content string) provider.Message {
	return provider.Message{Role: provider.User, Parts: []provider.Part{provider.ToolResult{CallID: id, Content: content}}}
}

func TestSplitPoint(t *testing.T) {
	big := strings.Repeat("x", 4000) // 1000 tokens
	tests := []struct {
		name string
		msgs []provider.Message
		keep int
		want int
	}{
		{"nothing", nil, 100, 0},
		{"one message", []provider.Message{text(provider.User, "hi")}, 100, 0},
		{"keep the last turn", []provider.Message{text(provider.User, big), text(provider.Assistant, big), text(provider.User, "q"), text(provider.Assistant, "a")}, 100, 2},
		{"keep what fits", []provider.Message{text(provider.User, big), text(provider.Assistant, "a"), text(provider.User, "q"), text(provider.Assistant, "a")}, 1500, 1},
		{"never start at results", []provider.Message{text(provider.User, big), call("1"), result("1", big), call("2"), result("2", "small")}, 100, 3},
		{"nothing fits: the shortest tail", []provider.Message{text(provider.User, "q"), call("1"), result("1", big)}, 10, 1},
		{"only results after the first", []provider.Message{text(provider.User, "q"), result("1", "r")}, 100, 0},
	}
	for _, tt := range tests {
		if got := splitPoint(tt.msgs, tt.keep); got != tt.want {
			t.Errorf("%s: splitPoint = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestTokens(t *testing.T) {
	c := &Conversation{}
	c.append(text(provider.User, strings.Repeat("x", 400)))
	if got := c.Tokens(); got != 104 { // (400+16)/4
		t.Errorf("estimated from bytes: %d", got)
	}
	c.append(text(provider.Assistant, "ok"))
	c.report(provider.Usage{InputTokens: 700, OutputTokens: 20}, 500)
	if got := c.Tokens(); got != 220 {
		t.Errorf("reported: %d, want 200 read + 20 written", got)
	}
	c.append(text(provider.User, strings.Repeat("y", 84)))
	if got := c.Tokens(); got != 245 {
		t.Errorf("reported and added: %d", got)
	}
}

func TestTranscript(t *testing.T) {
	msgs := []provider.Message{
		text(provider.User, SummaryPrefix+"earlier"),
		text(provider.User, "fix the build"),
		{Role: provider.Assistant, Parts: []provider.Part{provider.Text("Looking."), provider.ToolCall{ID: "1", Name: "bash", Arguments: json.RawMessage(`{"command": "go build"}`)}}},
		result("1", strings.Repeat("é", 3000)),
		{Role: provider.User, Parts: []provider.Part{provider.Text("and this"), provider.Image{Name: "shot.png", MediaType: "image/png", Data: []byte("x")}}},
		{Role: provider.User, Parts: []provider.Part{provider.ToolResult{CallID: "2", Content: "{}", Images: []provider.Image{{MediaType: "image/gif", Data: []byte("x")}}}}},
	}
	got := transcript(msgs, 1<<20)
	for _, want := range []string{"User attached an image: shot.png", "The result carried an image: image/gif", "<conversation>\nUser: " + SummaryPrefix + "earlier", "User: fix the build", "Assistant: Looking.",
		`Assistant called bash: {"command":"go build"}`, "[... 3952 bytes ...]"} {
		if !strings.Contains(got, want) {
			t.Errorf("transcript lacks %q:\n%s", want, got)
		}
	}
	if !strings.HasPrefix(transcript(msgs, 300), "<conversation>\nUser: "+SummaryPrefix+"earlier\n\n[... ") {
		t.Errorf("over budget, the oldest turns but the first are left out:\n%s", transcript(msgs, 300))
	}
}

// compactAgent is an agent on the fake API with no tools.
func compactAgent(t *testing.T, tr providertest.Transcript, window int) (*Agent, *providertest.Server, *[]Event) {
	t.Helper()
	srv := providertest.NewServer(tr)
	t.Cleanup(srv.Close)
	p, err := anthropic.New(anthropic.Config{APIKey: "test", BaseURL: srv.AnthropicURL(), Retry: provider.Retry{Attempts: 1}})
	if err != nil {
		t.Fatal(err)
	}
	var events []Event
	a := &Agent{
		Provider:      p,
		Model:         "claude-test",
		Tools:         func(context.Context) (*registry.Registry, error) { return registry.New(nil, nil, nil), nil },
		ContextWindow: window,
		Observe:       func(e Event) { events = append(events, e) },
	}
	return a, srv, &events
}

// requestTexts returns each request's messages as role: text lines.
func requestTexts(t *testing.T, srv *providertest.Server) [][]string {
	var out [][]string
	for _, r := range srv.Requests() {
		var body struct {
			System   []struct{ Text string } `json:"system"`
			Messages []struct {
				Role    string `json:"role"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatal(err)
		}
		var lines []string
		for _, m := range body.Messages {
			for _, c := range m.Content {
				lines = append(lines, m.Role+": "+c.Text)
			}
		}
		out = append(out, lines)
	}
	return out
}

// When the next request would pass the threshold, the older part is
// summarised first and the request carries the summary and the recent
// turns.
func TestCompactAtThreshold(t *testing.T) {
	long := strings.Repeat("word ", 1200) // 6,000 bytes, about 1,500 tokens
	a, srv, events := compactAgent(t, providertest.Transcript{Replies: []providertest.Reply{
		{Text: "first answer"},
		{Text: "Goal: test compaction."}, // the summary
		{Text: "second answer"},
		{Text: "third answer"},
	}}, 3000)
	var compactions []int
	conv := &Conversation{OnCompact: func(msgs []provider.Message) { compactions = append(compactions, len(msgs)) }}
	for _, p := range []string{long, long, "third"} {
		if _, err := a.Run(context.Background(), conv, p); err != nil {
			t.Fatal(err)
		}
	}
	reqs := requestTexts(t, srv)
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	summaryReq := reqs[1]
	if len(summaryReq) != 1 || !strings.Contains(summaryReq[0], "User: "+long[:20]) || !strings.Contains(summaryReq[0], "Assistant: first answer") ||
		!strings.Contains(summaryReq[0], "Open tasks") {
		t.Errorf("summary request: %.300q", summaryReq)
	}
	summary := "user: " + SummaryPrefix + "Goal: test compaction."
	if diff := cmp.Diff([]string{summary, "user: " + long}, reqs[2]); diff != "" {
		t.Errorf("request after compaction (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{summary, "user: " + long, "assistant: second answer", "user: third"}, reqs[3]); diff != "" {
		t.Errorf("the next request (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{2}, compactions); diff != "" {
		t.Errorf("compactions (-want +got):\n%s", diff)
	}
	var got *Compaction
	for _, e := range *events {
		if e.Kind == Compacted {
			got = e.Compaction
		}
	}
	if got == nil || got.Before <= 2550 || got.After >= got.Before {
		t.Errorf("compaction event: %+v", got)
	}
}

// A request the API refuses as too long is compacted and sent again once.
func TestCompactOnPromptTooLong(t *testing.T) {
	a, srv, _ := compactAgent(t, providertest.Transcript{Replies: []providertest.Reply{
		{Text: "one"},
		{Status: 400, ErrorType: "invalid_request_error", Error: "prompt is too long: 250000 tokens > 200000 maximum"},
		{Text: "Summary."},
		{Text: "two"},
	}}, 0)
	conv := &Conversation{}
	for _, p := range []string{"first", "second"} {
		if _, err := a.Run(context.Background(), conv, p); err != nil {
			t.Fatal(err)
		}
	}
	reqs := requestTexts(t, srv)
	want := []string{"user: " + SummaryPrefix + "Summary.", "assistant: one", "user: second"}
	if len(reqs) != 4 || cmp.Diff(want, reqs[3]) != "" {
		t.Errorf("requests: %q", reqs)
	}
	if got := conv.Messages[len(conv.Messages)-1].Text(); got != "two" {
		t.Errorf("the answer after the retry: %q", got)
	}
}

// A compacted image is not sent in the summary request (its transcript
// names it), and is gone from the conversation after it.
func TestCompactWithImages(t *testing.T) {
	png := provider.Image{Name: "shot.png", MediaType: "image/png", Data: []byte("\x89PNG\r\n\x1a\n")}
	a, srv, _ := compactAgent(t, providertest.Transcript{Replies: []providertest.Reply{
		{Text: "a red dot"},
		{Text: "second answer"},
		{Text: "Goal: look at a picture."}, // the summary
		{Text: "third answer"},
	}}, 3000)
	conv := &Conversation{}
	for _, p := range []string{"look", strings.Repeat("word ", 1200), strings.Repeat("word ", 1200)} {
		var images []provider.Image
		if p == "look" {
			images = append(images, png)
		}
		if _, err := a.Run(context.Background(), conv, p, images...); err != nil {
			t.Fatal(err)
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	for i, want := range []int{1, 1, 0, 0} {
		if got := strings.Count(string(reqs[i].Body), `"type":"image"`); got != want {
			t.Errorf("request %d holds %d images, want %d", i+1, got, want)
		}
	}
}

// What each API says when a request does not fit: one compaction and a
// retry follow.
func TestPromptTooLong(t *testing.T) {
	for _, tc := range []struct {
		message, typ string
		want         bool
	}{
		{"prompt is too long: 250000 tokens > 200000 maximum", "invalid_request_error", true},
		{"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens.", "context_length_exceeded", true},
		{"the request exceeds the available context size, try increasing it", "exceed_context_size_error", true},
		{"request (9100 tokens) exceeds the available context size (8192 tokens), try increasing it", "invalid_request_error", true},
		{"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", "INVALID_ARGUMENT", true},
		{"tools.0.input_schema: JSON schema is invalid", "invalid_request_error", false},
		{"Could not process image", "invalid_request_error", false},
	} {
		err := &provider.Error{Kind: provider.BadRequest, Status: 400, Message: tc.message, Type: tc.typ}
		if got := promptTooLong(err); got != tc.want {
			t.Errorf("promptTooLong(%q) = %v, want %v", tc.message, got, tc.want)
		}
	}
}
