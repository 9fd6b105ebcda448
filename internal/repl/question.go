package repl

import (
	"context"
	"strings"

	"github.com/ikigai-tools/ikigai/internal/approval"
	"github.com/ikigai-tools/ikigai/internal/display"
)

// Question is how the call req, which the user is asked to approve, is
// shown: a file_edit or file_write as the diff it would make to the file
// on disk (the whole call, as display.Approval shows it, when the edit
// would not apply); any other call whole, followed by what the tool's
// --preview says the call would do, for a tool that offers one
// (previewHint). Characters that would not show are escaped.
func (s *Shell) Question(ctx context.Context, req approval.Request) string {
	if text, ok := display.FileChange(s.Dir, req.Tool, req.Args); ok {
		return text
	}
	text := display.Approval(req.Tool, req.Args)
	reg, err := s.Backend.Tools(ctx)
	if err != nil {
		return text
	}
	preview, ok := reg.Preview(ctx, req.Tool, req.Args)
	if !ok {
		return text
	}
	lines := strings.Split(preview, "\n")
	for i, l := range lines {
		lines[i] = "  " + display.Visible(l)
	}
	return text + "\nPreview (from " + req.Tool + " --preview):\n" + strings.Join(lines, "\n")
}
