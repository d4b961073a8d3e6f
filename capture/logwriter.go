package capture

import (
	"fmt"
	"io"
	"sync"
	"time"
	"unsafe"

	"github.com/mcpsnoop/mcpsnoop/internal/jsonstring"
)

// MaxLogLine is how much of one line the log keeps: a longer line is
// forwarded in full but logged as its first MaxLogLine bytes in text, with
// truncated set.
const MaxLogLine = 16 << 20

// The writer's queue bounds: observations waiting to be written, and the
// bytes of their content. An observation that does not fit is dropped from
// the log (its seq is left unused, so readers count it as missing), never
// waited for.
const (
	QueueFrames = 16384
	QueueBytes  = 64 << 20
)

// firstRing is how many entries the queue's ring holds at first. It grows
// by doubling up to the queue's bound only when a burst fills it: most
// sessions never queue more than a few observations, and a ring of
// QueueFrames entries from the start is 2 MB every shim zeroes and the
// garbage collector scans.
const firstRing = 256

// LogWriter writes one session log from a single goroutine. It is the one
// log writer of every capture: the stdio shim hands it lines, the HTTP
// proxy request bodies, response bodies and events.
//
// A capture hands it observations in wire order. An observation takes its
// place in the queue (and its timestamp) when it begins, before any of its
// bytes are forwarded (Begin, or a LineSplitter's Number), and gets its
// content once it is complete (Finish, Fill). The writer turns each
// complete observation into frames (a stdio line is one frame; an HTTP body
// none, one, or one per batch element, as the LogOptions' Framer says) and
// numbers them in queue order. So a frame can never be numbered after a
// frame that answers it, even when a peer acts on a message before its end
// arrives; observations that complete early wait in the queue until every
// earlier one is complete.
//
// Every lost observation leaves a gap in seq. Its place in the sequence is
// fixed when it is captured: an observation dropped because the queue is
// full, or because it did not fit the queue's memory budget (a piece of a
// stream, AddStream, is kept up to twice it, its frames counted lost one
// by one: see Observation.Over), or because it
// was still open at Close, uses one seq that no frame carries; so does every
// frame the file could not take, or that would have passed the log's size
// bound (LogOptions.MaxSize). Lost counts them all, and when it is not zero
// at Close the log ends with a closing frame (see writeClosing) that records
// the last seq given and the count, so that a loss at the end of the log,
// after which no frame shows the gap, is still counted by readers.
//
// Logging never holds up traffic: taking a place and handing over content
// take a lock for a few instructions and never block on I/O; framing,
// redaction, encoding and writing happen on the writer's goroutine. One
// warning goes to the warn writer the first time anything is lost.
type LogWriter struct {
	sessionID string
	label     string
	transport string
	path      string
	red       *Redactor
	warn      *Notices // never waited for: stderr may be a full pipe nobody reads
	ownWarn   bool     // warn was made here: Close closes it
	framer    Framer
	stall     time.Duration // 0: an open observation holds the line until it completes
	closeWait time.Duration // LogOptions.CloseTimeout; 0: closeTimeout
	maxBytes  int           // the queue's memory budget
	// unreserved: no room could be set aside for the closing frame
	// (logreserve.go); the first frame written says so.
	unreserved bool

	mu       sync.Mutex
	ring     []entry // grows up to queue entries (growLocked)
	queue    int     // how many observations the queue holds at most
	head     uint64  // position of the oldest queued entry
	tail     uint64  // position the next entry takes
	bytes    int     // content bytes queued
	skip     uint64  // seqs lost since the last queued entry
	parked   []parkedEntry
	parkedG  map[any]int // how many entries of a group are parked
	closed   bool
	waiting  bool // the writer goroutine sleeps on wake
	lost     uint64
	reason   string // why the first frame was lost
	warned   bool
	wake     chan struct{}
	finished chan struct{}
	// A Close that saw one call to the output last CloseTimeout gives up
	// on the writer (abandoned); see closeBound.
	inIO      bool      // the writer goroutine is in a call to its output
	ioStart   time.Time // since when
	held      uint64    // meanwhile: the frames it holds that are not written
	abandoned bool

	// The writer goroutine's own.
	sink  *logSink
	owed  uint64 // frames (or observations not yet framed) taken from the queue, neither in the sink's buffer nor counted
	quit  bool   // the writer was abandoned: do nothing more
	first bool   // a frame went to the sink
}

