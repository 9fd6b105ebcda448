package agent

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/provider"
)

func TestLiftImages(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
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
	if len(images) != 0 || !strings.Contains(string(env.Result), "more than the 5 MiB") {
		t.Errorf("an image past 5 MiB: %.300s", env.Result)
	}
	failed := execute.Failed(execute.ToolCrashed, "no")
	if env, images := liftImages("shot", failed); !cmp.Equal(env, failed) || images != nil {
		t.Errorf("a failure changed: %s", env.JSON())
	}
}
