package capture

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"
)

// MaxLogLine is how much of one line the log keeps: a longer line is
// forwarded in full but logged as its first MaxLogLine bytes in text, with
// truncated set.
const MaxLogLine = 16 << 20

// The writer's queue bounds: frames waiting to be written, and the bytes of
// their content. A frame that does not fit is dropped from the log (its seq
// is left unused, so readers count it as missing), never waited for. Every
// log writer (LogWriter, and httpcapture.Log for HTTP) keeps these bounds.
const (
	QueueFrames = 16384
	QueueBytes  = 64 << 20
)

// LogWriter writes one session log from a single goroutine. Frames enter in
// wire order and leave in the same order, each with the next seq.
//
// A line gets its seq and timestamp when the chunk holding its first byte
// is read, before that chunk is forwarded (opBegin), and its content once
// the chunk holding its last byte has been forwarded (opFinish). So a line
// can never be numbered after a line that answers it, even when a peer
// parses a message before its newline arrives; lines that finish early wait
// in the queue until every earlier line is complete.
//
// Logging never holds up traffic: numbering and filling take a lock for a
// few instructions and never block on I/O; encoding, redaction and writing
// happen on the writer's goroutine. When the queue is full, a line does not
// fit its memory budget or the file cannot be written, frames are dropped
// from the log (their seq stays unused, so readers count them as missing),
// and one warning goes to the warn writer.
type LogWriter struct {
	sessionID string
	label     string
	transport string
	path      string
	out       io.WriteCloser
	red       *Redactor
	warn      io.Writer

	mu       sync.Mutex
	seq      uint64
	ring     []slot
	head     uint64 // position of the oldest queued slot
	tail     uint64 // position the next slot takes
	bytes    int    // content bytes queued
	closed   bool
	waiting  bool // the writer goroutine sleeps on wake
	lost     uint64
	reason   string // why the first frame was lost
	warned   bool
	wake     chan struct{}
	finished chan struct{}
}

// slot is one queued frame.
type slot struct {
	seq       uint64
	ts        time.Time
	dir       string
	data      []byte
	truncated bool
	json      bool  // data is compact JSON
	slab      *slab // holds data
	ready     bool  // content known
	drop      bool  // content did not fit: leave the seq unused
}

// ticket names a begun line until it is finished.
type ticket struct {
	pos uint64
	ok  bool // false: the line was dropped when it began
}

// LogOptions configures a LogWriter.
type LogOptions struct {
	SessionID string
	Label     string
	Path      string    // how messages name the log
	Redactor  *Redactor // applied to every frame before it is written; nil for none
	Warn      io.Writer // where the one warning about lost frames goes; nil for nowhere
}

// NewLogWriter starts writing frames of the stdio session o.SessionID to out,
// which it closes on Close.
func NewLogWriter(out io.WriteCloser, o LogOptions) *LogWriter {
	w := &LogWriter{
		sessionID: o.SessionID, label: o.Label, transport: TransportStdio, path: o.Path,
		out: out, red: o.Redactor, warn: o.Warn,
		ring: make([]slot, QueueFrames), wake: make(chan struct{}, 1), finished: make(chan struct{}),
	}
	go w.loop()
	return w
}

// Path is the log's path as given in LogOptions.
func (w *LogWriter) Path() string { return w.path }

// SessionID is the id every frame of this log carries.
func (w *LogWriter) SessionID() string { return w.sessionID }

// Lost is how many frames were dropped from the log so far.
func (w *LogWriter) Lost() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lost
}

// Meta queues the meta frame; call it before any other frame so it is seq 1.
func (w *LogWriter) Meta(m SessionMeta) {
	w.apply(Meta, []op{{kind: opAdd, data: m.JSON(), json: true}})
}

// op is one step of observing a stream, applied with others under one lock.
type op struct {
	kind      int
	t         ticket // opBegin, opAdd: set by apply; opFinish: the line
	data      []byte
	truncated bool
	json      bool  // data is the line's compact JSON (raw), not text
	slab      *slab // data is in this slab: released once written or dropped
}

