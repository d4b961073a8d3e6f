package capture

import (
	"bytes"
	"sync"
	"sync/atomic"
)

// LineSplitter cuts one direction's byte stream into log lines, in two
// steps around forwarding each chunk: Number (before) gives every line that
// starts in the chunk its seq, so that no answer to it can be numbered
// first; Fill (after) works out what each finished line is, raw JSON or
// text, while its bytes are still in the cache, and hands it to the log.
//
// A stream is read into Buffer, each chunk read shown to Number, forwarded,
// then shown to Fill; End marks the end of the stream. One goroutine drives
// a LineSplitter.
type LineSplitter struct {
	w   *LogWriter
	dir string
	// keepEmpty records empty lines (stderr); on the protocol channel an
	// empty line is forwarded but is no frame.
	keepEmpty bool

	open      bool   // a line has begun and not ended
	t         Ticket // the open line's
	buf       []byte // the open line's log copy, at most MaxLogLine bytes
	truncated bool   // the open line is longer than buf
	// lone CR: on the protocol channel the open line is just "\r" so far,
	// not numbered yet, since "\r\n" would make it an empty line.
	loneCR bool

	ops  []op       // numbering, for apply
	done []doneLine // lines that ended in the chunk, for fill
	cur  *slab      // the slab the current chunk was read into
	// slabs is how many slabs the stream has been read into: its first is
	// a small one, so that an idle stream holds little.
	slabs int
}

// doneLine is a line that ended in the current chunk.
type doneLine struct {
	op        int // index in ops of the opBegin that numbered it, or -1
	t         Ticket
	data      []byte
	truncated bool
	slab      *slab // data is in this slab, which it holds a reference to
}

// Lines returns the splitter for the byte stream observed in direction dir
// (ClientToServer, ServerToClient or Stderr). Empty lines are frames on
// stderr only: on the protocol channel they are forwarded but not logged.
func (w *LogWriter) Lines(dir string) *LineSplitter {
	return &LineSplitter{w: w, dir: dir, keepEmpty: dir == Stderr}
}

// Buffer returns room for the next read of up to n bytes (n at most 1 MiB).
// Lines that end in the chunk read go to the log as slices of this room,
// without a copy.
func (l *LineSplitter) Buffer(n int) []byte {
	if l.cur == nil || len(l.cur.buf)-l.cur.used < n {
		l.cur.release()
		l.cur = newSlab(l.slabs == 0 && n <= firstSlabSize)
		l.slabs++
	}
	return l.cur.buf[l.cur.used : l.cur.used+n]
}

// Number observes chunk, just read into the last Buffer, before it is
// forwarded.
func (l *LineSplitter) Number(chunk []byte) {
	l.cur.used += len(chunk)
	l.number(chunk)
}

// Fill hands the lines that ended in the last chunk to the log, once the
// chunk was forwarded.
func (l *LineSplitter) Fill() { l.fill() }

// End observes the end of the stream and lets the buffer go.
func (l *LineSplitter) End() {
	l.end()
	l.cur.release()
	l.cur = nil
}

// Cut ends the observation where it is, when the rest of the stream will
// not be observed: a line still open is logged as the part seen so far,
// marked truncated (it never ended, so it is no message). The buffer is let
// go; the splitter takes nothing more.
func (l *LineSplitter) Cut() {
	if l.open {
		l.truncated = true
	}
	l.loneCR = false // not numbered yet: nothing to log
	l.End()
}

// number observes the chunk b before it is forwarded.
func (l *LineSplitter) number(b []byte) {
	ops, done := l.ops[:0], l.done[:0]
	openOp := -1
	for len(b) > 0 {
		seg, rest, ended := b, []byte(nil), false
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			seg, rest, ended = b[:i], b[i+1:], true
		}
		b = rest
		if l.loneCR {
			l.loneCR = false
			if ended && len(seg) == 0 {
				continue // "\r\n": an empty line
			}
			ops = append(ops, op{kind: opBegin})
			line := append(append(make([]byte, 0, len(seg)+1), '\r'), seg...)
			if ended {
				data, trunc := capped(trimCR(line))
				done = append(done, doneLine{op: len(ops) - 1, data: data, truncated: trunc})
				continue
			}
			l.open, l.buf, l.truncated = true, nil, false
			l.add(line)
			openOp = len(ops) - 1
			continue
		}
		if l.open {
			l.add(seg)
			if ended {
				if l.numberAtEnd() {
					ops = append(ops, op{kind: opBegin})
					done = append(done, doneLine{op: len(ops) - 1, data: l.line(), truncated: l.truncated})
				} else {
					done = append(done, doneLine{op: -1, t: l.t, data: l.line(), truncated: l.truncated})
				}
				l.open, l.buf, l.truncated = false, nil, false
			}
			continue
		}
		if ended {
			line := trimCR(seg)
			if len(line) == 0 && !l.keepEmpty {
				continue
			}
			// The line goes to the log as a slice of the slab, which it
			// keeps from being reused until the line is written.
			data, trunc := capped(line)
			ops = append(ops, op{kind: opBegin})
			done = append(done, doneLine{op: len(ops) - 1, data: data, truncated: trunc, slab: l.cur.hold()})
			continue
		}
		if !l.keepEmpty && len(seg) == 1 && seg[0] == '\r' {
			l.loneCR = true
			continue
		}
		l.open, l.buf, l.truncated = true, nil, false
		l.add(seg)
		if l.numberAtEnd() {
			continue // numbered when it ends
		}
		ops = append(ops, op{kind: opBegin})
		openOp = len(ops) - 1
	}
	if len(ops) > 0 {
		l.w.apply(l.dir, ops)
		for k := range done {
			if done[k].op >= 0 {
				done[k].t = ops[done[k].op].t
			}
		}
		if openOp >= 0 {
			l.t = ops[openOp].t
		}
	}
	l.ops, l.done = ops, done
}

