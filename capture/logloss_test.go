package capture

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// failAtLine is a log file on a disk that fills up once, exactly at the
// end of its lines-th line: the write that would take the file past it
// writes up to that line's end and fails with ENOSPC; later writes (the
// disk freed up) succeed. It can be cut back like a regular file.
type failAtLine struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	lines  int
	failed chan struct{} // closed at the failure
	done   bool
}

func (f *failAtLine) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.done {
		have := bytes.Count(f.buf.Bytes(), []byte("\n"))
		if have+bytes.Count(p, []byte("\n")) > f.lines {
			k := 0
			for range f.lines - have {
				k += bytes.IndexByte(p[k:], '\n') + 1
			}
			f.buf.Write(p[:k])
			f.done = true
			close(f.failed)
			return k, syscall.ENOSPC
		}
	}
	return f.buf.Write(p)
}

func (f *failAtLine) Seek(offset int64, whence int) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if offset != 0 || whence != 2 {
		return 0, fmt.Errorf("only Seek(0, io.SeekEnd)")
	}
	return int64(f.buf.Len()), nil
}

func (f *failAtLine) Truncate(size int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.buf.Truncate(int(size))
	return nil
}

func (f *failAtLine) Close() error { return nil }

func (f *failAtLine) bytes() []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return bytes.Clone(f.buf.Bytes())
}

// addAll queues complete lines under one lock: the writer takes them in
// one batch, so they go out in one flush.
func addAll(w *LogWriter, dir string, lines ...string) {
	ops := make([]op, len(lines))
	for i, l := range lines {
		ops[i] = op{kind: opAdd, data: []byte(l)}
	}
	w.apply(dir, ops)
}

// A write that fails exactly at the end of a frame loses the frames after
// that end and no other: the frame that ended there is whole in the log
// (not counted lost, not cut off), the lost ones leave their seqs unused,
// and the closing frame's dropped counts them.
func TestLogWriterFailureAtAFrameEnd(t *testing.T) {
	big := strings.Repeat("x", writePiece*5/8) // one frame a write piece
	for _, tt := range []struct {
		name   string
		lines  []string // queued together, written in one flush
		fitted int      // lines the disk takes before it fails
		want   string   // the seqs in the log, closing frame last
	}{
		{"at the start of the write", []string{"a"}, 0, "[2 3]"},
		{"after the first frame", []string{"a", "b"}, 1, "[1 3 4]"},
		{"after the second frame of three", []string{"a", "b", "c"}, 2, "[1 2 4 5]"},
		{"after a piece of its own, the next piece untried", []string{big, big, big}, 1, "[1 4 5]"},
		{"after the second piece", []string{big, big, big}, 2, "[1 2 4 5]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := &failAtLine{lines: tt.fitted, failed: make(chan struct{})}
			w := NewLogWriter(out, LogOptions{SessionID: "s-1-aaaaaaaaaaaa", Label: "s", Path: "f.jsonl"})
			addAll(w, Stderr, tt.lines...)
			<-out.failed
			add(w, Stderr, "after")
			lost := w.Close()
			frames, torn := readLog(t, out.bytes())
			var seqs []uint64
			for _, f := range frames {
				seqs = append(seqs, f.Seq)
			}
			wantLost := uint64(len(tt.lines) - tt.fitted)
			if fmt.Sprint(seqs) != tt.want || torn != 0 || lost != wantLost {
				t.Fatalf("seqs %v (torn %d, lost %d), want %s and %d lost", seqs, torn, lost, tt.want, wantLost)
			}
			for i, f := range frames[:tt.fitted] {
				if f.Text != tt.lines[i] {
					t.Errorf("frame %d holds %.20q, want %.20q", i, f.Text, tt.lines[i])
				}
			}
			closing := frames[len(frames)-1]
			if closing.Direction != Meta || closing.Dropped != wantLost || closing.LastSeq != uint64(len(tt.lines)+1) || seqGaps(frames) != int(wantLost) {
				t.Errorf("closing frame %+v; seq gaps %d, want %d", closing, seqGaps(frames), wantLost)
			}
		})
	}
}

