package files

import (
	"bytes"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"strings"
	"testing"
)

// ImageType agrees with net/http's sniffing on the image types, and says
// nothing of what is not one of them.
func TestImageType(t *testing.T) {
	for _, head := range []string{
		"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		"\xff\xd8\xff\xe0\x00\x10JFIF",
		"GIF89a\x01\x00", "GIF87a\x01\x00",
		"RIFF\x24\x00\x00\x00WEBPVP8 ",
		"BM\x36\x00", "hello", "", "RIFF\x24\x00\x00\x00WAVEfmt ", "\x89PNG",
	} {
		want := http.DetectContentType([]byte(head))
		switch want {
		case "image/png", "image/jpeg", "image/gif", "image/webp":
		default:
			want = ""
		}
		if got := ImageType([]byte(head)); got != want {
			t.Errorf("ImageType(%q) = %q, want %q", head, got, want)
		}
	}
}

func TestImageSize(t *testing.T) {
	encoded := func(w, h int, enc func(io.Writer, image.Image) error) string {
		var b bytes.Buffer
		if err := enc(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	pngOf := func(w, h int) string { return encoded(w, h, png.Encode) }
	gifOf := func(w, h int) string {
		return encoded(w, h, func(w io.Writer, m image.Image) error { return gif.Encode(w, m, nil) })
	}
	jpegOf := func(w, h int) string {
		return encoded(w, h, func(w io.Writer, m image.Image) error { return jpeg.Encode(w, m, nil) })
	}
	riff := func(chunk, data string) string {
		return "RIFF\x00\x00\x00\x00WEBP" + chunk + "\x00\x00\x00\x00" + data
	}
	vp8l := func(w, h int) string {
		bits := uint32(w-1) | uint32(h-1)<<14
		return riff("VP8L", "\x2f"+string([]byte{byte(bits), byte(bits >> 8), byte(bits >> 16), byte(bits >> 24)}))
	}
	for _, tc := range []struct {
		name, data string
		w, h       int
		ok         bool
		why        string
	}{
		{"png", pngOf(3, 2), 3, 2, true, ""},
		{"a tall png", pngOf(1, 8001), 1, 8001, true, "the image is 1×8001 pixels, more than the 8000 a side a model takes"},
		{"gif", gifOf(5, 4), 5, 4, true, ""},
		{"jpeg", jpegOf(9, 7), 9, 7, true, ""},
		{"a wide jpeg", jpegOf(8001, 1), 8001, 1, true, "the image is 8001×1 pixels, more than the 8000 a side a model takes"},
		{"webp lossless", vp8l(300, 200), 300, 200, true, ""},
		{"webp extended", riff("VP8X", "\x00\x00\x00\x00\x2b\x01\x00\xc7\x00\x00"), 300, 200, true, ""},
		{"webp lossy", riff("VP8 ", "\x00\x00\x00\x9d\x01\x2a\x2c\x01\xc8\x00"), 300, 200, true, ""},
		{"a png cut short", pngOf(3, 2)[:20], 0, 0, false, "not an image a model can read: its header is damaged or cut short"},
		{"a damaged jpeg", "\xff\xd8\xff\xe0garbage", 0, 0, false, "not an image a model can read: its header is damaged or cut short"},
		{"a short webp", "RIFF\x00\x00\x00\x00WEBPVP", 0, 0, false, "not an image a model can read: its header is damaged or cut short"},
		{"text", "hello", 0, 0, false, "not an image a model can read: its header is damaged or cut short"},
	} {
		w, h, ok := ImageSize([]byte(tc.data))
		if w != tc.w || h != tc.h || ok != tc.ok {
			t.Errorf("%s: ImageSize = %d, %d, %v; want %d, %d, %v", tc.name, w, h, ok, tc.w, tc.h, tc.ok)
		}
		if why := CheckImage([]byte(tc.data)); why != tc.why {
			t.Errorf("%s: CheckImage = %q, want %q", tc.name, why, tc.why)
		}
		for n := range len(tc.data) { // never a panic, whatever is cut
			ImageSize([]byte(tc.data[:n]))
		}
	}
	big := pngOf(3, 2) + strings.Repeat("\x00", MaxImage)
	if why := CheckImage([]byte(big)); !strings.Contains(why, "more than the 5242880 (5 MiB)") {
		t.Errorf("a big image: %q", why)
	}
}