// entry is one queued observation.
type entry struct {
	ts        time.Time
	dir       string
	group     any // entries of one group are written in their order (parking)
	info      any // what the capture attached, for the Framer
	data      []byte
	truncated bool
	json      bool  // data is compact JSON
	slab      *slab // holds data: released once written or dropped
	skip      uint64
	ready     bool // content known
	over      bool // kept past the memory budget: its frames are lost (Observation.Over)
	drop      bool // lost: leave one seq unused
	gap       bool // only skip: the seqs lost just before a parked entry
}

// parkedEntry is an entry the line went past while it was still open, or
// that waits behind an open one of its group.
type parkedEntry struct {
	pos uint64
	e   entry
}

// Ticket names a begun observation until it is finished.
type Ticket struct {
	pos uint64
	ok  bool // false: the observation was dropped when it began
}

// OK reports whether the observation took a place in the queue (it was not
// dropped when it began).
func (t Ticket) OK() bool { return t.ok }

// Observation is a complete observation as a Framer sees it.
type Observation struct {
	TS        time.Time // when it began
	Direction string
	Data      []byte
	Truncated bool
	JSON      bool // Data is compact JSON
	Info      any  // what the capture attached to it
	// Over: the observation (one of a stream, see AddStream) did not fit
	// the queue's memory budget. The Framer reads it, to keep its state,
	// and counts every frame it holds with Lose instead of making it.
	Over bool

	w    *LogWriter
	lost uint64
}

// Lose counts one frame of the observation that the Framer could not make
// (what it would have held did not fit): it is lost like any other, with
// a seq of its own left unused, after the observation's frames.
func (o *Observation) Lose(reason string) {
	o.lost++
	o.w.lose(1, reason)
}

// A DropFramer is a Framer that is told of each observation with an info
// that was dropped after it took its place in the queue (it did not fit
// the queue's memory budget, it stalled at the head of a full queue, or it
// was still open at Close), on the writer's goroutine, in queue order: a
// Framer that decodes a stream across observations must know of the hole.
type DropFramer interface {
	Dropped(info any)
}

// A Framer turns observations into frames, on the writer's goroutine.
// Frames appends an observation's frames to out, in order, leaving
// SessionID, ServerLabel, Seq and (when empty) Transport to the writer; it
// may append none. Written is called with those frames once they are
// numbered and redacted, before the next observation is framed.
type Framer interface {
	Frames(o *Observation, out []Frame) []Frame
	Written(o *Observation, frames []Frame)
}

// LogOptions configures a LogWriter.
type LogOptions struct {
	SessionID string
	Label     string
	Transport string    // TransportStdio when empty
	Path      string    // how messages name the log
	Redactor  *Redactor // applied to every frame before it is written; nil for none
	// Warn is where the one warning about lost frames goes; nil for
	// nowhere. It is written through a Notices (Warn itself when it is
	// one), so the writer never waits on it.
	Warn io.Writer
	// MaxSize bounds the bytes of frames this log writes; past it frames
	// are dropped and counted. 0 is no bound. The closing frame is written
	// even past it.
	MaxSize int64
	// Framer turns observations into frames; nil makes each one frame (a
	// stdio line).
	Framer Framer
	// Stall is how long an open observation may hold up the observations
	// behind it before the writer parks it and goes on (see popLocked);
	// 0 holds the line until it completes.
	Stall time.Duration
	// Queue is how many observations the queue holds; QueueFrames when 0.
	Queue int
	// QueueMemory bounds the content bytes queued; QueueBytes when 0.
	QueueMemory int
	// CloseTimeout is how long Close lets one call to out go without
	// returning before it gives up on out; CloseTimeout when 0. (A test
	// whose output never hangs sets it long: a busy machine can hold a
	// call up for seconds.)
	CloseTimeout time.Duration
}

// NewLogWriter starts writing frames of the session o.SessionID to out,
// which it closes on Close.
func NewLogWriter(out io.WriteCloser, o LogOptions) *LogWriter {
	queue := o.Queue
	if queue <= 0 {
		queue = QueueFrames
	}
	maxBytes := o.QueueMemory
	if maxBytes <= 0 {
		maxBytes = QueueBytes
	}
	w := &LogWriter{
		sessionID: o.SessionID, label: o.Label, transport: o.Transport, path: o.Path,
		red: o.Redactor, framer: o.Framer, stall: o.Stall, closeWait: o.CloseTimeout, maxBytes: maxBytes,
		ring: make([]entry, min(queue, firstRing)), queue: queue, parkedG: map[any]int{},
		wake: make(chan struct{}, 1), finished: make(chan struct{}),
	}
	if w.transport == "" {
		w.transport = TransportStdio
	}
	w.warn, w.ownWarn = NoticesFor(o.Warn)
	w.sink = newLogSink(w, out, o.MaxSize)
	w.unreserved = w.reserveClosing(out)
	go w.loop()
	return w
}

