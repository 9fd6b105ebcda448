package display

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/ikigai-tools/ikigai/internal/session"
	"github.com/ikigai-tools/ikigai/internal/trust"
)

// WriteSessions writes the saved conversations as `ikigai sessions` lists
// them, a table with a heading; a line on stderr says where none was found.
func WriteSessions(w, stderr io.Writer, list []session.Summary, dir string) error {
	if len(list) == 0 {
		fmt.Fprintf(stderr, "No saved conversations in %s.\n", dir)
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED\tMESSAGES\tDIRECTORY\tFIRST PROMPT")
	for _, s := range list {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", s.ID, s.Started.Local().Format("2006-01-02 15:04"), s.Messages, s.Dir,
			Lines(s.Title, 1, 60))
	}
	return tw.Flush()
}

// WriteTrust writes the directories the user trusts, one a line, then
// those they declined to trust under a heading, as `ikigai trust --list`
// prints them; a line on stderr says when there are neither.
func WriteTrust(w, stderr io.Writer, trusted, declined []string) {
	if len(trusted) == 0 && len(declined) == 0 {
		fmt.Fprintln(stderr, "No trusted directories, and none declined (ikigai trust DIR trusts one).")
		return
	}
	for _, d := range trusted {
		fmt.Fprintln(w, d)
	}
	if len(declined) > 0 {
		if len(trusted) > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, "Declined (not asked about again; ikigai trust DIR trusts one):")
		for _, d := range declined {
			fmt.Fprintln(w, d)
		}
	}
}

// WriteTrustDiff writes how a trusted directory changed since the user
// trusted it, as ikigai trust --diff prints it.
func WriteTrustDiff(w io.Writer, listed bool, changes []trust.Change) {
	switch {
	case !listed:
		fmt.Fprintln(w, "Not trusted (ikigai trust trusts it).")
	case len(changes) == 0:
		fmt.Fprintln(w, "Unchanged since trusted.")
	default:
		fmt.Fprintln(w, "Changed since trusted, so not used until trusted again (ikigai trust):")
		for _, c := range changes {
			fmt.Fprintf(w, "  %s\n", c)
		}
	}
}
