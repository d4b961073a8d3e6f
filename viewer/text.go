package viewer

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
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
		fmt.Fprintln(bw, sessionHeader(s))
		if s.Dropped > 0 {
			fmt.Fprintf(bw, "(%d older frames are on disk only)\n", s.Dropped)
		}
		tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
		for _, r := range s.Rows {
			if !f.Match(r) {
				continue
			}
			cells := rowCells(r)
			for j, c := range cells {
				if c == "" {
					cells[j] = "-"
				}
			}
			line := strings.Join(cells, "\t")
			if n := rowNote(r); n != "" {
				line += "\t" + n
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
	h := fmt.Sprintf("session %s (%s, %s): %d frames, %d calls", s.ID, label, s.Transport, s.Frames, s.Calls)
	if s.Pending > 0 {
		h += fmt.Sprintf(", %d pending", s.Pending)
	}
	if s.Errors > 0 {
		h += fmt.Sprintf(", %d errors", s.Errors)
	}
	if s.Warnings > 0 {
		h += fmt.Sprintf(", %d warnings", s.Warnings)
	}
	return h
}

// Column titles and the cells of a row, in the same order.
var columns = []string{"SEQ", "TIME", "DIR", "KIND", "METHOD", "TOOL", "ID", "STATUS", "DURATION"}

func rowCells(r *Row) []string {
	dur := ""
	if d, ok := r.Duration(); ok {
		dur = FormatDuration(d)
	}
	return []string{
		"#" + strconv.FormatUint(r.Frame.Seq, 10), r.Frame.TS.Format("15:04:05.000"),
		r.Frame.Direction, r.Kind, r.Method, r.Tool, r.ID, statusCell(r), dur,
	}
}

// statusCell is the status column: the call's status, and the HTTP status
// of a response that was not a plain 200.
func statusCell(r *Row) string {
	s := r.Status()
	if code := r.Frame.Status; code != 0 && code != 200 {
		if s == "" {
			return strconv.Itoa(code)
		}
		return s + " " + strconv.Itoa(code)
	}
	return s
}

// rowNote is what the engine remarked on the frame, most pressing first.
func rowNote(r *Row) string {
	var parts []string
	if len(r.Errors) > 0 {
		parts = append(parts, "error: "+strings.Join(r.Errors, "; "))
	}
	if r.Warning != "" {
		parts = append(parts, "warning: "+r.Warning)
	}
	if r.Mismatch {
		parts = append(parts, "mismatch")
	}
	if r.Observation != "" {
		parts = append(parts, r.Observation)
	}
	if r.Deprecated != "" {
		parts = append(parts, "deprecated: "+r.Deprecated)
	}
	if r.Frame.Truncated {
		parts = append(parts, "truncated")
	}
	if r.Kind == "stderr" || r.Kind == "invalid" || (r.Kind == "transport" && r.Frame.Text != "") {
		if t := oneLine(r.Frame.Text, 60); t != "" {
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
