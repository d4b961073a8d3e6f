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
//     terminator, so a short response goes out in one write (a body that
//     arrived whole and short may so go out with a Content-Length where
//     the target chunked it: the same bytes, framed for this hop).
//
// A body with trailers, or one that fails, gets the flushes it asks for at
// once: bodyEnded and bodyFailed say why.
//
// Nothing is held longer than that: every other write is flushed at once.
type flushWriter struct {
	http.ResponseWriter
	rc *http.ResponseController

	mu    sync.Mutex
	wrote bool        // some of the body went out
	last  bool        // the body's last bytes were read: no more writes come
	now   bool        // every flush asked for happens at once (trailers follow)
	held  *time.Timer // flushes the headers if no body comes first
	done  bool        // the handler is returning: the writer is no longer ours
}

// headerHold is how long headers flushed ahead of the body wait for the
// body's first bytes. A target that answers at once sends both in one
// segment; one that holds an event stream open with nothing to say gets
// its headers to the client this much later than a plain reverse proxy
// would send them, which no client can tell from network jitter.
const headerHold = time.Millisecond

// holdHeaders starts the hold (time.AfterFunc); a test replaces it to see
// how long headers are held, or to hold them until the body comes.
var holdHeaders = time.AfterFunc

func newFlushWriter(w http.ResponseWriter) *flushWriter {
	return &flushWriter{ResponseWriter: w, rc: http.NewResponseController(w)}
}

func (w *flushWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.ResponseWriter.Write(p)
	if n > 0 {
		w.wrote = true
		w.stopHeldLocked()
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
	case !w.wrote && !w.now:
		if w.held == nil {
			w.held = holdHeaders(headerHold, w.flushHeld)
		}
		return nil
	}
	w.stopHeldLocked()
	return w.flushLocked()
}

func (w *flushWriter) stopHeldLocked() {
	if w.held != nil {
		w.held.Stop()
		w.held = nil
	}
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

// bodyEnded is told that the body's last read returned n bytes with its
// end. Without trailers, the write that carries those bytes is the last and
// the handler's return flushes it. With trailers, flushes happen at once
// from now on: the reverse proxy flushes after the body so that the
// response is sent chunked, the only way trailers can follow, even when
// the body is empty and nothing went out yet.
func (w *flushWriter) bodyEnded(n int, trailers bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case trailers:
		w.now = true
	case n > 0:
		w.last = true
	}
}

// bodyFailed is told that reading the body failed: the reverse proxy is
// about to abort the exchange, closing the client's connection without
// sending what the server still buffers. Headers held for a body are sent
// now, as they would have been without the hold, so the client sees the
// target's answer before the cut.
func (w *flushWriter) bodyFailed() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done || w.held == nil {
		return
	}
	w.stopHeldLocked()
	_ = w.flushLocked()
}

// finish ends the writer's part as the handler returns: a held flush is
// dropped (the server sends everything now) and never runs after.
func (w *flushWriter) finish() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done = true
	w.stopHeldLocked()
}

// Flush makes flushWriter an http.Flusher.
func (w *flushWriter) Flush() { _ = w.FlushError() }

// Unwrap lets http.ResponseController reach the client's writer (to hijack
// it for an upgraded connection, to set deadlines).
func (w *flushWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// lastRead is a response body that tells the client's writer how it
// ended: whether a read returned the last bytes with the end (the
// transport does, for a body that arrived whole) so that the write
// carrying them need not be flushed on its own, whether trailers follow,
// or whether it failed (bodyEnded, bodyFailed).
type lastRead struct {
	io.ReadCloser
	resp *http.Response // its Trailer is filled in as the body ends
	out  *flushWriter
}

func (b *lastRead) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	switch {
	case err == io.EOF:
		b.out.bodyEnded(n, len(b.resp.Trailer) > 0)
	case err != nil:
		b.out.bodyFailed()
	}
	return n, err
}
