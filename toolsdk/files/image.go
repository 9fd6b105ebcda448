package files

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

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

// MaxImageSide is the most pixels a side of an image a model takes may
// have: Anthropic's API refuses an image past 8000.
const MaxImageSide = 8000

// ImageSize returns the width and height in pixels of the image data
// holds, read from its header; ok is false when data is not a PNG, JPEG,
// GIF or WebP image with a header that says.
func ImageSize(data []byte) (width, height int, ok bool) {
	le16 := func(b []byte) int { return int(b[0]) | int(b[1])<<8 }
	le24 := func(b []byte) int { return int(b[0]) | int(b[1])<<8 | int(b[2])<<16 }
	switch ImageType(data) {
	case "image/png":
		if len(data) >= 24 && string(data[12:16]) == "IHDR" {
			return int(binary.BigEndian.Uint32(data[16:])), int(binary.BigEndian.Uint32(data[20:])), true
		}
	case "image/gif":
		if len(data) >= 10 {
			return le16(data[6:]), le16(data[8:]), true
		}
	case "image/jpeg":
		return jpegSize(data)
	case "image/webp":
		if len(data) < 16 {
			break
		}
		switch chunk := string(data[12:16]); {
		case chunk == "VP8 " && len(data) >= 30 && string(data[23:26]) == "\x9d\x01\x2a":
			return le16(data[26:]) & 0x3fff, le16(data[28:]) & 0x3fff, true
		case chunk == "VP8L" && len(data) >= 25 && data[20] == 0x2f:
			bits := binary.LittleEndian.Uint32(data[21:])
			return int(bits&0x3fff) + 1, int(bits>>14&0x3fff) + 1, true
		case chunk == "VP8X" && len(data) >= 30:
			return le24(data[24:]) + 1, le24(data[27:]) + 1, true
		}
	}
	return 0, 0, false
}

// CheckImage returns why a model would not take the image data holds: ""
// when it would. The size is the API's, MaxImage bytes
// and MaxImageSide pixels a side; an image whose header says no size is
// one the API cannot read either.
func CheckImage(data []byte) string {
	w, h, ok := ImageSize(data)
	switch {
	case len(data) > MaxImage:
		return fmt.Sprintf("the image is %d bytes, more than the %d (%d MiB) a model takes", len(data), MaxImage, MaxImage>>20)
	case !ok:
		return "not an image a model can read: its header is damaged or cut short"
	case w > MaxImageSide || h > MaxImageSide:
		return fmt.Sprintf("the image is %d×%d pixels, more than the %d a side a model takes", w, h, MaxImageSide)
	}
	return ""
}

// jpegSize reads a JPEG's size from its frame header (SOFn), the first
// segment that has it.
func jpegSize(data []byte) (width, height int, ok bool) {
	be16 := func(b []byte) int { return int(b[0])<<8 | int(b[1]) }
	for i := 2; i+4 <= len(data); {
		if data[i] != 0xff {
			return 0, 0, false
		}
		marker := data[i+1]
		switch {
		case marker == 0xff: // fill
			i++
			continue
		case marker >= 0xd0 && marker <= 0xd7, marker == 0x01: // no length
			i += 2
			continue
		case marker == 0xd9, marker == 0xda: // the end, or the scan: no frame header before
			return 0, 0, false
		case marker >= 0xc0 && marker <= 0xcf && marker != 0xc4 && marker != 0xc8 && marker != 0xcc:
			if i+9 > len(data) {
				return 0, 0, false
			}
			return be16(data[i+7:]), be16(data[i+5:]), true
		}
		i += 2 + be16(data[i+2:])
	}
	return 0, 0, false
}
