package capture

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"time"
)

// logSink is the writing end of a LogWriter, used by its goroutine only. It
// encodes frames into a buffer, writes the buffer out in big chunks, and
// counts every frame that does not reach the output, exactly:
//
//   - a write that fails part-way counts only the frames of the buffer that
//     did not reach the output, and the torn line it left is cut off (the
//     output is truncated back to its last whole line), so that later
//     frames, if the output takes them again, start on a line of their own;
//     when the torn line cannot be cut off, nothing more is written, so that
//     it stays the last line (a reader counts it as one lost frame);
//   - a frame that would take the log past its size bound is dropped;
//   - every dropped frame had its seq, so it leaves a gap.
//
// When the log is opened the sink sets room aside for the closing frame
// (ClosingReserve bytes, on the same file system when the output is a
// regular file), and gives it back just before writing that frame, so that
// a disk that filled up still takes it.
type logSink struct {
	w         *LogWriter
	out       io.WriteCloser
	fe        *frameEncoder
	generic   bytes.Buffer
	enc       *json.Encoder
	buf       []byte // frames encoded, not yet written
	ends      []int  // where each frame in buf ends
	written   int64  // bytes of frames written so far
	max       int64  // 0: no bound
	release   func() // gives the reserved room back; nil when none
	broken    bool   // a torn line could not be cut off: nothing more is written
	lastFlush time.Time
	observe   LineObserver // nil unless out is one
	whole     bool         // out is a file: a frame goes in one call (see flush)
}

// A LineObserver is a log output that is shown every frame the log is
// given, as the line the log holds or would hold, before it is written and
// whether or not the output takes it (a full disk, the --max-log-size
// bound): live OTLP streaming traces what the log is given, not what the
// file kept. The closing frame is not shown. ObserveLine runs on the
// writer's goroutine, must not block and must not keep line.
type LineObserver interface {
	ObserveLine(line []byte)
}

// firstWriteBuffer is the write buffer's room at first; it grows towards
// WriteBuffer as frames come, so that a quiet log holds little.
const firstWriteBuffer = 32 << 10

// ClosingReserve is the room a log sets aside when it is opened, for its
// closing frame.
const ClosingReserve = 16 << 10

// A RoomReserver is a log output that can set room aside: ReserveRoom holds
// n bytes of its storage until release is called. A regular *os.File does
// this with a hidden file of n bytes beside it.
type RoomReserver interface {
	ReserveRoom(n int) (release func(), err error)
}

func newLogSink(w *LogWriter, out io.WriteCloser, max int64) *logSink {
	s := &logSink{
		w: w, out: out, fe: newFrameEncoder(w.sessionID, w.label), max: max,
		buf: make([]byte, 0, firstWriteBuffer), lastFlush: time.Now(),
	}
	s.observe, _ = out.(LineObserver)
	s.whole = seekable(out)
	s.enc = json.NewEncoder(&s.generic)
	s.enc.SetEscapeHTML(false)
	s.release = reserveRoom(out, ClosingReserve)
	return s
}

// add encodes a numbered, redacted frame into the buffer, or counts it as
// lost.
func (s *logSink) add(f *Frame) {
	if s.w.quit {
		return
	}
	full := s.broken || (s.max > 0 && s.written+int64(len(s.buf)) >= s.max)
	if full && s.observe == nil {
		s.loseFull()
		return
	}
	start := len(s.buf)
	if s.fe.handles(f) {
		s.buf = s.fe.appendFrame(s.buf, f)
	} else {
		s.generic.Reset()
		if err := s.enc.Encode(f); err != nil {
			// Only a bad Raw can fail, and Raw was validated; keep the seq
			// unused rather than write a broken line.
			s.w.lose(1, fmt.Sprintf("encoding failed: %v", err))
			return
		}
		s.buf = append(s.buf, s.generic.Bytes()...)
	}
	if s.observe != nil {
		s.observe.ObserveLine(s.buf[start:])
	}
	if full || (s.max > 0 && s.written+int64(len(s.buf)) > s.max) {
		s.buf = s.buf[:start]
		if start == 0 && cap(s.buf) > 2*WriteBuffer {
			s.buf = make([]byte, 0, WriteBuffer) // no flush may come to shrink it
		}
		s.loseFull()
		return
	}
	s.ends = append(s.ends, len(s.buf))
	if len(s.buf) >= WriteBuffer {
		s.flush()
	}
}

// loseFull counts a frame the log cannot take: it is past its size bound,
// or a torn line that could not be cut off ends it.
func (s *logSink) loseFull() {
	if s.broken {
		s.w.lose(1, "")
		return
	}
	s.w.lose(1, s.sizeReason())
}

func (s *logSink) sizeReason() string {
	return fmt.Sprintf("the log reached its size bound of %s (--max-log-size)", FormatSize(s.max))
}

// pending reports whether frames wait in the buffer.
func (s *logSink) pending() bool { return len(s.ends) > 0 }

// due reports whether the buffer has waited MaxFlushDelay.
func (s *logSink) due() bool { return time.Since(s.lastFlush) >= MaxFlushDelay }

// writePiece is the most one call to the output is given, unless one
// frame is longer. Close gives up on a call that lasts CloseTimeout, so a
// call must be small enough for an output that drains slowly but steadily
// (a pipe read at a few hundred KB/s) to finish it well within that: each
// piece taken restarts the clock.
const writePiece = 64 << 10

