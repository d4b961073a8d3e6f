package httpcapture

import (
	"sync"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// maxChunkDecoded bounds what one chunk of a compressed event stream may
// decode to for the log. Past it the log gives up on the stream: the rest
// of it is forwarded and not logged, and one lost frame is counted.
const maxChunkDecoded = capture.QueueBytes

// zstream is a compressed event stream as the log decodes it. Its chunks
// are queued as they are forwarded (one observation each, so each takes its
// place before the client sees it) and decoded by the framer, on the log
// writer's goroutine, in queue order: the events a chunk completes are
// framed in that chunk's place.
//
// The responseTap owns what it sets before queueing (nothing after); the
// writer owns dec, sse and the counters. mu guards events, which the
// decoder goroutine fills while the writer waits for it.
type zstream struct {
	coding string
	mem    *memBudget
	quit   chan struct{} // closed by the tap when the stream's end could not be queued

	dec     *inflater // started on the first chunk
	sse     *sseParser
	decoded int  // bytes the current chunk decoded to
	dead    bool // a chunk was lost or decoded past the bound: decode no more

	mu     sync.Mutex
	events []sseEvent // completed by the chunk being decoded
	over   bool       // the current chunk passed maxChunkDecoded
}

// sseEvent is the data of one event.
type sseEvent struct {
	data      []byte
	truncated bool
}

func newZStream(coding string, mem *memBudget) *zstream {
	z := &zstream{coding: coding, mem: mem, quit: make(chan struct{})}
	z.sse = newSSEParser(z.emit, mem)
	return z
}

// emit collects an event the decoder completed.
func (z *zstream) emit(data []byte, truncated bool) {
	if !truncated && len(trimWS(data)) == 0 {
		return // data that is only whitespace is no message
	}
	z.events = append(z.events, sseEvent{data: data, truncated: truncated})
}

// sink takes decoded bytes, on the decoder's goroutine.
func (z *zstream) sink(p []byte) {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.over {
		return
	}
	if z.decoded += len(p); z.decoded > maxChunkDecoded {
		z.over = true
		return
	}
	z.sse.feed(p)
}

// chunk decodes the next chunk and returns the events it completed. ok is
// false when the stream went past the bound with this chunk.
func (z *zstream) chunk(p []byte) (events []sseEvent, ok bool) {
	if z.dead {
		return nil, true
	}
	if z.dec == nil {
		z.dec = newInflater(z.coding, z.sink, z.quit)
	}
	z.decoded = 0
	z.dec.write(p)
	return z.take()
}

// end decodes what the decoder still holds and returns the last events:
// all of them when the stream ended cleanly, none when it was cut or lost
// a chunk.
func (z *zstream) end(clean bool) []sseEvent {
	if z.dec != nil {
		z.decoded = 0
		z.dec.close()
	}
	if z.dead {
		clean = false
	}
	z.mu.Lock()
	z.sse.end(clean)
	z.mu.Unlock()
	events, _ := z.take()
	if !clean {
		return nil
	}
	return events
}

// lose is told that a chunk did not reach the writer: nothing after it can
// be decoded. The stream is dead from here; its decoder is stopped and
// what it still hands on is dropped.
func (z *zstream) lose() {
	if z.dead {
		return
	}
	z.dead = true
	z.mu.Lock()
	z.over = true
	z.events = nil
	z.mu.Unlock()
	if z.dec != nil {
		z.dec.close()
	}
}

// take hands over the events collected so far. Once the current chunk
// went past the bound, the stream is dead: its decoder is stopped.
func (z *zstream) take() ([]sseEvent, bool) {
	z.mu.Lock()
	events, over := z.events, z.over
	z.events = nil
	z.mu.Unlock()
	if over && !z.dead {
		z.dead = true
		z.dec.close() // over stays set: sink drops what the decoder still hands on
		return events, false
	}
	return events, true
}
