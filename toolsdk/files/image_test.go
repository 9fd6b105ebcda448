package files

import (
	"net/http"
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