// flush writes the buffer out, in pieces of at most writePiece that end
// where a frame ends, so that each call to the output holds whole frames.
// A frame longer than a piece is written in one call of its own when the
// output is a file (seekable): a LogFile appends each call in one write
// under its lock, so frames of several captures sharing the file never
// interleave, and a file does not wait on a reader. To anything else (a
// pipe) such a frame goes in pieces.
func (s *logSink) flush() {
	s.lastFlush = time.Now()
	if len(s.ends) > 0 {
		var (
			n   int
			err error
		)
		for n < len(s.buf) && err == nil {
			piece := s.buf[n:s.pieceEnd(n)]
			if !s.w.beginIO(sort.SearchInts(s.ends, n+1)) {
				return
			}
			k, e := s.out.Write(piece)
			if !s.w.endIO() {
				return
			}
			if e == nil && k < len(piece) {
				e = io.ErrShortWrite
			}
			n += min(max(k, 0), len(piece))
			err = e
		}
		if err != nil {
			// The frames that reached the output whole are written; the
			// rest are lost, and a torn one is cut off.
			whole := sort.SearchInts(s.ends, n+1)
			done := 0
			if whole > 0 {
				done = s.ends[whole-1]
			}
			s.w.lose(uint64(len(s.ends)-whole), fmt.Sprintf("writing failed: %v", err))
			if torn := n - done; torn > 0 && !cutTail(s.out, int64(torn)) {
				s.broken = true
			}
			n = done
		}
		s.written += int64(n)
	}
	s.ends = s.ends[:0]
	s.buf = s.buf[:0]
	if cap(s.buf) > 2*WriteBuffer {
		s.buf = make([]byte, 0, WriteBuffer) // do not keep a huge frame's room
	}
}

// pieceEnd is where the piece of the buffer that starts at n ends: at the
// last frame end within writePiece, or, when the frame at n is longer, at
// its end (s.whole) or writePiece on.
func (s *logSink) pieceEnd(n int) int {
	limit := n + writePiece
	if i := sort.SearchInts(s.ends, limit+1) - 1; i >= 0 && s.ends[i] > n {
		return s.ends[i]
	}
	next := s.ends[sort.SearchInts(s.ends, n+1)]
	if s.whole {
		return next
	}
	return min(limit, next)
}

// seekable reports whether out is a file one can seek in: a regular file
// or a device, not a pipe, a socket or a terminal.
func seekable(out io.Writer) bool {
	sk, ok := out.(io.Seeker)
	if !ok {
		return false
	}
	_, err := sk.Seek(0, io.SeekCurrent)
	return err == nil
}

// close flushes the buffer and, when frames were lost, ends the log with
// the closing frame: a meta frame without raw that takes the next seq and
// records the last seq given before it (last_seq) and the frames lost
// (dropped). Its own seq makes a loss at the very end a gap even for a
// reader that knows neither field. Then the output is closed.
func (s *logSink) close(lastSeq uint64) {
	s.flush()
	if s.w.quit {
		return
	}
	if !s.w.beginIO(0) {
		return
	}
	defer s.w.endIO()
	if s.release != nil {
		s.release()
		s.release = nil
	}
	if lost := s.w.Lost(); lost > 0 && !s.broken {
		f := Frame{
			SessionID: s.w.sessionID, ServerLabel: s.w.label, Seq: lastSeq + 1, TS: time.Now(),
			Direction: Meta, Transport: s.w.transport, LastSeq: lastSeq, Dropped: lost,
		}
		s.generic.Reset()
		if s.enc.Encode(&f) == nil {
			if n, err := s.out.Write(s.generic.Bytes()); err != nil && n > 0 {
				cutTail(s.out, int64(n))
			}
		}
	}
	_ = s.out.Close()
}

// cutTail drops the last n bytes of out, when it is a file that can be cut
// (a regular file: seekable and truncatable).
func cutTail(out io.Writer, n int64) bool {
	t, ok := out.(interface {
		Seek(offset int64, whence int) (int64, error)
		Truncate(size int64) error
	})
	if !ok {
		return false
	}
	if f, isFile := out.(*os.File); isFile {
		if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
			return false
		}
	}
	size, err := t.Seek(0, io.SeekEnd)
	if err != nil || size < n {
		return false
	}
	return t.Truncate(size-n) == nil
}

// ReserveRoomFor sets n bytes of out's storage aside as a log's output
// does when it is opened (a RoomReserver's ReserveRoom, or room beside a
// regular *os.File) and returns what gives them back, or nil when out
// cannot reserve. A writer that wraps a log's output uses it to be a
// RoomReserver too.
func ReserveRoomFor(out io.Writer, n int) func() { return reserveRoom(out, n) }

// reserveRoom sets n bytes of out's storage aside and returns what gives
// them back, or nil when out cannot reserve.
func reserveRoom(out io.Writer, n int) func() {
	switch o := out.(type) {
	case RoomReserver:
		if release, err := o.ReserveRoom(n); err == nil {
			return release
		}
	case *os.File:
		return reserveBeside(o, n)
	}
	return nil
}

// reserveBeside is reserveNextTo without its reason: nil when f is no
// regular file or its file system has no room.
func reserveBeside(f *os.File, n int) func() {
	release, _ := reserveNextTo(f, n)
	return release
}
