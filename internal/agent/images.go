package agent

import (
	"cmp"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/ikigai-tools/ikigai/internal/execute"
	"github.com/ikigai-tools/ikigai/internal/plainjson"
	"github.com/ikigai-tools/ikigai/internal/provider"
	"github.com/ikigai-tools/ikigai/toolsdk/files"
)

// maxImages is how many images one result may carry.
const maxImages = 20

// resultImage is an image as a tool's result carries it, in its "images".
type resultImage struct {
	MediaType string `json:"media_type"`
	Data      string `json:"data"` // base64
}

// liftImages takes the images out of a successful result of the tool
// called name: the model gets them as images, beside the result's JSON,
// which says how many there were ("images": 2). An image that is not one
// (an unknown media type, data that is not base64 or not that type, one
// the model would not take, as files.CheckImage says, one past maxImages) is left out, and the result says why
// ("images_refused"). Any other envelope comes back as it was.
func liftImages(name string, env execute.Envelope) (execute.Envelope, []provider.Image) {
	if !env.Success || len(env.Result) == 0 || env.Result[0] != '{' {
		return env, nil
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(env.Result, &fields) != nil || fields["images"] == nil {
		return env, nil
	}
	var list []resultImage
	if json.Unmarshal(fields["images"], &list) != nil || len(list) == 0 || slices.ContainsFunc(list, func(img resultImage) bool { return img.MediaType == "" || img.Data == "" }) {
		return env, nil // not the protocol's images: the tool's own field
	}
	var images []provider.Image
	var refused []string
loop:
	for i, img := range list {
		data, err := decodeBase64(img.Data)
		sniffed := files.ImageType(data)
		switch {
		case i >= maxImages:
			refused = append(refused, fmt.Sprintf("images %d to %d: a result carries at most %d images", i+1, len(list), maxImages))
			break loop
		case !slices.Contains(provider.ImageTypes, img.MediaType):
			refused = append(refused, fmt.Sprintf("image %d: %q is not one of %v", i+1, img.MediaType, provider.ImageTypes))
		case err != nil:
			refused = append(refused, fmt.Sprintf("image %d: the data is not base64", i+1))
		case sniffed != img.MediaType:
			refused = append(refused, fmt.Sprintf("image %d: the data is %s, not %s", i+1, cmp.Or(sniffed, "no image"), img.MediaType))
		case files.CheckImage(data) != "":
			refused = append(refused, fmt.Sprintf("image %d: %s", i+1, files.CheckImage(data)))
		default:
			images = append(images, provider.Image{Name: fmt.Sprintf("%s result %d", name, i+1), MediaType: img.MediaType, Data: data})
		}
	}
	fields["images"], _ = plainjson.Marshal(len(images))
	if len(refused) > 0 {
		fields["images_refused"], _ = plainjson.Marshal(refused)
	}
	result, err := plainjson.Marshal(fields)
	if err != nil {
		return env, nil
	}
	env.Result = result
	return env, images
}

// decodeBase64 decodes s as the protocol's base64, or as the variants
// without padding or with the URL alphabet some servers send.
func decodeBase64(s string) ([]byte, error) {
	data, err := base64.StdEncoding.DecodeString(s)
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if err == nil {
			break
		}
		var err2 error
		if data, err2 = enc.DecodeString(s); err2 == nil {
			err = nil
		}
	}
	return data, err
}

// imagesRefused reports whether err may be the model refusing the images
// of msgs: the API rejected a request that held some. Servers say so in
// too many ways to tell it from other reasons; one more request without
// the images settles it.
func imagesRefused(err error, msgs []provider.Message) bool {
	var pe *provider.Error
	if !errors.As(err, &pe) || pe.Kind != provider.BadRequest {
		return false
	}
	return slices.ContainsFunc(msgs, func(m provider.Message) bool { return len(m.Images()) > 0 })
}

const (
	// maxSentImages and maxSentImageBytes are how many images a request
	// carries, and how many bytes of them, at most: the newest. Anthropic
	// takes no more than 20 images of any size, and 32 MB in a request;
	// Gemini 20 MB in a request, with images in base64 (12 MiB is 16 MiB
	// so).
	maxSentImages     = 20
	maxSentImageBytes = 12 << 20
)

// newestImages returns ms with the images past the newest maxSentImages or
// maxSentImageBytes replaced by a line of text saying so: a session that
// looks at many pictures is not refused by the API once they add up.
func newestImages(ms []provider.Message) []provider.Message {
	var sizes []int
	for _, m := range ms {
		for _, img := range m.Images() {
			sizes = append(sizes, len(img.Data))
		}
	}
	first, total := len(sizes), 0 // the images from first on are sent
	for first > 0 && len(sizes)-first < maxSentImages && total+sizes[first-1] <= maxSentImageBytes {
		first--
		total += sizes[first]
	}
	if first == 0 {
		return ms
	}
	why := fmt.Sprintf("a request carries the %d newest images, %d MiB at most, and this one is older", maxSentImages, maxSentImageBytes>>20)
	n := 0
	return provider.ReplaceImages(ms, func(provider.Image) string {
		if n++; n <= first {
			return why
		}
		return ""
	})
}
