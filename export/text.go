package export

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/internal/termsafe"
	"github.com/mcpsnoop/mcpsnoop/report"
)

// Text is the text format (capture-store-export.md 7.3): per session a
// header with its counts, then one block per frame (a title line, the text
// or the pretty-printed payload, a blank line), then its multi-round-trip
// interactions and its elicitation ledger. Sessions follow one another.
type Text struct {
	buf, title []byte
}

// NewText returns the text format.
func NewText() Format { return &Text{} }

// A frame's title names the status of the call it belongs to, which is
// known only when the call ends, so Event keeps the call index beside the
// title and Session fills the status in from the call's record:
//
//	uvarint(call index + 1) kind uvarint(len(id)) id uvarint(len(title)) title body
//
// where kind is 'r' for a raw payload (compact, indented when written out:
// it halves the spill), 't' for a text line, '-' for neither.
//
// A call's record is "status\x00duration\x00tool\x00id". A frame whose id
// is not its call's is an MRTR retry (or its answer): its title also names
// the id of the request that began the operation (root_id).

// Event renders one frame's block (the meta frame has none).
func (t *Text) Event(ev *checker.FrameEvent) ([]byte, error) {
	if ev.Kind == checker.EventMeta {
		return nil, nil
	}
	f := ev.Frame
	b := binary.AppendUvarint(t.buf[:0], uint64(ev.CallIndex+1))
	switch {
	case f.Text != "":
		b = append(b, 't')
	case len(f.Raw) > 0:
		b = append(b, 'r')
	default:
		b = append(b, '-')
	}
	b = binary.AppendUvarint(b, uint64(len(ev.ID)))
	b = append(b, ev.ID...)
	title := append(t.title[:0], '#')
	title = strconv.AppendUint(title, f.Seq, 10)
	title = append(title, ' ')
	title = f.TS.AppendFormat(title, time.RFC3339Nano)
	title = append(title, ' ')
	title = append(title, f.Direction...)
	title = append(title, ' ')
	title = append(title, ev.Kind...)
	if ev.Method != "" {
		title = append(title, ' ')
		title = append(title, termsafe.Clean(ev.Method, false)...)
	}
	// What the peers named (methods, ids, and the messages quoting them) is
	// escaped so that a title line cannot drive the terminal it is read on;
	// the frame's body below is the text or raw JSON as captured.
	title = appendPair(title, "id", ev.ID)
	title = appendPair(title, "warning", ev.Warning)
	title = appendPair(title, "observation", ev.Observation)
	for _, e := range ev.Errors {
		title = appendPair(title, "error", e)
	}
	if f.Status != 0 {
		title = appendPair(title, "http_status", strconv.Itoa(f.Status))
	}
	if f.Truncated {
		title = append(title, " truncated"...)
	}
	if ev.Deprecated != "" {
		title = append(title, " deprecated"...)
	}
	if ev.CacheStaleRefetch {
		title = append(title, " cache_stale_refetch"...)
	}
	if ev.HasCacheTTL || ev.CacheScope != "" {
		title = append(title, " cache"...)
	}
	t.title = title
	b = binary.AppendUvarint(b, uint64(len(title)))
	b = append(b, title...)
	switch {
	case f.Text != "":
		b = append(b, f.Text...)
		b = append(b, '\n')
	case len(f.Raw) > 0:
		b = append(b, f.Raw...)
	}
	t.buf = b
	return b, nil
}

func appendPair(b []byte, key, v string) []byte {
	if v == "" {
		return b
	}
	b = append(b, ' ')
	b = append(b, key...)
	b = append(b, '=')
	return append(b, termsafe.Clean(v, false)...)
}

// Call keeps what a frame's title says of its call: status, duration, tool
// and id, each with its length first (a name may hold any byte).
func (t *Text) Call(r *checker.CallRecord) ([]byte, error) {
	dur := "pending"
	if r.HasDuration {
		dur = strconv.FormatFloat(durationMs(r.Duration), 'f', 3, 64)
	}
	b := t.buf[:0]
	for _, field := range [...]string{r.Status, dur, termsafe.Clean(r.Name, false), r.ID} {
		b = binary.AppendUvarint(b, uint64(len(field)))
		b = append(b, field...)
	}
	t.buf = b
	return b, nil
}

// textCallFields takes apart what Text.Call kept.
func textCallFields(rec []byte) (fields [4][]byte, ok bool) {
	for i := range fields {
		n, k := binary.Uvarint(rec)
		if k <= 0 || uint64(len(rec)-k) < n {
			return fields, false
		}
		fields[i], rec = rec[k:k+int(n)], rec[k+int(n):]
	}
	return fields, true
}

// Begin writes nothing.
func (t *Text) Begin(w io.Writer, o *Output) error { return nil }

// End writes nothing.
func (t *Text) End(w io.Writer, o *Output) error { return nil }