// Observations dropped because the queue was full leave a gap in seq of
// exactly their number before the next frame logged, not only at the end
// of the log.
func TestLogWriterQueueDropsLeaveAGap(t *testing.T) {
	const queue, dropped = 4, 3
	out := &memLog{block: make(chan struct{}), entered: make(chan struct{}, 1)}
	w := NewLogWriter(out, LogOptions{SessionID: "s-1-aaaaaaaaaaaa", Label: "s", Path: "q.jsonl", Queue: queue})
	add(w, Stderr, "first")
	<-out.entered // the writer is stuck writing "first"
	for i := range queue + dropped {
		add(w, Stderr, "queued "+strconv.Itoa(i))
	}
	if lost := w.Lost(); lost != dropped {
		t.Fatalf("lost %d, want %d", lost, dropped)
	}
	close(out.block)
	// The queue drains; the bound is for a hang only.
	for deadline := time.Now().Add(time.Minute); w.Queued() > 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the queue never drained")
		}
	}
	add(w, Stderr, "after 1")
	add(w, Stderr, "after 2")
	if lost := w.Close(); lost != dropped {
		t.Fatalf("lost %d after Close, want %d", lost, dropped)
	}
	frames := out.frames(t)
	var got []string
	for _, f := range frames {
		got = append(got, strconv.FormatUint(f.Seq, 10)+":"+f.Text)
	}
	want := "1:first 2:queued 0 3:queued 1 4:queued 2 5:queued 3 9:after 1 10:after 2 11:"
	if strings.Join(got, " ") != want {
		t.Errorf("frames %s\nwant   %s", strings.Join(got, " "), want)
	}
	if closing := frames[len(frames)-1]; closing.Dropped != dropped || closing.LastSeq != 10 || seqGaps(frames) != dropped {
		t.Errorf("closing frame %+v, seq gaps %d", closing, seqGaps(frames))
	}
}

// Notices never holds up its caller: with the writer stuck on a stderr
// nobody reads and the queue full, Say and Write return at once, and the
// notices past the queue are dropped. Close returns after its bound.
func TestNoticesNeverBlock(t *testing.T) {
	block, entered := make(chan struct{}), make(chan struct{}, 1)
	var mu sync.Mutex
	var written []string
	n := NewNotices(writerFunc(func(p []byte) (int, error) {
		select {
		case entered <- struct{}{}:
		default:
		}
		<-block
		mu.Lock()
		written = append(written, string(p))
		mu.Unlock()
		return len(p), nil
	}))
	n.Say("stuck\n")
	<-entered // the writer is stuck on it
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range NoticeQueue * 4 {
			n.Say(fmt.Sprintf("notice %d\n", i))
			fmt.Fprintf(n, "written %d\n", i)
		}
		n.Close(time.Millisecond)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute): // a hang, not a slow machine
		t.Fatal("Notices held up its caller")
	}
	n.Say("after close\n") // dropped, no panic
	close(block)
	<-n.done
	mu.Lock()
	defer mu.Unlock()
	if len(written) != 1+NoticeQueue || written[0] != "stuck\n" || written[1] != "notice 0\n" || written[2] != "written 0\n" {
		t.Errorf("written %q, want the stuck one and the %d queued first", written, NoticeQueue)
	}
}

// slowFramer takes pause to frame each observation: a writer busy with
// CPU work (framing, redaction), not in a call to its output.
type slowFramer struct{ pause time.Duration }

func (f slowFramer) Frames(o *Observation, out []Frame) []Frame {
	time.Sleep(f.pause) // stands for work, not for waiting on something
	return append(out, Frame{TS: o.TS, Direction: o.Direction, Text: string(o.Data)})
}

func (slowFramer) Written(*Observation, []Frame) {}

// Close gives up only on a call to the output that has not returned for
// CloseTimeout: a writer busy framing for longer than that, outside any
// call to its output, is waited for.
func TestLogWriterCloseWaitsForABusyWriter(t *testing.T) {
	defer func(d time.Duration) { closeTimeout = d }(closeTimeout)
	closeTimeout = 20 * time.Millisecond
	out := &memLog{}
	w := NewLogWriter(out, LogOptions{SessionID: "s", Label: "l", Path: "busy.jsonl", Framer: slowFramer{pause: 5 * closeTimeout}})
	add(w, Stderr, "one")
	add(w, Stderr, "two")
	if lost := w.Close(); lost != 0 {
		t.Errorf("lost %d", lost)
	}
	if got := len(out.frames(t)); got != 2 {
		t.Errorf("%d frames, want 2", got)
	}
}
