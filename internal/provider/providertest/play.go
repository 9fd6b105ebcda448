package providertest

import (
	"context"
	"strings"
	"testing"

	"github.com/ikigai-tools/ikigai/internal/provider"
)

// A Played is what a provider made of a transcript: the events it
// reported, what it returned, and the requests the server got.
type Played struct {
	Events   []provider.Event
	Response *provider.Response
	Err      error
	Requests []Request
}

// Play starts a Server that answers with replies, sends req through the
// provider connect makes for it with c, and returns what happened.
func Play(t *testing.T, connect Connect, c provider.Config, req provider.Request, replies ...Reply) Played {
	t.Helper()
	srv := NewServer(Transcript{Replies: replies})
	defer srv.Close()
	var p Played
	p.Response, p.Err = connect(t, srv.URL, c).Stream(context.Background(), req, func(ev provider.Event) {
		p.Events = append(p.Events, ev)
	})
	p.Requests = srv.Requests()
	return p
}

// Spellings returns a stream of events, each its name (empty for an event
// of data only) and its data, written out in each way the event stream
// format allows, by name: LF, CRLF or CR line ends, no space after the
// colons, comments before and between the lines, data over several
// lines. A provider must read every one as the same answer.
func Spellings(events [][2]string) map[string]string {
	type style struct {
		end, colon string // a line's end; what is between a field's name and its value
		comments   bool   // a comment before the stream and before every line
		split      bool   // the data over two lines, after its first {
	}
	write := func(s style) string {
		var b strings.Builder
		line := func(l string) {
			if s.comments {
				b.WriteString(": keep-alive" + s.end)
			}
			b.WriteString(l + s.end)
		}
		if s.comments {
			b.WriteString(": hello" + s.end + s.end)
		}
		for _, e := range events {
			if e[0] != "" {
				line("event" + s.colon + e[0])
			}
			data := e[1]
			if s.split {
				data = strings.Replace(data, "{", "{"+s.end+"data"+s.colon, 1)
			}
			line("data" + s.colon + data)
			b.WriteString(s.end)
		}
		return b.String()
	}
	return map[string]string{
		"LF":                      write(style{end: "\n", colon: ": "}),
		"CRLF":                    write(style{end: "\r\n", colon: ": "}),
		"CR":                      write(style{end: "\r", colon: ": "}),
		"no space after colons":   write(style{end: "\n", colon: ":"}),
		"comments everywhere":     write(style{end: "\n", colon: ": ", comments: true}),
		"data over several lines": write(style{end: "\n", colon: ": ", split: true}),
	}
}
