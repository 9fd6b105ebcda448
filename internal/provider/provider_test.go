package provider

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWithoutImages(t *testing.T) {
	img := Image{Name: "shot.png", MediaType: "image/png", Data: []byte("1234")}
	plain := []Message{UserText("hi")}
	if got := WithoutImages(plain, "why"); &got[0] != &plain[0] {
		t.Errorf("a conversation without images was copied")
	}
	ms := []Message{
		{Role: User, Parts: []Part{Text("look"), img}},
		{Role: User, Parts: []Part{ToolResult{CallID: "a", Content: "{}", Images: []Image{img, img}}}},
	}
	want := []Message{
		{Role: User, Parts: []Part{Text("look"), Text("\n[image shot.png (image/png, 4 bytes) not sent: no images here]")}},
		{Role: User, Parts: []Part{ToolResult{CallID: "a", Content: "{}"},
			Text("\n[image shot.png (image/png, 4 bytes) not sent: no images here]"), Text("\n[image shot.png (image/png, 4 bytes) not sent: no images here]")}},
	}
	if diff := cmp.Diff(want, WithoutImages(ms, "no images here")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if len(ms[0].Images()) != 1 || len(ms[1].Images()) != 2 {
		t.Errorf("the conversation itself changed: %+v", ms)
	}
}