const (
	opAdd    = iota // a whole line: number it and queue it
	opBegin         // a line starts: number it; its content comes later
	opFinish        // a begun line ends: its content
)

// apply runs ops, observed in direction dir, in order. It sets the ticket
// of each line it numbers. A line's timestamp is taken with its seq, under
// the lock, so that time never runs backwards along the log.
func (w *LogWriter) apply(dir string, ops []op) {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		for k := range ops {
			ops[k].slab.release()
		}
		return
	}
	var ts time.Time
	wake := false
	for k := range ops {
		o := &ops[k]
		switch o.kind {
		case opAdd, opBegin:
			if ts.IsZero() {
				ts = time.Now()
			}
			w.seq++
			o.t = ticket{}
			if w.tail-w.head == uint64(len(w.ring)) {
				w.loseLocked(1, "the write queue is full")
				continue
			}
			s := &w.ring[w.tail%uint64(len(w.ring))]
			*s = slot{seq: w.seq, ts: ts, dir: dir}
			o.t = ticket{pos: w.tail, ok: true}
			w.tail++
			if o.kind == opAdd {
				wake = w.fillLocked(s, o) || wake
			}
		case opFinish:
			if !o.t.ok || o.t.pos < w.head {
				o.slab.release()
				continue
			}
			wake = w.fillLocked(&w.ring[o.t.pos%uint64(len(w.ring))], o) || wake
		}
	}
	if wake && w.waiting {
		w.waiting = false
		w.mu.Unlock()
		select {
		case w.wake <- struct{}{}:
		default:
		}
		return
	}
	w.mu.Unlock()
}

// fillLocked gives a queued slot its content and reports whether it is
// now at the head of the queue (so the writer has work).
func (w *LogWriter) fillLocked(s *slot, o *op) bool {
	if w.bytes+len(o.data) > QueueBytes {
		s.drop = true
		o.slab.release()
		w.loseLocked(1, "a line did not fit the queue's memory budget")
	} else {
		s.data, s.truncated, s.json, s.slab = o.data, o.truncated, o.json, o.slab
		w.bytes += len(o.data)
	}
	s.ready = true
	return s == &w.ring[w.head%uint64(len(w.ring))]
}

func (w *LogWriter) loseLocked(n uint64, reason string) {
	w.lost += n
	if w.reason == "" {
		w.reason = reason
	}
}

// Close stops taking frames, writes those still queued (lines begun but
// never finished are lost), flushes and closes the file. It returns how many
// frames were lost in all.
func (w *LogWriter) Close() uint64 {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		w.waiting = false
		select {
		case w.wake <- struct{}{}:
		default:
		}
	}
	w.mu.Unlock()
	<-w.finished
	return w.Lost()
}

// How the writer batches. While frames keep coming it polls the queue
// every pollInterval instead of being woken for each frame, and writes in
// big chunks: appending to a file costs far more per call than per byte.
// It flushes when the buffer is full, when the queue has stayed empty for
// idlePolls polls, and at least every MaxFlushDelay, so a log is never far
// behind the wire; on Close everything is flushed. WriteBuffer and
// MaxFlushDelay bound every log writer's batching.
const (
	WriteBuffer   = 1 << 20
	pollInterval  = time.Millisecond
	idlePolls     = 3
	MaxFlushDelay = 200 * time.Millisecond
)

