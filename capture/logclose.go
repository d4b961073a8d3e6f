package capture

import "time"

// CloseTimeout is how long LogWriter.Close lets one call to the log's
// output go without returning before it gives up on the output.
const CloseTimeout = 2 * time.Second

// closeTimeout is CloseTimeout; tests shorten it.
var closeTimeout = CloseTimeout

// stalledReason says why frames were lost when Close gave up.
func stalledReason(d time.Duration) string {
	return "the log's output took nothing for " + d.String() + " at the end of the capture"
}

// closeBound waits for the writer goroutine to finish. A writer that is
// busy (framing, redacting, writing to an output that takes what it is
// given) is waited for: its work is bounded by the queue. A writer whose
// call to its output has not returned for d is given up: everything it
// holds and everything still queued is counted as lost here, and the
// writer, should the call ever return, does nothing more.
func (w *LogWriter) closeBound(d time.Duration) {
	tick := time.NewTicker(max(d/10, time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-w.finished:
			return
		case <-tick.C:
		}
		w.mu.Lock()
		if w.inIO && time.Since(w.ioStart) >= d {
			w.abandoned = true
			w.loseLocked(w.held+w.queuedLocked(), stalledReason(d))
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
	}
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

// beginIO is called by the writer goroutine before a call to its output
// that may block: what it holds meanwhile is published, for a Close that
// gives up waiting. done is how many frames of the sink's buffer earlier
// calls wrote whole: they are not held. It reports false once the writer
// was given up.
func (w *LogWriter) beginIO(done int) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.quit {
		return false
	}
	w.inIO, w.held, w.ioStart = true, w.owed+uint64(len(w.sink.ends)-done), time.Now()
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
