package otlpsink

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"

	"github.com/mcpsnoop/mcpsnoop/internal/termsafe"
)

// Sink streams the calls of the logs it taps to one collector.
type Sink struct {
	sender  *Sender
	skipped atomic.Int64

	mu      sync.Mutex
	tracers []*tracer
	closed  bool
}

// New starts a sink (its Sender) for o.
func New(o Options) *Sink { return &Sink{sender: NewSender(o)} }

// Tap returns an output for a session log's writer (capture.NewLogWriter)
// to write to instead of out: it writes to out and, as a
// capture.LineObserver, traces every frame the log writer is given, so the
// sink sees exactly the redacted frames of the log, those the file could
// not keep too. Closing it closes out and lets the tracer end the session
// (calls still open become spans, as the export shows them).
func (s *Sink) Tap(out io.WriteCloser) io.WriteCloser {
	tr := newTracer(s.sender.Enqueue, &s.skipped, tapQueueBytes)
	s.mu.Lock()
	s.tracers = append(s.tracers, tr)
	if s.closed {
		tr.end()
	}
	s.mu.Unlock()
	return &tap{out: out, tr: tr}
}

// Close ends every tap's tracing (a log still being written is traced no
// further), waits for the tracers to map what they were given, then
// closes the sender: at most its flush time. It returns the counts.
func (s *Sink) Close() Stats {
	s.mu.Lock()
	s.closed = true
	trs := s.tracers
	s.mu.Unlock()
	for _, tr := range trs {
		tr.end()
		<-tr.done
	}
	st := s.sender.Close()
	st.FramesSkipped = s.skipped.Load()
	return st
}

// Report writes the one line a capture prints at exit when spans were
// lost (nothing when every span was delivered).
func (st Stats) Report(w io.Writer, who string) {
	if st.Dropped() == 0 && st.FramesSkipped == 0 {
		return
	}
	msg := fmt.Sprintf("%s: otlp: %d of %d span(s) were not delivered (%d dropped with the queue full, %d refused by the collector, %d unsent at exit)",
		who, st.Dropped(), st.Spans, st.DroppedFull, st.Refused, st.DroppedAtExit)
	if st.FramesSkipped > 0 {
		msg += fmt.Sprintf("; %d frame(s) were not traced", st.FramesSkipped)
	}
	if st.Problem != "" {
		msg += "; first failure: " + termsafe.Clean(st.Problem, false) // the collector's words
	}
	fmt.Fprintln(w, msg)
}
