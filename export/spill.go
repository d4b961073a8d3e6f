package export

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// A spill keeps rendered pieces for later: in memory up to its budget, then
// in a temporary file. It is append-only; a piece is found again by its
// offset. This is what lets an export of a log larger than
// memory hold every rendered event until the session's header (which needs
// the whole session) has been written.
type spill struct {
	dir    string // where the temporary file goes ("" = os.TempDir())
	budget int    // bytes kept in memory before the file is used
	f      *os.File
	// unlinked: the file was removed while open, so closing frees it.
	unlinked bool
	mem      []byte // the bytes from memStart on, not yet handed to the file
	// memStart is the offset of mem[0]; size the offset of the next byte.
	memStart, size int64
	err            error // the first write error; later appends are dropped

	// Full buffers go to the file on a goroutine of their own, so the disk
	// write (most of a spill's cost) overlaps the reading and rendering.
	writes chan []byte // buffers to write, in order
	free   chan []byte // written buffers, for reuse
	done   chan error  // the writer's result, once writes is closed
}

func newSpill(dir string, budget int) *spill {
	return &spill{dir: dir, budget: budget}
}

// appendRecord stores b behind its length (a uvarint), for sequential
// reading, and returns the offset of the record.
func (s *spill) appendRecord(b []byte) int64 {
	off := s.size
	var hdr [binary.MaxVarintLen64]byte
	n := binary.PutUvarint(hdr[:], uint64(len(b)))
	s.write(hdr[:n])
	s.write(b)
	return off
}

// appendRaw stores b as it is and returns its offset.
func (s *spill) appendRaw(b []byte) int64 {
	off := s.size
	s.write(b)
	return off
}

func (s *spill) write(b []byte) {
	s.size += int64(len(b))
	if s.err != nil {
		return
	}
	for len(s.mem)+len(b) > s.budget {
		n := max(s.budget-len(s.mem), 0)
		s.mem = append(s.mem, b[:n]...)
		b = b[n:]
		if err := s.flush(); err != nil {
			s.err = err
			return
		}
	}
	s.mem = append(s.mem, b...)
}

// flush hands what is in memory to the file writer, creating the file
// and starting the writer on first use.
func (s *spill) flush() error {
	if s.f == nil {
		f, err := os.CreateTemp(s.dir, ".mcpsnoop-export-spill-*")
		if err != nil {
			return fmt.Errorf("export spill file: %w", err)
		}
		// Unlinked at once where the system allows it: the space is freed
		// when the file is closed, even if the export is killed.
		s.f, s.unlinked = f, os.Remove(f.Name()) == nil
		s.writes, s.free, s.done = make(chan []byte, 2), make(chan []byte, 2), make(chan error, 1)
		s.free <- make([]byte, 0, s.budget)
		// The writer gets its file and channels as arguments: settle may
		// clear s.writes before the goroutine first runs.
		go writer(s.f, s.writes, s.free, s.done)
	}
	if len(s.mem) == 0 {
		return nil
	}
	if s.writes == nil { // settled: no writer any more
		if _, err := s.f.Write(s.mem); err != nil {
			return fmt.Errorf("export spill file: %w", err)
		}
		s.memStart += int64(len(s.mem))
		s.mem = s.mem[:0]
		return nil
	}
	s.writes <- s.mem
	s.memStart += int64(len(s.mem))
	s.mem = (<-s.free)[:0]
	return nil
}

// writer writes the buffers handed to it, in order, and hands them back.
// After an error it drops the rest and reports the error when done.
func writer(f *os.File, writes <-chan []byte, free chan<- []byte, done chan<- error) {
	var err error
	for b := range writes {
		if err == nil {
			if _, werr := f.Write(b); werr != nil {
				err = fmt.Errorf("export spill file: %w", werr)
			}
		}
		free <- b
	}
	done <- err
}

// settle waits until everything handed to the writer is in the file; the
// spill takes no more appends after it.
func (s *spill) settle() error {
	if s.writes == nil {
		return s.err
	}
	close(s.writes)
	s.writes = nil
	if err := <-s.done; s.err == nil {
		s.err = err
	}
	return s.err
}

// readAt fills p from offset off; it reads fewer bytes only at the end.
func (s *spill) readAt(p []byte, off int64) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if off >= s.size {
		return 0, io.EOF
	}
	if rest := s.size - off; int64(len(p)) > rest {
		p = p[:rest]
	}
	n := 0
	if off < s.memStart {
		if s.writes != nil {
			if err := s.settle(); err != nil {
				return 0, err
			}
		}
		fromFile := p
		if end := off + int64(len(p)); end > s.memStart {
			fromFile = p[:s.memStart-off]
		}
		k, err := s.f.ReadAt(fromFile, off)
		n += k
		if k < len(fromFile) {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return n, fmt.Errorf("export spill file: %w", err)
		}
		off += int64(k)
	}
	if n < len(p) {
		n += copy(p[n:], s.mem[off-s.memStart:])
	}
	return n, nil
}

