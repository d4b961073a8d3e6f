package otlpsink

import (
	"bytes"
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/export/otlp"
)

// Bounds of what a tap holds for its tracer: writes waiting to be read,
// and their bytes. A write past them is not traced (its frames are
// counted in Stats.FramesSkipped; the engine sees their seq gap and the
// spans' resource says missing_frames), never waited for.
const (
	tapQueueWrites = 1024
	tapQueueBytes  = 32 << 20
)

// tap is the io.WriteCloser Tap returns: it writes to the log and hands a
// copy of each write to its tracer.
type tap struct {
	out    io.WriteCloser
	tr     *tracer
	closed sync.Once
}

// Write writes p to the log and hands the tracer what reached it. When
// the write fails part-way the log writer cuts the torn line off the file
// (Truncate), so the tracer gets only the whole lines, and starts afresh
// after them.
func (t *tap) Write(p []byte) (int, error) {
	n, err := t.out.Write(p)
	if err == nil {
		t.tr.feed(p[:n])
		return n, err
	}
	whole := bytes.LastIndexByte(p[:n], '\n') + 1
	t.tr.feed(p[:whole])
	t.tr.resync()
	return n, err
}

// The tap passes on what the log writer asks of its output beyond
// writing: cutting a torn line off (Seek, Truncate) and setting room aside
// for the closing frame (capture.RoomReserver), so that a log is the same
// with live streaming on.

var errUnsupported = errors.New("the log's output does not support this")

func (t *tap) Seek(offset int64, whence int) (int64, error) {
	if s, ok := t.out.(io.Seeker); ok {
		return s.Seek(offset, whence)
	}
	return 0, errUnsupported
}

func (t *tap) Truncate(size int64) error {
	if tr, ok := t.out.(interface{ Truncate(int64) error }); ok {
		return tr.Truncate(size)
	}
	return errUnsupported
}

func (t *tap) ReserveRoom(n int) (func(), error) {
	if release := capture.ReserveRoomFor(t.out, n); release != nil {
		return release, nil
	}
	return nil, errUnsupported
}

func (t *tap) Close() error {
	err := t.out.Close()
	t.closed.Do(t.tr.end)
	return err
}

// tracer turns the JSONL a log is written into spans: it reads the frames
// with the log reader, judges them with a checker engine (one per log, as
// `check` would) and maps each call that ends to a span.
type tracer struct {
	in      chan chunk
	queued  atomic.Int64 // bytes in in
	limit   int64        // most bytes in in
	skipped *atomic.Int64
	send    func(otlp.Span) bool
	done    chan struct{}

	mu     sync.Mutex // feed and end
	ended  bool
	gap    bool // a write was skipped since the last queued one
	gapMid bool // ... and it ended inside a line
	eng    *checker.Engine
	live   *otlp.Live
	carry  []byte // a line whose newline has not been written yet
	lines  int
}

func newTracer(send func(otlp.Span) bool, skipped *atomic.Int64, limit int64) *tracer {
	t := &tracer{in: make(chan chunk, tapQueueWrites), limit: limit, send: send, skipped: skipped, done: make(chan struct{}), live: otlp.NewLive()}
	// Findings are not needed here, only calls: keep the fewest.
	t.eng = checker.New(checker.Config{KeepBodies: true, MaxFindings: 1, OnCall: t.onCall})
	go t.run()
	return t
}

// chunk is one write handed to the tracer.
type chunk struct {
	data []byte
	// afterGap: writes before this one were skipped, so the line carried
	// over is incomplete; midLine: the skipped part ended inside a line,
	// whose rest opens data.
	afterGap, midLine bool
}

// feed queues a copy of p, or counts its lines as skipped when the queue
// is full. It never blocks.
func (t *tracer) feed(p []byte) {
	if len(p) == 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.ended && t.queued.Load()+int64(len(p)) <= t.limit {
		c := chunk{data: bytes.Clone(p), afterGap: t.gap, midLine: t.gapMid}
		select {
		case t.in <- c:
			t.queued.Add(int64(len(c.data)))
			t.gap, t.gapMid = false, false
			return
		default:
		}
	}
	t.skipped.Add(int64(bytes.Count(p, []byte{'\n'})))
	t.gap, t.gapMid = true, p[len(p)-1] != '\n'
}

// resync says the log lost the bytes after what the tracer was last fed
// (a failed write): the next write starts a line of its own.
func (t *tracer) resync() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.gap, t.gapMid = true, false
}

// end says the log is closed: the tracer reads what is queued, ends the
// engine (so calls still open become spans, as in the export) and stops.
func (t *tracer) end() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.ended {
		t.ended = true
		close(t.in)
	}
}

func (t *tracer) run() {
	defer close(t.done)
	for c := range t.in {
		t.queued.Add(-int64(len(c.data)))
		data := c.data
		if c.afterGap {
			if len(t.carry) > 0 {
				t.skipped.Add(1) // its rest was skipped
			}
			t.carry = nil
			if c.midLine {
				// The rest of a skipped line: not a frame of its own.
				i := bytes.IndexByte(data, '\n')
				if i < 0 {
					continue
				}
				data = data[i+1:]
			}
		}
		t.ingest(data)
	}
	t.eng.Report()
}

// ingest reads the whole lines of chunk (after a carried partial line).
func (t *tracer) ingest(chunk []byte) {
	if len(t.carry) > 0 {
		chunk = append(t.carry, chunk...)
		t.carry = nil
	}
	end := bytes.LastIndexByte(chunk, '\n')
	if end < 0 {
		t.keep(chunk)
		return
	}
	if end+1 < len(chunk) {
		t.keep(chunk[end+1:])
	}
	r := capture.NewReader(bytes.NewReader(chunk[:end+1]), "")
	for {
		fr, line, err := r.Next()
		switch {
		case err == io.EOF:
			t.lines += bytes.Count(chunk[:end+1], []byte{'\n'})
			return
		case errors.Is(err, capture.ErrTornLine), errors.Is(err, capture.ErrTornTail):
			t.eng.TornTail()
			continue
		case err != nil:
			// A line the log writer wrote is always readable; should one
			// not be, the rest of the write is skipped like lost frames.
			t.skipped.Add(1)
			t.lines += bytes.Count(chunk[:end+1], []byte{'\n'})
			return
		}
		t.eng.Ingest(&fr, checker.Position{Line: t.lines + line})
	}
}

// keep carries a partial line to the next write, within twice the log's
// own bound on a line's content (escaping can double it).
func (t *tracer) keep(b []byte) {
	if len(t.carry)+len(b) > 2*capture.MaxLogLine+64<<10 {
		t.carry = nil
		t.skipped.Add(1)
		return
	}
	t.carry = append(t.carry[:0:0], b...)
}

func (t *tracer) onCall(r checker.CallRecord) {
	so, ok := t.eng.SoFar(r.SessionID)
	if !ok {
		return
	}
	t.send(t.live.Span(so, &r))
}
