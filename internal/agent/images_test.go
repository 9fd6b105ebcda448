package agent

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	img "image"
	pngenc "image/png"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/internal/provider/providertest"
)

func TestLiftImages(t *testing.T) {
	png := []byte("\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\x0d\x49\x44\x41\x54\x78\x9c\x63\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99\x3d\x1d\x00\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82")
	b64 := base64.StdEncoding.EncodeToString(png)
	image := func(typ, data string) string { return `{"media_type":"` + typ + `","data":"` + data + `"}` }
	for _, tc := range []struct {
		name, result, want string
		images             int
	}{
		{"one image", `{"output":"a picture","images":[` + image("image/png", b64) + `]}`, `{"images":1,"output":"a picture"}`, 1},
		{"refused ones are said", `{"images":[` + image("image/png", b64) + `,` + image("image/bmp", b64) + `,` + image("image/png", "%%") + `,` + image("image/jpeg", b64) + `]}`,
			`{"images":1,"images_refused":["image 2: \"image/bmp\" is not one of [image/png image/jpeg image/gif image/webp]","image 3: the data is not base64","image 4: the data is image/png, not image/jpeg"]}`, 1},
		{"a tool's own images field", `{"images":[{"url":"https://example.com/a.png"}]}`, `{"images":[{"url":"https://example.com/a.png"}]}`, 0},
		{"no images", `{"output":"x"}`, `{"output":"x"}`, 0},
		{"base64 without padding", `{"images":[` + image("image/png", strings.TrimRight(b64, "=")) + `]}`, `{"images":1}`, 1},
		{"a tool's own empty list", `{"images":[],"n":0}`, `{"images":[],"n":0}`, 0},
		{"a tool's own null", `{"images":null}`, `{"images":null}`, 0},
		{"a hundred images", `{"images":[` + strings.Repeat(image("image/png", b64)+`,`, 99) + image("image/png", b64) + `]}`,
			`{"images":20,"images_refused":["images 21 to 100: a result carries at most 20 images"]}`, 20},
		{"not an object", `["images"]`, `["images"]`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env, images := liftImages("shot", execute.Succeeded(json.RawMessage(tc.result)))
			if diff := cmp.Diff(tc.want, string(env.Result)); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
			if len(images) != tc.images {
				t.Fatalf("%d images, want %d", len(images), tc.images)
			}
			if tc.images > 0 {
				if diff := cmp.Diff(provider.Image{Name: "shot result 1", MediaType: "image/png", Data: png}, images[0]); diff != "" {
					t.Errorf("image (-want +got):\n%s", diff)
				}
			}
		})
	}
	big := base64.StdEncoding.EncodeToString(append(png, make([]byte, 5<<20)...))
	env, images := liftImages("shot", execute.Succeeded(json.RawMessage(`{"images":[`+image("image/png", big)+`]}`)))
	if len(images) != 0 || !strings.Contains(string(env.Result), "more than the 5242880 (5 MiB)") {
		t.Errorf("an image past 5 MiB: %.300s", env.Result)
	}
	var tall bytes.Buffer
	pngenc.Encode(&tall, img.NewGray(img.Rect(0, 0, 1, 8001)))
	env, images = liftImages("shot", execute.Succeeded(json.RawMessage(`{"images":[`+image("image/png", base64.StdEncoding.EncodeToString(tall.Bytes()))+`]}`)))
	if len(images) != 0 || !strings.Contains(string(env.Result), `"image 1: the image is 1×8001 pixels, more than the 8000 a side a model takes"`) {
		t.Errorf("an image past 8000 pixels a side: %.300s", env.Result)
	}
	odd := append(png, 0xfb, 0xef, 0xff)
	if data, err := decodeBase64(base64.RawURLEncoding.EncodeToString(odd)); err != nil || string(data) != string(odd) {
		t.Errorf("base64 with the URL alphabet: %v", err)
	}
	failed := execute.Failed(execute.ToolCrashed, "no")
	if env, images := liftImages("shot", failed); !cmp.Equal(env, failed) || images != nil {
		t.Errorf("a failure changed: %s", env.JSON())
	}
}

