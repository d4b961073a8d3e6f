package capture

import "time"

// CloseTimeout is how long LogWriter.Close waits for the log's output to
// take what is left before it gives up on it.
const CloseTimeout = 2 * time.Second

// closeTimeout is CloseTimeout; tests shorten it.
var closeTimeout = CloseTimeout

// stalledReason says why frames were lost when Close gave up.
func stalledReason(d time.Duration) string {
	return "the log's output took nothing for " + d.String() + " at the end of the capture"
}

// closeBound waits up to d for the writer goroutine to finish. Past d it
// abandons the writer. When the writer is in a call to its output (the
// stalled write), everything it holds and everything still queued is
// counted as lost here, and the writer, should the call ever return, does
// nothing more. When it is not (it is busy framing a long queue), it sees
// the abandonment at its next step, counts the same itself and stops; that
// is waited for, as it involves no I/O.
func (w *LogWriter) closeBound(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-w.finished:
		return
	case <-t.C:
	}
	w.mu.Lock()
	w.abandoned = true
	if w.inIO {
		w.loseLocked(w.held+w.queuedLocked(), stalledReason(d))
		w.mu.Unlock()
		return
	}
	w.mu.Unlock()
	<-w.finished
}

// queuedLocked counts the observations waiting in the queue that are not
// counted as lost yet; each would have been at least one frame.
func (w *LogWriter) queuedLocked() uint64 {
	var n uint64
	for pos := w.head; pos < w.tail; pos++ {
		if !w.ring[pos%uint64(len(w.ring))].drop {
			n++
		}
	}
	for _, p := range w.parked {
		if !p.e.drop && !p.e.gap {
			n++
		}
	}
	return n
}

// giveUpLocked is the writer goroutine seeing that Close abandoned it
// while it was not in a call to its output: it counts what it holds and
// what is queued as lost, and stops.
func (w *LogWriter) giveUpLocked() {
	w.loseLocked(w.owed+uint64(len(w.sink.ends))+w.queuedLocked(), stalledReason(closeTimeout))
	w.quit = true
}

// beginIO is called by the writer goroutine before a call to its output
// (or its warn writer) that may block: what it holds meanwhile is
// published, for a Close that gives up waiting. It reports false when
// Close already gave up: then the writer counts what it holds and stops.
func (w *LogWriter) beginIO() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.quit {
		return false
	}
	if w.abandoned {
		w.giveUpLocked()
		return false
	}
	w.inIO, w.held = true, w.owed+uint64(len(w.sink.ends))
	return true
}

// endIO is called when the call returns. It reports false when Close gave
// up meanwhile (and counted what the writer held): the writer stops.
func (w *LogWriter) endIO() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.inIO, w.held = false, 0
	if w.abandoned {
		w.quit = true
		return false
	}
	return true
}
