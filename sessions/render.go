package sessions

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcpsnoop/mcpsnoop/internal/termsafe"
)

// WriteText prints the listing as a table with a header line: id, label,
// start (UTC, to the second), frames, calls, errors, run ids (comma
// separated, "-" for none) and path. Ids, labels and paths came from logs
// or folder names anyone may write, so they are escaped for the terminal.
func WriteText(w io.Writer, entries []Entry) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	io.WriteString(tw, "ID\tLABEL\tSTART\tFRAMES\tCALLS\tERRORS\tRUN\tPATH\n")
	for _, e := range entries {
		runs := "-"
		if len(e.RunIDs) > 0 {
			runs = strings.Join(e.RunIDs, ",")
		}
		start := "-"
		if !e.Start.IsZero() {
			start = e.Start.UTC().Format(time.RFC3339)
		}
		io.WriteString(tw, strings.Join([]string{
			cell(e.ID), cell(e.Label), start,
			strconv.Itoa(e.Frames), strconv.Itoa(e.Calls), strconv.Itoa(e.Errors),
			cell(runs), cell(e.Path),
		}, "\t")+"\n")
	}
	return tw.Flush()
}

// cell is a value safe for one cell: escaped, and never empty (an empty
// cell would shift the columns after it for a reader splitting on spaces).
func cell(s string) string {
	s = termsafe.Clean(s, false)
	if s == "" {
		return "-"
	}
	return strings.ReplaceAll(s, "\t", " ")
}

// WriteJSON prints the listing as one JSON array (an empty one when there
// is nothing), indented, for scripts.
func WriteJSON(w io.Writer, entries []Entry) error {
	if entries == nil {
		entries = []Entry{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(entries)
}