// Unreserved reports whether the log could not set room aside for its
// closing frame when it opened (its first frame says so).
func (w *LogWriter) Unreserved() bool { return w.unreserved }

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

// Queued is how many observations wait to be written.
func (w *LogWriter) Queued() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return int(w.tail-w.head) + len(w.parked)
}

// Idle reports whether the writer has written out everything it was
// given and sleeps until more comes: nothing queued, nothing parked, its
// buffer flushed (it only sleeps with nothing buffered). Tests wait on it
// instead of guessing how long a flush takes.
func (w *LogWriter) Idle() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.waiting && w.head == w.tail && len(w.parked) == 0
}

// Meta queues the meta frame; call it before any other frame so it is seq 1.
func (w *LogWriter) Meta(m SessionMeta) {
	w.apply(Meta, []op{{kind: opAdd, data: m.JSON(), json: true}})
}

// Begin queues an observation in direction dir whose content comes later
// (Finish). Entries of one group keep their order when the line goes past
// a stalled one; info is handed to the Framer.
func (w *LogWriter) Begin(dir string, group, info any) Ticket {
	ops := [1]op{{kind: opBegin, group: group, info: info}}
	w.apply(dir, ops[:])
	return ops[0].t
}

// Finish gives a begun observation its content.
func (w *LogWriter) Finish(t Ticket, data []byte, truncated bool) {
	ops := [1]op{{kind: opFinish, t: t, data: data, truncated: truncated}}
	w.apply("", ops[:])
}

// Add queues a complete observation.
func (w *LogWriter) Add(dir string, group, info any, data []byte, truncated bool) Ticket {
	ops := [1]op{{kind: opAdd, group: group, info: info, data: data, truncated: truncated}}
	w.apply(dir, ops[:])
	return ops[0].t
}

// AddStream queues a complete observation that is one piece of a stream
// the Framer must see whole (a chunk of a compressed body: losing one
// makes the rest undecodable). When it does not fit the queue's memory
// budget it is still queued, up to twice the budget, marked Over: the
// Framer reads it and counts its frames lost, one by one. Past twice the
// budget it is dropped as any other; a DropFramer is told.
func (w *LogWriter) AddStream(dir string, group, info any, data []byte) Ticket {
	ops := [1]op{{kind: opAdd, group: group, info: info, data: data, stream: true}}
	w.apply(dir, ops[:])
	return ops[0].t
}

// op is one step of observing a stream, applied with others under one lock.
type op struct {
	kind      int
	t         Ticket // opBegin, opAdd: set by apply; opFinish: the observation
	group     any
	info      any
	data      []byte
	truncated bool
	json      bool  // data is compact JSON (raw), not text
	slab      *slab // data is in this slab: released once written or dropped
	stream    bool  // AddStream
}

const (
	opAdd    = iota // a complete observation: queue it
	opBegin         // an observation starts: queue it; its content comes later
	opFinish        // a begun observation ends: its content
)

