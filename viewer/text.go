package viewer

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcpsnoop/mcpsnoop/internal/termsafe"
)

// WriteText prints the stream of every session as text, one line per frame
// (seq, time, direction, kind, method, tool, id, status, duration and a
// note), under a header line per session; what open prints when stdout is
// not a terminal. Only rows f selects are printed; "-" marks an empty cell.
func WriteText(w io.Writer, st *Store, f Filter) error {
	bw := bufio.NewWriter(w)
	for i, s := range st.Sessions {
		if i > 0 {
			fmt.Fprintln(bw)
		}
		fmt.Fprintln(bw, clean(sessionHeader(s), false))
		if s.Dropped > 0 {
			fmt.Fprintf(bw, "(%s on disk only)\n", pluralVerb(s.Dropped, "older frame"))
		}
		tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
		for _, r := range s.Rows {
			if !f.Match(r) {
				continue
			}
			cells := rowCells(r)
			for j, c := range cells {
				if c == "" {
					c = "-"
				}
				cells[j] = clean(c, false)
			}
			line := strings.Join(cells, "\t")
			if n := rowNote(r); n != "" {
				line += "\t" + clean(n, false)
			}
			fmt.Fprintln(tw, line)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// sessionHeader is the one-line summary of a session.
func sessionHeader(s *Session) string {
	label := s.Label
	if label == "" {
		label = "no label"
	}
	h := fmt.Sprintf("session %s (%s, %s): %s, %s", s.ID, label, s.Transport, plural(s.Frames, "frame"), plural(s.Calls, "call"))
	if s.Pending > 0 {
		h += fmt.Sprintf(", %d pending", s.Pending)
	}
	if s.Errors > 0 {
		h += ", " + plural(s.Errors, "error")
	}
	if s.Warnings > 0 {
		h += ", " + plural(s.Warnings, "warning")
	}
	if n := s.MissingFrames(); n > 0 {
		h += fmt.Sprintf(", %d missing", n)
	}
	return h
}

// rowCells are a row's cells: SEQ, TIME, DIR, KIND, METHOD, TOOL, ID,
// STATUS, DURATION (the stream's columns, streamCols, before NOTE).
func rowCells(r *Row) []string {
	dur := ""
	if d, ok := r.Duration(); ok {
		dur = FormatDuration(d)
	}
	return []string{
		"#" + strconv.FormatUint(r.Seq, 10), r.Time().Format("15:04:05.000"),
		r.Direction, r.Kind, r.Method, r.Tool, r.ID, statusCell(r), dur,
	}
}

// statusCell is the status column: the call's status, and the HTTP status
// of a response that was not a plain 200.
func statusCell(r *Row) string {
	s := r.Status()
	if code := r.HTTPStatus(); code != 0 && code != 200 {
		if s == "" {
			return strconv.Itoa(code)
		}
		return s + " " + strconv.Itoa(code)
	}
	return s
}

// rowNote is what the engine remarked on the frame, most pressing first,
// a line of text (stderr, a frame that is no JSON) quoted to 60 runes, as
// the text stream prints it.
func rowNote(r *Row) string { return noteOf(r, textNoteRunes) }

// textNoteRunes is how much of a frame's text line the text stream quotes.
const textNoteRunes = 60

// noteOf is rowNote quoting up to n runes of a frame's text line: the
// terminal viewer gives it the NOTE column's width, so a wide terminal
// shows a stderr line as far as it has room for.
func noteOf(r *Row, n int) string {
	var parts []string
	if errs := r.Errors(); len(errs) > 0 {
		parts = append(parts, "error: "+strings.Join(errs, "; "))
	}
	if w := r.Warning(); w != "" {
		parts = append(parts, "warning: "+w)
	}
	if r.Mismatch() {
		parts = append(parts, "mismatch")
	}
	if o := r.Observation(); o != "" {
		parts = append(parts, o)
	}
	if d := r.Deprecated(); d != "" {
		parts = append(parts, "deprecated: "+d)
	}
	if r.Truncated() {
		parts = append(parts, "truncated")
	}
	if r.Kind == "stderr" || r.Kind == "invalid" || (r.Kind == "transport" && r.Text() != "") {
		if t := oneLine(r.Text(), n); t != "" {
			parts = append(parts, strconv.Quote(t))
		}
	}
	return strings.Join(parts, "; ")
}

// oneLine cuts s to its first line and at most n runes.
func oneLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if rs := []rune(s); len(rs) > n {
		return string(rs[:n-1]) + "…"
	}
	return s
}

// FormatDuration renders a call duration: milliseconds with one decimal
// under a second, seconds with two decimals above.
func FormatDuration(d time.Duration) string {
	if d < time.Second {
		return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64) + "ms"
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 2, 64) + "s"
}

// clean makes text from the wire safe to put on a terminal (see
// termsafe.Clean).
func clean(s string, multiline bool) string { return termsafe.Clean(s, multiline) }

// plural is "1 frame", "2 frames".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// pluralVerb is "1 older frame is", "2 older frames are".
func pluralVerb(n int, noun string) string {
	if n == 1 {
		return plural(n, noun) + " is"
	}
	return plural(n, noun) + " are"
}
