package httpcapture

import (
	"bytes"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// sseParser cuts a text/event-stream into the data of its events, as the
// stream goes by, following the event-stream rules of the HTML standard:
// lines end in LF, CRLF or CR; an empty line ends an event; the data of an
// event is its "data" fields joined with LF (one space after the colon is
// not part of the value); every other field and comment is ignored, and an
// event without data is not dispatched.
//
// Only data is kept, and at most capture.MaxLogLine bytes of it per event
// (less when the log's memory budget runs out); a longer event is
// dispatched cut, with truncated set. Memory stays bounded by that,
// whatever the length of a line.
type sseParser struct {
	emit func(data []byte, truncated bool)

	cp      logCopy // the current event's data so far
	hasData bool    // the current event has a data field

	state   int    // what the rest of the current line is
	field   []byte // the current line's field name so far, up to 5 bytes
	empty   bool   // nothing on the current line yet
	cr      bool   // the last chunk ended in CR: a leading LF belongs to it
	started bool   // a byte-order mark at the start has been dealt with
	bom     int    // bytes of a byte-order mark seen so far
}

const byteOrderMark = "\xef\xbb\xbf"

// Line states.
const (
	sseField  = iota // reading the field name
	sseSpace         // a data field's colon was read: one space may follow
	sseValue         // in a data field's value
	sseIgnore        // in another field, or a comment
)

func newSSEParser(emit func(data []byte, truncated bool), mem *memBudget) *sseParser {
	return &sseParser{emit: emit, empty: true, cp: logCopy{mem: mem}}
}

// feed parses the next bytes of the stream.
func (p *sseParser) feed(b []byte) {
	for !p.started && len(b) > 0 {
		// A byte-order mark may open the stream, even split over chunks.
		if b[0] != byteOrderMark[p.bom] {
			p.started = true
			p.feed([]byte(byteOrderMark[:p.bom])) // not a mark after all
			break
		}
		b = b[1:]
		if p.bom++; p.bom == len(byteOrderMark) {
			p.started = true
		}
	}
	for len(b) > 0 {
		if p.cr {
			p.cr = false
			if b[0] == '\n' {
				b = b[1:]
				continue
			}
		}
		i := bytes.IndexAny(b, "\r\n")
		if i < 0 {
			p.segment(b)
			return
		}
		p.segment(b[:i])
		if b[i] == '\r' {
			if i+1 == len(b) {
				p.cr = true
			} else if b[i+1] == '\n' {
				i++
			}
		}
		p.endLine()
		b = b[i+1:]
	}
}

// segment takes part of a line.
func (p *sseParser) segment(b []byte) {
	if len(b) == 0 {
		return
	}
	p.empty = false
	switch p.state {
	case sseField:
		c := bytes.IndexByte(b, ':')
		name := b
		if c >= 0 {
			name = b[:c]
		}
		if room := 5 - len(p.field); room > 0 {
			p.field = append(p.field, name[:min(len(name), room)]...)
		}
		if c < 0 {
			if len(p.field) > 4 {
				p.state = sseIgnore // too long for "data"
			}
			return
		}
		if string(p.field) != "data" {
			p.state = sseIgnore
			return
		}
		p.beginData()
		p.state = sseSpace
		p.segment(b[c+1:])
	case sseSpace:
		if b[0] == ' ' {
			b = b[1:]
		}
		p.state = sseValue
		p.add(b)
	case sseValue:
		p.add(b)
	}
}

// endLine ends the current line: an empty one dispatches the event; a
// lone "data" (no colon) is a data field with an empty value.
func (p *sseParser) endLine() {
	switch {
	case p.empty:
		p.dispatch()
	case p.state == sseField && string(p.field) == "data":
		p.beginData()
	}
	p.state, p.field, p.empty = sseField, p.field[:0], true
}

// beginData starts a data field: values are joined with LF.
func (p *sseParser) beginData() {
	if p.hasData {
		p.add([]byte{'\n'})
	}
	p.hasData = true
}

func (p *sseParser) add(b []byte) { p.cp.add(b, capture.MaxLogLine) }

// dispatch hands the finished event's data on; the parser lets go of it.
func (p *sseParser) dispatch() {
	data, truncated := p.cp.take()
	if p.hasData {
		p.emit(data, truncated)
	}
	p.hasData = false
}

// end is the end of the stream. When it ended cleanly, an event the server
// did not terminate with an empty line still counts (other captures log it
// too); when it was cut, the event in progress is dropped.
func (p *sseParser) end(clean bool) {
	if clean {
		if !p.empty {
			p.endLine()
		}
		p.dispatch()
	}
	p.cp.take()
	p.hasData = false
}