// Session writes one session.
func (t *Text) Session(w io.Writer, s *Session) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	r := s.Report
	label := ""
	if r.Label != "" {
		label = " (" + termsafe.Clean(r.Label, false) + ")"
	}
	fmt.Fprintf(bw, "mcpsnoop session %s%s\n", termsafe.Clean(r.ID, false), label)
	fmt.Fprintf(bw, "frames: %d  calls: %d  requests: %d  responses: %d  errors: %d  pending: %d  late results: %d",
		r.Traffic.Frames, r.Calls, r.Traffic.Requests, r.Traffic.Responses, r.Counters.Errors,
		r.Counters.Pending, r.Counters.LateResults)
	if r.Counters.MissingFrames > 0 {
		fmt.Fprintf(bw, "  missing frames: %d", r.Counters.MissingFrames)
	}
	bw.WriteString("\n\n")
	writeSchemaFindings(bw, r)
	calls := s.Calls
	err := s.Events.Each(func(_ int, b []byte) error {
		idx, kind, id, title, body, ok := splitTextRecord(b)
		if !ok {
			return fmt.Errorf("text export: a frame record is damaged")
		}
		bw.Write(title)
		if idx > 0 {
			c, err := calls.At(int(idx - 1))
			if err != nil {
				return err
			}
			writeCallNote(bw, c, id)
		}
		bw.WriteByte('\n')
		// The body keeps its lines; what could drive a terminal in it (a
		// server's stray output, a C1 or bidi character inside a JSON
		// string) is escaped as in the viewer.
		if kind == 'r' {
			t.buf = appendIndent(t.buf[:0], body, 0)
			bw.WriteString(termsafe.Clean(string(t.buf), true))
			bw.WriteByte('\n')
		} else {
			bw.WriteString(termsafe.Clean(string(body), true))
		}
		return bw.WriteByte('\n')
	})
	if err != nil {
		return err
	}
	// The multi-round-trip operations with the server's and the client's
	// share of each, hop by hop; then the questions put to the user (never
	// a submitted value).
	writeSection(bw, "interactions", r.Interactions, report.InteractionLines, r.InteractionsTruncated, "interactions")
	writeSection(bw, "elicitations", r.Elicitations, report.ElicitationLines, r.ElicitationsTruncated, "elicitations")
	return bw.Flush()
}

// splitTextRecord takes a frame's record apart.
func splitTextRecord(b []byte) (idx uint64, kind byte, id, title, body []byte, ok bool) {
	idx, k := binary.Uvarint(b)
	if k <= 0 || k >= len(b) {
		return
	}
	kind, b = b[k], b[k+1:]
	n, k := binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < n {
		return
	}
	id, b = b[k:k+int(n)], b[k+int(n):]
	n, k = binary.Uvarint(b)
	if k <= 0 || uint64(len(b)-k) < n {
		return
	}
	return idx, kind, id, b[k : k+int(n)], b[k+int(n):], true
}

// writeCallNote writes " status=S duration_ms=D[ tool=T][ root_id=R]" from
// a call's record, for a frame with id frameID.
func writeCallNote(w *bufio.Writer, rec, frameID []byte) {
	fields, ok := textCallFields(rec)
	if !ok {
		return
	}
	status, dur, tool, rootID := fields[0], fields[1], fields[2], fields[3]
	w.WriteString(" status=")
	w.Write(status)
	w.WriteString(" duration_ms=")
	w.Write(dur)
	if len(tool) > 0 {
		w.WriteString(" tool=")
		w.Write(tool)
	}
	if len(frameID) > 0 && !bytes.Equal(frameID, rootID) {
		w.WriteString(" root_id=")
		w.WriteString(termsafe.Clean(string(rootID), false))
	}
}

// writeSchemaFindings lists the advertised tools whose schemas use
// constructs worth knowing about, in the order they were advertised.
func writeSchemaFindings(w *bufio.Writer, r *checker.SessionReport) {
	findings := map[string][]string{}
	for _, c := range r.Definitions {
		if len(c.Findings) > 0 {
			findings[c.Name] = c.Findings
		}
	}
	if len(findings) == 0 {
		return
	}
	w.WriteString("schema findings:\n")
	for _, d := range r.Listing.Tools {
		if f := findings[d.Name]; f != nil {
			fmt.Fprintf(w, "  %s: %s\n", termsafe.Clean(d.Name, false), strings.Join(f, ", "))
			delete(findings, d.Name)
		}
	}
	for _, c := range r.Definitions { // tools no longer in the final listing
		if f := findings[c.Name]; f != nil {
			fmt.Fprintf(w, "  %s: %s\n", termsafe.Clean(c.Name, false), strings.Join(f, ", "))
		}
	}
	w.WriteString("\n")
}

// writeSection lists a session's items under a title, each as its lines
// (report.InteractionLines, report.ElicitationLines), then how many more
// the engine left out; nothing when there are none.
func writeSection[T any](w *bufio.Writer, title string, items []T, lines func(T) []string, more int, noun string) {
	if len(items) == 0 {
		return
	}
	w.WriteString(title + ":\n")
	for _, it := range items {
		writeIndented(w, lines(it))
	}
	if more > 0 {
		fmt.Fprintf(w, "  (%d more %s not listed)\n", more, noun)
	}
	w.WriteString("\n")
}

// writeIndented writes an item's lines under its section: the first
// indented by two spaces, its details by four.
func writeIndented(w *bufio.Writer, lines []string) {
	for i, l := range lines {
		if i == 0 {
			w.WriteString("  ")
		} else {
			w.WriteString("    ")
		}
		w.WriteString(termsafe.Clean(l, false))
		w.WriteByte('\n')
	}
}