// A request carries the newest images only, so many pictures in a session
// do not add up to a request the API refuses.
func TestNewestImages(t *testing.T) {
	image := func(name string, size int) provider.Image {
		return provider.Image{Name: name, MediaType: "image/png", Data: make([]byte, size)}
	}
	user := func(parts ...provider.Part) provider.Message {
		return provider.Message{Role: provider.User, Parts: parts}
	}
	var many []provider.Message
	for i := range 25 {
		many = append(many, user(provider.ToolResult{CallID: "c", Content: "{}", Images: []provider.Image{image(fmt.Sprint(i), 100)}}))
	}
	big := []provider.Message{user(provider.Text("look"), image("a", 7<<20)), user(image("b", 7<<20)), user(provider.Text("and"), image("c", 7<<20))}
	for _, tc := range []struct {
		name string
		in   []provider.Message
		sent int
	}{
		{"25 images", many, 20},
		{"21 MiB of images", big, 1},
		{"none", []provider.Message{user(provider.Text("hi"))}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := newestImages(tc.in)
			var sent, notes []string
			for _, m := range out {
				for _, img := range m.Images() {
					sent = append(sent, img.Name)
				}
				for _, p := range m.Parts {
					if s, ok := p.(provider.Text); ok && strings.Contains(string(s), "not sent") {
						notes = append(notes, string(s))
					}
				}
			}
			var all []string
			for _, m := range tc.in {
				for _, img := range m.Images() {
					all = append(all, img.Name)
				}
			}
			if diff := cmp.Diff(all[len(all)-tc.sent:], sent, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("sent (-want +got):\n%s", diff)
			}
			if len(notes) != len(all)-tc.sent {
				t.Errorf("%d notes for %d images left out: %q", len(notes), len(all)-tc.sent, notes)
			}
			// A tool result's note follows every part of its message.
			for _, m := range out {
				if _, ok := m.Parts[len(m.Parts)-1].(provider.ToolResult); len(m.Parts) > 1 && ok {
					t.Errorf("a note before a tool result: %v", m.Parts)
				}
			}
		})
	}
}

// A request refused for some other reason than its images does not turn
// images off: only a retry without them that succeeds does.
func TestImagesRefusedOnlyWhenTheyAre(t *testing.T) {
	png := provider.Image{Name: "shot.png", MediaType: "image/png", Data: []byte("\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\x0d\x49\x44\x41\x54\x78\x9c\x63\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99\x3d\x1d\x00\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82")}
	bad := providertest.Reply{Status: 400, ErrorType: "invalid_request_error", Error: "tools.0: invalid schema"}
	a, srv, _ := compactAgent(t, providertest.Transcript{Replies: []providertest.Reply{
		bad, bad, // refused with the image and without: not the image
		{Text: "I see it."},
		{Status: 400, ErrorType: "invalid_request_error", Error: "Could not process image"}, {Text: "Text then."},
	}}, 0)
	conv := &Conversation{}
	if _, err := a.Run(context.Background(), conv, "look", png); err == nil {
		t.Fatal("the refused request succeeded")
	}
	if a.NoImages != "" {
		t.Errorf("images turned off by a refusal of something else: %s", a.NoImages)
	}
	if _, err := a.Run(context.Background(), conv, "look", png); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Run(context.Background(), conv, "and this", png); err != nil {
		t.Fatal(err)
	}
	if a.NoImages == "" {
		t.Errorf("a request that succeeded only without images left images on")
	}
	reqs := srv.Requests()
	images := make([]int, len(reqs))
	for i, r := range reqs {
		images[i] = strings.Count(string(r.Body), `"type":"image"`)
	}
	if diff := cmp.Diff([]int{1, 0, 1, 2, 0}, images); diff != "" {
		t.Errorf("images per request (-want +got):\n%s", diff)
	}
}

// A model that refused images in a conversation is not sent them again in
// its later turns, though each turn has an agent of its own (as the REPL
// makes them); another model is.
func TestImagesRefusedRemembered(t *testing.T) {
	png := provider.Image{Name: "shot.png", MediaType: "image/png", Data: []byte("x")}
	a, srv, _ := compactAgent(t, providertest.Transcript{Replies: []providertest.Reply{
		{Status: 400, ErrorType: "invalid_request_error", Error: "image input is not supported"},
		{Text: "No picture."}, {Text: "Still none."}, {Text: "A dot."},
	}}, 0)
	conv := &Conversation{}
	for i, model := range []string{"local", "local", "other"} {
		turn := *a
		turn.Model = model
		if _, err := turn.Run(context.Background(), conv, fmt.Sprint("turn ", i), png); err != nil {
			t.Fatal(err)
		}
	}
	var images []int
	for _, r := range srv.Requests() {
		images = append(images, strings.Count(string(r.Body), `"type":"image"`))
	}
	if diff := cmp.Diff([]int{1, 0, 0, 3}, images); diff != "" {
		t.Errorf("images per request (-want +got):\n%s", diff)
	}
}
