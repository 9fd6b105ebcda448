package files

import "bytes"

// MaxImage is the largest image a core tool returns to the model: what
// Anthropic's API takes, the least of the providers'.
const MaxImage = 5 << 20

// ImageType returns the media type of the image that head, the start of a
// file, begins: "image/png", "image/jpeg", "image/gif" or "image/webp", the
// types every model API takes; "" for anything else. It reads the same
// signatures as net/http's DetectContentType, without its cost at start-up.
func ImageType(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return "image/png"
	case bytes.HasPrefix(head, []byte("\xff\xd8\xff")):
		return "image/jpeg"
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return "image/gif"
	case len(head) >= 14 && bytes.HasPrefix(head, []byte("RIFF")) && string(head[8:14]) == "WEBPVP":
		return "image/webp"
	}
	return ""
}
