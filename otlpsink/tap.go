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

// tapQueueBytes bounds the lines a tap holds for its tracer. A line past
// it is not traced (counted in Stats.FramesSkipped; the engine sees its
// seq gap and the spans' resource says missing_frames), never waited for.
const tapQueueBytes = 32 << 20

// tap is the io.WriteCloser Tap returns: it writes to the log's output
// and, as a capture.LineObserver, hands its tracer every line the log
// writer is given, whether or not the output takes it.
type tap struct {
	out    io.WriteCloser
	tr     *tracer
	closed sync.Once
}

// Write writes p to the log's output.
func (t *tap) Write(p []byte) (int, error) { return t.out.Write(p) }

// ObserveLine hands the tracer a copy of a line the log was given.
func (t *tap) ObserveLine(line []byte) { t.tr.feed(line) }

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

// tracer turns the lines a log is given into spans: it reads the frames
// with the log reader, judges them with a checker engine (one per log, as
// `check` would) and maps each call that ends to a span.
type tracer struct {
	limit   int // most bytes pending
	skipped *atomic.Int64
	send    func(otlp.Span) bool
	wake    chan struct{} // a token when lines are pending or the log ended
	done    chan struct{}

	mu      sync.Mutex // feed and end
	pending []byte     // whole lines not read yet
	ended   bool

	eng   *checker.Engine
	live  *otlp.Live
	lines int
}

func newTracer(send func(otlp.Span) bool, skipped *atomic.Int64, limit int) *tracer {
	t := &tracer{limit: limit, send: send, skipped: skipped, wake: make(chan struct{}, 1), done: make(chan struct{}), live: otlp.NewLive()}
	// Findings are not needed here, only calls: keep the fewest. And no
	// schemas: the shim's own binary does not link them.
	t.eng = checker.New(checker.Config{KeepBodies: true, MaxFindings: 1, OnCall: t.onCall, WithoutSchemas: true})
	go t.run()
	return t
}

// feed queues a copy of p (whole lines), or counts its lines as skipped
// when they do not fit or the log ended. It never blocks.
func (t *tracer) feed(p []byte) {
	if len(p) == 0 {
		return
	}
	t.mu.Lock()
	fits := !t.ended && len(t.pending)+len(p) <= t.limit
	if fits {
		t.pending = append(t.pending, p...)
	}
	t.mu.Unlock()
	if !fits {
		t.skipped.Add(int64(max(1, bytes.Count(p, []byte{'\n'}))))
		return
	}
	t.signal()
}

func (t *tracer) signal() {
	select {
	case t.wake <- struct{}{}:
	default: // a token is waiting already
	}
}

// end says the log is closed: the tracer reads what is pending, ends the
// engine (so calls still open become spans, as in the export) and stops.
func (t *tracer) end() {
	t.mu.Lock()
	t.ended = true
	t.mu.Unlock()
	t.signal()
}

func (t *tracer) run() {
	defer close(t.done)
	var spare []byte
	for range t.wake {
		t.mu.Lock()
		buf, ended := t.pending, t.ended
		t.pending = spare[:0]
		t.mu.Unlock()
		t.ingest(buf)
		spare = buf
		if cap(spare) > 1<<20 {
			spare = nil // do not hold a burst's room
		}
		if ended {
			break
		}
	}
	t.eng.Report()
}

// ingest reads the whole lines of chunk.
func (t *tracer) ingest(chunk []byte) {
	if len(chunk) == 0 {
		return
	}
	r := capture.NewReader(bytes.NewReader(chunk), "")
	defer func() { t.lines += bytes.Count(chunk, []byte{'\n'}) }()
	for {
		fr, line, err := r.Next()
		switch {
		case err == io.EOF:
			return
		case errors.Is(err, capture.ErrTornLine), errors.Is(err, capture.ErrTornTail):
			t.eng.TornTail()
			continue
		case err != nil:
			// A line the log writer encoded is always readable; should one
			// not be, the rest of the chunk is skipped like lost frames.
			t.skipped.Add(1)
			return
		}
		t.eng.Ingest(&fr, checker.Position{Line: t.lines + line})
	}
}

func (t *tracer) onCall(r checker.CallRecord) {
	so, ok := t.eng.SoFar(r.SessionID)
	if !ok {
		return
	}
	t.send(t.live.Span(so, &r))
}