// loop is the writer goroutine.
func (w *LogWriter) loop() {
	defer close(w.finished)
	fe := newFrameEncoder(w.sessionID, w.label)
	var generic bytes.Buffer
	enc := json.NewEncoder(&generic)
	enc.SetEscapeHTML(false)
	var (
		buf       = make([]byte, 0, WriteBuffer) // frames encoded, not yet written
		batch     []slot
		unflushed uint64 // frames in buf
		dead      bool   // the file failed: nothing more is written
		idle      int    // polls in a row that found nothing
		lastFlush = time.Now()
	)
	lose := func(n uint64, reason string) {
		w.mu.Lock()
		w.loseLocked(n, reason)
		w.mu.Unlock()
	}
	// flush writes buf out. After a failed write nothing more is written:
	// the file may end in a torn line, which must stay its last.
	flush := func() {
		lastFlush = time.Now()
		if unflushed > 0 && !dead {
			n, err := w.out.Write(buf)
			if err == nil && n < len(buf) {
				err = io.ErrShortWrite
			}
			if err != nil {
				dead = true
				lose(unflushed, fmt.Sprintf("writing failed: %v", err))
			}
		}
		unflushed = 0
		buf = buf[:0]
		if cap(buf) > 2*WriteBuffer {
			buf = make([]byte, 0, WriteBuffer) // do not keep a huge frame's room
		}
	}
	for {
		w.mu.Lock()
		batch = w.popLocked(batch[:0])
		if len(batch) == 0 {
			if w.closed && w.head == w.tail {
				w.mu.Unlock()
				flush()
				_ = w.out.Close()
				w.warnOnce()
				return
			}
			if idle < idlePolls {
				w.mu.Unlock()
				idle++
				time.Sleep(pollInterval)
				continue
			}
			if unflushed > 0 {
				w.mu.Unlock()
				flush()
				w.warnOnce()
				continue
			}
			w.waiting = true
			w.mu.Unlock()
			<-w.wake
			idle = 0
			continue
		}
		w.mu.Unlock()
		idle = 0
		for i := range batch {
			s := &batch[i]
			if s.drop {
				continue
			}
			if dead {
				s.slab.release()
				lose(1, "")
				continue
			}
			f := w.frame(s)
			if fe.handles(&f) {
				buf = fe.appendFrame(buf, &f)
			} else {
				generic.Reset()
				if err := enc.Encode(&f); err != nil {
					// Only a bad Raw can fail, and Raw was validated; keep
					// the seq unused rather than write a broken line.
					s.slab.release()
					lose(1, fmt.Sprintf("encoding failed: %v", err))
					continue
				}
				buf = append(buf, generic.Bytes()...)
			}
			unflushed++
			s.slab.release()
			*s = slot{} // let the line's memory go
			if len(buf) >= WriteBuffer {
				flush()
			}
		}
		if time.Since(lastFlush) >= MaxFlushDelay {
			flush()
		}
		w.warnOnce()
	}
}

// popLocked moves the ready slots at the head of the queue into batch. Once
// the writer is closed, slots still waiting for their content are taken too,
// as drops: their lines never finished.
func (w *LogWriter) popLocked(batch []slot) []slot {
	n := uint64(len(w.ring))
	for w.head < w.tail {
		s := &w.ring[w.head%n]
		if !s.ready {
			if !w.closed {
				break
			}
			s.drop = true
			w.loseLocked(1, "a line was still open when the capture ended")
		}
		batch = append(batch, *s)
		w.bytes -= len(s.data)
		*s = slot{}
		w.head++
	}
	return batch
}

// warnOnce prints the one warning about lost frames, the first time there
// are any.
func (w *LogWriter) warnOnce() {
	w.mu.Lock()
	if w.warned || w.lost == 0 {
		w.mu.Unlock()
		return
	}
	w.warned = true
	reason := w.reason
	w.mu.Unlock()
	if w.warn != nil {
		fmt.Fprintf(w.warn, "mcpsnoop: warning: frames are being dropped from the log %s (%s); traffic is not affected\n", w.path, reason)
	}
}

// frame turns a queued slot into the envelope to write.
func (w *LogWriter) frame(s *slot) Frame {
	f := Frame{SessionID: w.sessionID, ServerLabel: w.label, Seq: s.seq, TS: s.ts, Direction: s.dir, Transport: w.transport}
	if s.json {
		f.Raw = s.data
	} else {
		f.Text = string(s.data)
		f.Truncated = s.truncated
	}
	if w.red != nil {
		w.red.Apply(&f)
	}
	return f
}
