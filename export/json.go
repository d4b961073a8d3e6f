package export

import (
	"bufio"
	"io"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// JSON is the json format: one pretty-printed document per session
// (capture-store-export.md 7.2), several sessions one after another (a JSON
// stream, which jq reads as it is). Each document also carries the session's
// multi-round-trip interactions and its elicitation ledger.
type JSON struct {
	buf []byte
}

// NewJSON returns the json format.
func NewJSON() Format { return &JSON{} }

// Events and calls sit two levels deep: in an array, in the document.
const recordDepth = 2

// Event renders one frame (the meta frame is not an event).
func (f *JSON) Event(ev *checker.FrameEvent) ([]byte, error) {
	if ev.Kind == checker.EventMeta {
		return nil, nil
	}
	o := newObj(f.buf[:0], false)
	eventFields(&o, ev)
	if fr := ev.Frame; len(fr.Raw) > 0 {
		o.json("raw", fr.Raw)
	} else if fr.Text != "" {
		o.str("text", fr.Text)
	}
	f.buf = o.close()
	return f.buf, nil
}

// Call renders one call with its bodies.
func (f *JSON) Call(r *checker.CallRecord) ([]byte, error) {
	o := newObj(f.buf[:0], false)
	callFields(&o, r, func(o *objWriter, k string, v []byte) { o.json(k, v) })
	f.buf = o.close()
	return f.buf, nil
}

// Begin writes nothing: every document stands alone.
func (f *JSON) Begin(w io.Writer, o *Output) error { return nil }

// End writes nothing.
func (f *JSON) End(w io.Writer, o *Output) error { return nil }

// Session writes the session's document.
func (f *JSON) Session(w io.Writer, s *Session) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	r := s.Report
	head := []member{
		{"generated_at", s.Output.GeneratedAt.UTC()},
		{"session", newSessionDoc(s)},
		{"summary", newSummaryDoc(s)},
	}
	if caps := newCapabilitiesDoc(&r.Capabilities); caps != nil {
		head = append(head, member{"capabilities", caps})
	}
	bw.WriteString("{")
	for i, h := range head {
		b, err := marshal(h.v, 1)
		if err != nil {
			return err
		}
		if i > 0 {
			bw.WriteString(",")
		}
		bw.WriteString("\n  \"" + h.key + "\": ")
		bw.Write(b)
	}
	if err := f.writeRecords(bw, "calls", s.Calls); err != nil {
		return err
	}
	tail := []member{
		{"interactions", nonNil(r.Interactions)},
		{"elicitations", nonNil(r.Elicitations)},
	}
	if r.InteractionsTruncated > 0 {
		tail = append(tail, member{"interactions_truncated", r.InteractionsTruncated})
	}
	if r.ElicitationsTruncated > 0 {
		tail = append(tail, member{"elicitations_truncated", r.ElicitationsTruncated})
	}
	for _, t := range tail {
		b, err := marshal(t.v, 1)
		if err != nil {
			return err
		}
		bw.WriteString(",\n  \"" + t.key + "\": ")
		bw.Write(b)
	}
	if err := f.writeRecords(bw, "events", s.Events); err != nil {
		return err
	}
	bw.WriteString("\n}\n")
	return bw.Flush()
}

// member is one top-level member of a document.
type member struct {
	key string
	v   any
}

// writeRecords writes `,"key": [records]` as a member of the document,
// indenting each compact record.
func (f *JSON) writeRecords(bw *bufio.Writer, key string, recs Records) error {
	bw.WriteString(",\n  \"" + key + "\": [")
	kept := false
	err := EachKept(recs, func(_, n int, b []byte) error {
		if n > 0 {
			bw.WriteByte(',')
		}
		kept = true
		f.buf = appendIndent(append(f.buf[:0], "\n    "...), b, recordDepth)
		_, err := bw.Write(f.buf)
		return err
	})
	if err != nil {
		return err
	}
	if kept {
		bw.WriteString("\n  ")
	}
	bw.WriteString("]")
	return nil
}

// nonNil turns a nil slice into an empty one, so it encodes as [].
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
