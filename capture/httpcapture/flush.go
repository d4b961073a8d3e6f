package httpcapture

import (
	"errors"
	"io"
	"net/http"
	"sync"
	"time"
)

// flushWriter is the client's side of an exchange. It sends every write of
// a response's body to the client at once, and spends as few writes on the
// client's connection as that allows, since each one wakes the client
// (another process, on another core, for every client that matters):
//
//   - headers the reverse proxy flushes ahead of any body (an event stream,
//     a body of unknown length) are held for at most headerHold, so that
//     when the first bytes come on their heels they travel together;
//   - the write of a body's last bytes (lastRead) is not flushed: the
//     server flushes it as the handler returns, with the chunked
//     terminator, so a short response goes out in one write.
//
// Nothing is held longer than that: every other write is flushed at once.
type flushWriter struct {
	http.ResponseWriter
	rc *http.ResponseController

	mu    sync.Mutex
	wrote bool        // some of the body went out
	last  bool        // the body's last bytes were read: no more writes come
	held  *time.Timer // flushes the headers if no body comes first
	done  bool        // the handler is returning: the writer is no longer ours
}

// headerHold is how long headers flushed ahead of the body wait for the
// body's first bytes. A target that answers at once sends both in one
// segment; one that holds an event stream open with nothing to say gets
// its headers to the client this much later than a plain reverse proxy
// would send them, which no client can tell from network jitter.
const headerHold = time.Millisecond

func newFlushWriter(w http.ResponseWriter) *flushWriter {
	return &flushWriter{ResponseWriter: w, rc: http.NewResponseController(w)}
}

func (w *flushWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.ResponseWriter.Write(p)
	if n > 0 {
		w.wrote = true
		if w.held != nil {
			w.held.Stop()
			w.held = nil
		}
	}
	if err == nil && !w.last {
		err = w.flushLocked()
	}
	return n, err
}

// FlushError flushes what was written to the client: the error says it did
// not get there. Headers alone are held (headerHold), and after the body's
// last read the handler's return flushes instead.
func (w *flushWriter) FlushError() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.done || w.last:
		return nil
	case !w.wrote:
		if w.held == nil {
			w.held = time.AfterFunc(headerHold, w.flushHeld)
		}
		return nil
	}
	return w.flushLocked()
}

// flushHeld sends held headers whose body did not come in time.
func (w *flushWriter) flushHeld() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done || w.held == nil {
		return
	}
	w.held = nil
	_ = w.flushLocked()
}

// flushLocked flushes through the server. A writer that cannot flush (not
// an http.Server's) is written through as it is.
func (w *flushWriter) flushLocked() error {
	if err := w.rc.Flush(); !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}

// lastBytes marks that the body's last bytes were read: the write that
// carries them is the last, and the handler's return flushes it.
func (w *flushWriter) lastBytes() {
	w.mu.Lock()
	w.last = true
	w.mu.Unlock()
}

// finish ends the writer's part as the handler returns: a held flush is
// dropped (the server sends everything now) and never runs after.
func (w *flushWriter) finish() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done = true
	if w.held != nil {
		w.held.Stop()
		w.held = nil
	}
}

// Flush makes flushWriter an http.Flusher.
func (w *flushWriter) Flush() { _ = w.FlushError() }

// Unwrap lets http.ResponseController reach the client's writer (to hijack
// it for an upgraded connection, to set deadlines).
func (w *flushWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// lastRead is a response body that tells the client's writer when a read
// returns the body's last bytes with its end (the transport does, for a
// body that arrived whole), so that the write carrying them need not be
// flushed on its own. A response with trailers is left as it is: the
// reverse proxy flushes after its body to have it sent chunked, the only
// way its trailers can follow, and that flush must happen.
type lastRead struct {
	io.ReadCloser
	resp *http.Response // its Trailer is filled in as the body ends
	out  *flushWriter
}

func (b *lastRead) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 && err == io.EOF && len(b.resp.Trailer) == 0 {
		b.out.lastBytes()
	}
	return n, err
}