// numberAtEnd says whether lines get their seq when they end rather than
// when they begin. Protocol lines are numbered at their first byte, so that
// no answer can be logged before its request; nothing answers a stderr line,
// and numbering one early would let a line the server never ends (a progress
// spinner, a prompt) hold back every frame behind it.
func (l *LineSplitter) numberAtEnd() bool { return l.dir == Stderr }

// fill hands the lines that ended in the chunk to the log, after the chunk
// was forwarded.
func (l *LineSplitter) fill() {
	if len(l.done) == 0 {
		return
	}
	ops := l.ops[:0]
	for _, d := range l.done {
		o := op{kind: opFinish, t: d.t, data: d.data, truncated: d.truncated, slab: d.slab}
		l.classify(&o)
		ops = append(ops, o)
	}
	l.w.apply(l.dir, ops)
	clear(ops)
	clear(l.done)
	l.ops, l.done = ops[:0], l.done[:0]
}

// classify decides whether a finished line is logged as raw JSON
// (compacted) or as text.
func (l *LineSplitter) classify(o *op) {
	if l.dir == Stderr || o.truncated {
		return
	}
	var scratch bytes.Buffer
	raw, ok := CompactJSON(o.data, &scratch)
	if !ok {
		return
	}
	if len(raw) != len(o.data) {
		// Compacted into a buffer of its own: the slab is not needed.
		o.slab.release()
		o.slab = nil
	}
	o.data, o.json = raw, true
}

// end observes the end of the stream: a last line without a newline is a
// frame too.
func (l *LineSplitter) end() {
	switch {
	case l.loneCR:
		l.loneCR = false
		l.w.apply(l.dir, []op{{kind: opAdd, data: []byte{'\r'}}})
	case l.open:
		// Without a newline, a trailing "\r" is part of the line.
		data := l.buf
		if data == nil {
			data = []byte{}
		}
		o := op{kind: opFinish, t: l.t, data: data, truncated: l.truncated}
		if l.numberAtEnd() {
			o = op{kind: opAdd, data: data, truncated: l.truncated}
		}
		l.classify(&o)
		l.w.apply(l.dir, []op{o})
		l.open, l.buf = false, nil
	}
}

// add appends seg to the open line's copy, up to MaxLogLine.
func (l *LineSplitter) add(seg []byte) {
	if room := MaxLogLine - len(l.buf); len(seg) > room {
		seg = seg[:max(room, 0)]
		l.truncated = true
	}
	l.buf = append(l.buf, seg...)
}

// line is the open line's copy without the "\r" of a "\r\n" ending.
func (l *LineSplitter) line() []byte {
	if l.truncated {
		return l.buf
	}
	if l.buf == nil {
		return []byte{}
	}
	return trimCR(l.buf)
}

func trimCR(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\r' {
		return b[:n-1]
	}
	return b
}

// capped is b cut to MaxLogLine bytes.
func capped(b []byte) ([]byte, bool) {
	if len(b) > MaxLogLine {
		return b[:MaxLogLine], true
	}
	return b, false
}

// slabSize is the size of the buffers a logged stream is read into. Lines
// that end inside a read go to the log as slices of the slab, without a
// copy. A slab counts the lines that still use it and goes back to its pool
// when the last is written and the pump has moved on.
const slabSize = 1 << 20

// firstSlabSize is the size of a stream's first slab: one pump read. Most
// streams of a shim carry a few messages (stderr often none), and a
// megabyte each would bring the garbage collector's first cycle, and the
// memory it keeps, forward to the shim's start.
const firstSlabSize = 64 << 10

type slab struct {
	buf  []byte
	used int
	refs atomic.Int32
	pool *sync.Pool // where it goes back to
}

var (
	slabs      = sync.Pool{}
	firstSlabs = sync.Pool{}
)

func init() {
	slabs.New = func() any { return &slab{buf: make([]byte, slabSize), pool: &slabs} }
	firstSlabs.New = func() any { return &slab{buf: make([]byte, firstSlabSize), pool: &firstSlabs} }
}

// newSlab takes a slab from its pool: a stream's first (small) one, or a
// full-size one.
func newSlab(first bool) *slab {
	pool := &slabs
	if first {
		pool = &firstSlabs
	}
	s := pool.Get().(*slab)
	s.used = 0
	s.refs.Store(1) // the pump's
	return s
}

// hold takes a reference for a line.
func (s *slab) hold() *slab {
	s.refs.Add(1)
	return s
}

// release drops a reference; s may be nil.
func (s *slab) release() {
	if s != nil && s.refs.Add(-1) == 0 {
		s.pool.Put(s)
	}
}
