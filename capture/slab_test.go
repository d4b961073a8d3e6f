package capture

import (
	"bytes"
	"slices"
	"testing"
)

// A stream's first read goes into a small slab and later reads into
// full-size ones, so a quiet stream holds one pump read's room, a busy one
// reads as much at a time as before. Each size goes back to its own pool.
func TestQuietStreamHoldsLittle(t *testing.T) {
	w := newTestLog(&memLog{}, nil)
	l := w.Lines(ClientToServer)
	const read = 64 << 10
	sizes := []int{}
	for range 3 {
		buf := l.Buffer(read)
		sizes = append(sizes, len(l.cur.buf))
		chunk := append(buf[:0], bytes.Repeat([]byte("x"), read-1)...)
		chunk = append(chunk, '\n')
		l.Number(chunk)
		l.Fill()
	}
	l.End()
	if lost := w.Close(); lost != 0 {
		t.Fatalf("lost %d", lost)
	}
	if want := []int{firstSlabSize, slabSize, slabSize}; !slices.Equal(sizes, want) {
		t.Errorf("slab sizes of the first three reads: %v, want %v", sizes, want)
	}
	for _, first := range []bool{true, false} {
		s := newSlab(first)
		want := slabSize
		if first {
			want = firstSlabSize
		}
		if len(s.buf) != want {
			t.Errorf("newSlab(%v): %d bytes, want %d", first, len(s.buf), want)
		}
		s.release()
	}
}

// A log's write buffer starts small and grows towards WriteBuffer as frames
// come: a log that wrote only its small frames never holds more. (Read
// once the log is closed, so that its writer is done with the buffer.)
func TestWriteBufferStartsSmall(t *testing.T) {
	w := newTestLog(&memLog{}, nil)
	add(w, ClientToServer, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	if lost := w.Close(); lost != 0 {
		t.Fatalf("lost %d", lost)
	}
	if c := cap(w.sink.buf); c > firstWriteBuffer {
		t.Errorf("a quiet log's write buffer has room for %d bytes, want at most %d", c, firstWriteBuffer)
	}
}