// apply runs ops, observed in direction dir, in order. It sets the ticket
// of each observation it queues. An observation's timestamp is taken with
// its place, under the lock, so that time never runs backwards along the
// log.
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
	n := uint64(len(w.ring))
	for k := range ops {
		o := &ops[k]
		switch o.kind {
		case opAdd, opBegin:
			if ts.IsZero() {
				ts = time.Now()
			}
			o.t = Ticket{}
			if w.tail-w.head+uint64(len(w.parked)) >= n && len(w.ring) < w.queue {
				w.growLocked()
				n = uint64(len(w.ring))
			}
			if w.tail-w.head+uint64(len(w.parked)) >= n {
				wake = w.dropStalledHeadLocked() || wake
				w.loseLocked(1, "the write queue is full")
				w.skip++
				o.slab.release()
				continue
			}
			pos := w.tail
			e := &w.ring[pos%n]
			*e = entry{ts: ts, dir: dir, group: o.group, info: o.info, skip: w.skip}
			w.skip = 0
			o.t = Ticket{pos: pos, ok: true}
			w.tail++
			if o.kind == opAdd {
				wake = w.fillLocked(e, o) && pos == w.head || wake
			} else if pos == w.head && w.stall > 0 {
				wake = true // the writer times how long the open head may hold the line
			}
		case opFinish:
			pos := o.t.pos
			switch {
			case !o.t.ok || pos >= w.tail:
				o.slab.release()
			case pos < w.head:
				found := false
				for i := range w.parked {
					if p := &w.parked[i]; p.pos == pos {
						wake = w.fillLocked(&p.e, o) || wake
						found = true
						break
					}
				}
				if !found {
					o.slab.release() // written as lost already
				}
			default:
				wake = w.fillLocked(&w.ring[pos%n], o) && pos == w.head || wake
			}
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

// growLocked doubles the ring, up to the queue's bound, keeping every
// queued entry at its position.
func (w *LogWriter) growLocked() {
	ring := make([]entry, min(2*len(w.ring), w.queue))
	old, n := uint64(len(w.ring)), uint64(len(ring))
	for pos := w.head; pos < w.tail; pos++ {
		ring[pos%n] = w.ring[pos%old]
	}
	w.ring = ring
}

// dropStalledHeadLocked gives up an open observation at the head of a full
// queue, when the writer parks stalled observations: everything behind it
// waits on it, so losing it costs one observation, not all that follow.
func (w *LogWriter) dropStalledHeadLocked() bool {
	if w.stall <= 0 || w.head == w.tail {
		return false
	}
	h := &w.ring[w.head%uint64(len(w.ring))]
	if h.ready {
		return false
	}
	h.ready, h.drop = true, true
	w.loseLocked(1, "an observation stalled at the head of the write queue")
	return true
}

// fillLocked gives a queued entry its content; it reports false when the
// entry already had it.
func (w *LogWriter) fillLocked(e *entry, o *op) bool {
	if e.ready {
		o.slab.release()
		return false
	}
	over := w.bytes+len(o.data) > w.maxBytes
	if over && (!o.stream || w.bytes+len(o.data) > 2*w.maxBytes) {
		e.drop = true
		o.slab.release()
		w.loseLocked(1, memoryReason)
	} else {
		e.data, e.truncated, e.json, e.slab, e.over = o.data, o.truncated, o.json, o.slab, over
		w.bytes += len(o.data)
	}
	e.ready = true
	return true
}

// memoryReason says why an observation past the memory budget is lost.
const memoryReason = "an observation did not fit the write queue's memory budget"

func (w *LogWriter) loseLocked(n uint64, reason string) {
	w.lost += n
	if w.reason == "" && reason != "" {
		w.reason = reason
	}
}

// lose counts frames lost on the writer's goroutine.
func (w *LogWriter) lose(n uint64, reason string) {
	w.mu.Lock()
	w.loseLocked(n, reason)
	w.mu.Unlock()
}

// Close stops taking observations, writes those still queued (ones begun
// but never finished are lost), ends the log with the closing frame when
// anything was lost, and closes the file. It returns how many frames were
// lost in all.
//
// Close waits for the writer as long as it makes progress, but at most
// CloseTimeout for one call to the log's output: an output that takes
// nothing (a FIFO nobody reads, a hung network file system) must not keep
// the capture from ending. Past it, what was not written is counted as
// lost, the log is left without its closing frame, and the writer's
// goroutine is left to its stuck call (see closeBound).
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
	bound := w.closeWait
	if bound <= 0 {
		bound = closeTimeout
	}
	w.closeBound(bound)
	if w.ownWarn {
		w.warn.Close(NoticeFlush)
	}
	return w.Lost()
}

// How the writer batches. While observations keep coming it polls the
// queue every pollInterval instead of being woken for each, and writes in
// big chunks: appending to a file costs far more per call than per byte.
// It flushes when the buffer is full, when the queue has stayed empty for
// idlePolls polls, and at least every MaxFlushDelay, so a log is never far
// behind the wire; on Close everything is flushed.
const (
	WriteBuffer   = 1 << 20
	pollInterval  = time.Millisecond
	idlePolls     = 3
	MaxFlushDelay = 200 * time.Millisecond
)

// writerState is what the writer goroutine carries from one round to the
// next.
type writerState struct {
	batch  []entry
	frames []Frame
	seq    uint64
	idle   int // polls in a row that found nothing
	timer  *time.Timer
}

// loop is the writer goroutine: take what is queued, write it, and when
// nothing is, poll, flush or sleep until there is.
func (w *LogWriter) loop() {
	defer close(w.finished)
	st := &writerState{}
	for {
		w.mu.Lock()
		var wait time.Duration
		st.batch, wait = w.popLocked(st.batch[:0])
		for i := range st.batch {
			if !st.batch[i].gap && !st.batch[i].drop {
				w.owed++
			}
		}
		if len(st.batch) == 0 {
			if w.idleLocked(st, wait) {
				return
			}
			continue
		}
		w.mu.Unlock()
		st.idle = 0
		if w.writeBatch(st) {
			return
		}
		if w.sink.due() {
			w.sink.flush()
		}
		w.warnOnce()
		if w.quit {
			return
		}
	}
}

// idleLocked is a round that found the queue empty, entered with w.mu held
// and left without it: on Close it ends the log; else it polls a few
// times, flushes what is buffered, and then sleeps until woken (or until
// an open observation is due to be parked, wait). It reports whether the
// writer is done.
func (w *LogWriter) idleLocked(st *writerState, wait time.Duration) (done bool) {
	s := w.sink
	switch {
	case w.closed:
		st.seq += w.skip
		w.skip = 0
		w.mu.Unlock()
		s.close(st.seq)
		w.warnOnce()
		return true
	case st.idle < idlePolls:
		w.mu.Unlock()
		st.idle++
		time.Sleep(pollInterval)
		return false
	case s.pending():
		w.mu.Unlock()
		s.flush()
		w.warnOnce()
		return w.quit
	}
	w.waiting = true
	w.mu.Unlock()
	w.sleep(st, wait)
	st.idle = 0
	return false
}

// sleep waits to be woken, or at most wait when it is positive: an open
// observation holds the line and is parked when it is due, unless work
// comes first.
func (w *LogWriter) sleep(st *writerState, wait time.Duration) {
	if wait <= 0 {
		<-w.wake
		return
	}
	if st.timer == nil {
		st.timer = time.NewTimer(wait)
	} else {
		st.timer.Reset(wait)
	}
	select {
	case <-w.wake:
		st.timer.Stop()
	case <-st.timer.C:
		w.mu.Lock()
		w.waiting = false
		w.mu.Unlock()
	}
}

// writeBatch numbers and writes the entries taken from the queue: a gap
// or a dropped observation takes its seq numbers and writes nothing. It
// reports whether the writer must quit (its output failed for good).
func (w *LogWriter) writeBatch(st *writerState) (quit bool) {
	for i := range st.batch {
		e := &st.batch[i]
		st.seq += e.skip
		switch {
		case e.gap:
		case e.drop:
			st.seq++
			if d, ok := w.framer.(DropFramer); ok && e.info != nil {
				d.Dropped(e.info)
			}
		default:
			w.writeEntry(st, e)
		}
		e.slab.release()
		*e = entry{} // let the observation's memory go
		if w.quit {
			return true
		}
	}
	return false
}

// writeEntry turns one observation into its frames (the Framer's, or one
// line) and hands each, numbered, redacted and bounded, to the sink.
func (w *LogWriter) writeEntry(st *writerState, e *entry) {
	var ob *Observation
	w.owed--
	if w.framer != nil {
		ob = &Observation{TS: e.ts, Direction: e.dir, Data: e.data, Truncated: e.truncated, JSON: e.json, Info: e.info, Over: e.over, w: w}
		st.frames = w.framer.Frames(ob, st.frames[:0])
	} else {
		st.frames = append(st.frames[:0], lineFrame(e))
	}
	w.owed += uint64(len(st.frames))
	for k := range st.frames {
		w.owed--
		st.seq++
		w.stamp(&st.frames[k], st.seq)
		w.sink.add(&st.frames[k])
	}
	if ob != nil {
		st.seq += ob.lost
		w.framer.Written(ob, st.frames)
	}
	clear(st.frames)
}

// stamp gives a frame its place in the log (seq, session, label,
// transport), redacts it and bounds its text; the log's first frame says
// whether the log could set room aside for its closing frame.
func (w *LogWriter) stamp(f *Frame, seq uint64) {
	f.Seq, f.SessionID, f.ServerLabel = seq, w.sessionID, w.label
	if f.Transport == "" {
		f.Transport = w.transport
	}
	w.red.Apply(f)
	limitText(f)
	if !w.first {
		w.first = true
		f.Unreserved = w.unreserved
	}
}

// maxEscapedText bounds what a text takes in the log once escaped.
const maxEscapedText = 2 * MaxLogLine

// limitText cuts a text whose escaped form would take more than
// maxEscapedText bytes of the log (a control character takes six, so a
// line of MaxLogLine junk bytes could take 96 MiB): the log keeps what
// fits, marked truncated, so that no line of a log, and no buffer the
// writer builds for it, is ever much past twice MaxLogLine. It runs after
// redaction, which saw the text whole.
func limitText(f *Frame) {
	if len(f.Text) <= maxEscapedText/6 || jsonstring.Len(f.Text) <= maxEscapedText {
		return
	}
	f.Text = jsonstring.Cut(f.Text, maxEscapedText)
	f.Truncated = true
}

// lineFrame is the frame of an entry without a Framer: one line. Its text
// is a view of the entry's bytes, not a copy (a line may be 16 MiB): the
// frame is encoded and let go before the entry releases them, and nothing
// on the way (redaction, the encoder) keeps it.
func lineFrame(e *entry) Frame {
	f := Frame{TS: e.ts, Direction: e.dir}
	if e.json {
		f.Raw = e.data
	} else {
		f.Text = unsafe.String(unsafe.SliceData(e.data), len(e.data))
		f.Truncated = e.truncated
	}
	return f
}

// popLocked moves what can be written into batch, in order: parked
// entries that have completed and wait for no earlier one of their group,
// then the ready entries at the head of the queue.
//
// Without a stall bound an open entry at the head holds the line until it
// completes. With one (LogOptions.Stall) it holds the line only that long:
// then it is parked, and so is every later entry of its group while it is,
// and the line goes on. A parked entry is written, with the next seqs, once
// it completes, and its group's parked entries after it, in their order.
// So within a group frames are always in wire order; across groups they
// are unless an observation stayed open past the stall bound, in which
// case it is logged when it completes (its ts still says when it began).
// Once closed, open entries go too, as drops. When an open entry holds the
// line, popLocked also returns how long until it is parked.
func (w *LogWriter) popLocked(batch []entry) ([]entry, time.Duration) {
	if len(w.parked) > 0 {
		blocked := map[any]bool{}
		kept := w.parked[:0]
		for _, p := range w.parked {
			switch {
			case blocked[p.e.group]:
			case !p.e.ready && !w.closed:
				blocked[p.e.group] = true
			default:
				if !p.e.ready {
					p.e.drop = true
					w.loseLocked(1, "an observation was still open when the capture ended")
				}
				batch = append(batch, p.e)
				w.bytes -= len(p.e.data)
				if w.parkedG[p.e.group]--; w.parkedG[p.e.group] == 0 {
					delete(w.parkedG, p.e.group)
				}
				continue
			}
			kept = append(kept, p)
		}
		clear(w.parked[len(kept):])
		w.parked = kept
	}
	n := uint64(len(w.ring))
	var wait time.Duration
	for w.head < w.tail {
		e := &w.ring[w.head%n]
		park := w.stall > 0 && w.parkedG[e.group] > 0
		if !e.ready && !park {
			switch {
			case w.closed:
				e.drop = true
				w.loseLocked(1, "an observation was still open when the capture ended")
			case w.stall <= 0:
				return batch, 0
			default:
				open := time.Since(e.ts)
				if open < w.stall {
					return batch, w.stall - open
				}
				park = true
			}
		}
		if park {
			if e.skip > 0 {
				batch = append(batch, entry{skip: e.skip, gap: true})
				e.skip = 0
			}
			w.parked = append(w.parked, parkedEntry{pos: w.head, e: *e})
			w.parkedG[e.group]++
		} else {
			batch = append(batch, *e)
			w.bytes -= len(e.data)
		}
		*e = entry{}
		w.head++
	}
	return batch, wait
}

// warnOnce prints the one warning about lost frames, the first time there
// are any. It never waits on the warn writer: a writer stuck there would
// drop every later frame of a healthy log and leave it without its closing
// frame.
func (w *LogWriter) warnOnce() {
	w.mu.Lock()
	if w.quit || w.warned || w.lost == 0 {
		w.mu.Unlock()
		return
	}
	w.warned = true
	reason := w.reason
	w.mu.Unlock()
	if w.warn != nil {
		w.warn.Say(fmt.Sprintf("mcpsnoop: warning: frames are being dropped from the log %s (%s); traffic is not affected\n", w.path, reason))
	}
}