// close releases the file.
func (s *spill) close() error {
	s.mem = nil
	if s.f == nil {
		return nil
	}
	s.settle()
	err := s.f.Close()
	if !s.unlinked {
		os.Remove(s.f.Name())
	}
	s.f = nil
	return err
}

// span is a run of records in a spill, [start, end).
type span struct{ start, end int64 }

// eventRecords are one session's rendered events: records in the events
// spill, found through the spans they were written in (a session's events
// form one span unless other sessions' frames came in between, so memory
// stays independent of the number of frames).
type eventRecords struct {
	sp    *spill
	spans []span
	n     int
}

func (r *eventRecords) add(b []byte) {
	off := r.sp.appendRecord(b)
	if k := len(r.spans); k > 0 && r.spans[k-1].end == off {
		r.spans[k-1].end = r.sp.size
	} else {
		r.spans = append(r.spans, span{off, r.sp.size})
	}
	r.n++
}

func (r *eventRecords) Len() int { return r.n }

// readChunk is how much of a spill a sequential reader reads at once.
const readChunk = 1 << 20

func (r *eventRecords) Each(fn func(i int, b []byte) error) error {
	buf := make([]byte, 0, readChunk)
	i := 0
	for _, sp := range r.spans {
		off := sp.start   // next byte to read into buf
		buf = buf[:0]     // unread bytes of the span
		for pos := 0; ; { // pos: next record in buf
			if pos < len(buf) {
				l, k := binary.Uvarint(buf[pos:])
				if k > 0 && uint64(len(buf)-pos-k) >= l {
					b := buf[pos+k : pos+k+int(l)]
					if err := fn(i, b); err != nil {
						return err
					}
					i++
					pos += k + int(l)
					continue
				}
				if k > 0 && int(l)+k > cap(buf) {
					nb := make([]byte, len(buf)-pos, int(l)+k)
					copy(nb, buf[pos:])
					buf, pos = nb, 0
				}
			}
			if off >= sp.end {
				if pos < len(buf) {
					return fmt.Errorf("export spill file: a record is cut short")
				}
				break
			}
			// Keep the unread tail, then fill the buffer.
			rest := copy(buf[:cap(buf)], buf[pos:])
			want := min(int64(cap(buf)-rest), sp.end-off)
			n, err := r.sp.readAt(buf[rest:rest+int(want)], off)
			if err != nil {
				return err
			}
			buf, pos = buf[:rest+n], 0
			off += int64(n)
		}
	}
	return nil
}

// slot is where one call's rendered record lies in the calls spill; n < 0
// marks an empty slot.
type slot struct {
	off int64
	n   int32
}

// callRecords are one session's rendered calls, by call index. Calls end in
// an order close to the one they began in, so reading them back in index
// order mostly hits the window already read.
type callRecords struct {
	sp    *spill
	slots []slot
	win   []byte
	wOff  int64 // offset of win[0]
}

func (r *callRecords) add(index int, b []byte) {
	for len(r.slots) <= index {
		r.slots = append(r.slots, slot{n: -1})
	}
	if b == nil {
		r.slots[index] = slot{n: -1}
		return
	}
	r.slots[index] = slot{off: r.sp.appendRaw(b), n: int32(len(b))}
}

// grow makes room for n slots (the session's call count).
func (r *callRecords) grow(n int) {
	for len(r.slots) < n {
		r.slots = append(r.slots, slot{n: -1})
	}
}

func (r *callRecords) Len() int { return len(r.slots) }

// callWindow is how much a call lookup reads ahead.
const callWindow = 256 << 10

// At returns call i's record (empty for an empty slot); it stays valid
// until the next At or Each.
func (r *callRecords) At(i int) ([]byte, error) {
	if i < 0 || i >= len(r.slots) {
		return nil, fmt.Errorf("call %d out of range", i)
	}
	s := r.slots[i]
	if s.n < 0 {
		return nil, nil
	}
	end := s.off + int64(s.n)
	if s.off < r.wOff || end > r.wOff+int64(len(r.win)) {
		size := max(int(s.n), callWindow)
		if cap(r.win) < size {
			r.win = make([]byte, size)
		}
		n, err := r.sp.readAt(r.win[:size], s.off)
		if err != nil && err != io.EOF {
			return nil, err
		}
		if n < int(s.n) {
			return nil, fmt.Errorf("export spill file: call %d is cut short", i)
		}
		r.win, r.wOff = r.win[:n], s.off
	}
	return r.win[s.off-r.wOff : end-r.wOff], nil
}

func (r *callRecords) Each(fn func(i int, b []byte) error) error {
	for i := range r.slots {
		b, err := r.At(i)
		if err != nil {
			return err
		}
		if err := fn(i, b); err != nil {
			return err
		}
	}
	return nil
}
