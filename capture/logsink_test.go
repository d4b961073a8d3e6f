package capture

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture/capturetest"
)

// readLog reads what a log file holds, frames and torn lines.
func readLog(t *testing.T, data []byte) (frames []Frame, torn int) {
	t.Helper()
	r := NewReader(bytes.NewReader(data), "log")
	for {
		f, _, err := r.Next()
		switch {
		case err == io.EOF:
			return frames, torn
		case errors.Is(err, ErrTornTail):
			return frames, torn + 1
		case errors.Is(err, ErrTornLine):
			torn++
		case err != nil:
			t.Fatalf("%v", err)
		default:
			frames = append(frames, f.Clone())
		}
	}
}

// A disk that fills up costs exactly the frames it did not take: a write
// that fails part-way keeps the frames that reached the disk whole and cuts
// off the torn one, every lost frame leaves a gap in seq, and the closing
// frame, written into the room set aside for it, records the last seq given
// and the count, so that the seq gaps (what check counts) equal the loss.
func TestLogSinkDiskFull(t *testing.T) {
	// Big frames fill the disk; the small ones after them fill what is left
	// to less than a closing frame, which only the room set aside takes.
	const sent = 3000
	line := func(i int) string {
		if i >= sent-300 {
			return fmt.Sprintf(`{"n":%d}`, i)
		}
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"text":"%s"}}`, i, strings.Repeat("x", 1000))
	}
	tests := []struct {
		name      string
		disk      func(d *capturetest.Disk)
		closing   bool // the closing frame is sure to be written (else it may be, when it fits)
		cutOff    bool // the torn line is cut off
		wholeOnly bool // every line in the file is whole
	}{
		{"reserving", func(d *capturetest.Disk) {}, true, true, true},
		{"cuttable", func(d *capturetest.Disk) { d.NoReserve = true }, false, true, true},
		{"device", func(d *capturetest.Disk) { d.NoCut = true }, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := capturetest.NewDisk(512 << 10)
			tt.disk(d)
			var warn bytes.Buffer
			w := NewLogWriter(d.Output(), LogOptions{SessionID: "srv-1-aaaaaaaaaaaa", Label: "srv", Path: "full.jsonl", Warn: &syncWriter{w: &warn}})
			for i := range sent {
				if i == sent-300 {
					waitFlushed(t, w)
				}
				add(w, ServerToClient, line(i))
			}
			lost := w.Close()
			frames, torn := readLog(t, d.Bytes())
			var written int
			var closing *Frame
			for i := range frames {
				switch {
				case frames[i].Direction == ServerToClient:
					written++
				case frames[i].Direction == Meta && frames[i].Dropped > 0:
					closing = &frames[i]
				}
			}
			if lost == 0 || written+int(lost) != sent {
				t.Fatalf("%d frames written and %d counted lost, of %d sent", written, lost, sent)
			}
			if tt.wholeOnly && torn != 0 {
				t.Errorf("%d torn lines left in the log", torn)
			}
			if !tt.cutOff && torn != 1 {
				t.Errorf("%d torn lines, want the one that could not be cut off", torn)
			}
			if tt.closing && closing == nil {
				t.Fatal("no closing frame in the room set aside for it")
			}
			if closing != nil {
				if closing.Dropped != lost || closing.LastSeq != sent || closing.Seq != sent+1 || len(closing.Raw) != 0 || closing != &frames[len(frames)-1] {
					t.Errorf("closing frame %+v (lost %d)", closing, lost)
				}
				if gaps := seqGaps(frames); gaps != int(lost) {
					t.Errorf("seq gaps count %d lost frames, the writer %d", gaps, lost)
				}
			}
			if tt.cutOff && (len(d.Bytes()) == 0 || d.Bytes()[len(d.Bytes())-1] != '\n') {
				t.Error("the log does not end with a whole line")
			}
			if !strings.Contains(warn.String(), "no space left on device") || strings.Count(warn.String(), "warning:") != 1 {
				t.Errorf("warning: %q", warn.String())
			}
			if !d.Closed() {
				t.Error("the file was not closed")
			}
		})
	}
}

// A disk that frees up again takes the frames that come after: the ones it
// missed are gaps in seq, each counted once.
func TestLogSinkDiskFreesUp(t *testing.T) {
	d := capturetest.NewDisk(0)
	w := NewLogWriter(d.Output(), LogOptions{SessionID: "s-1-aaaaaaaaaaaa", Label: "s", Path: "p.jsonl"})
	for i := range 5 {
		add(w, ClientToServer, fmt.Sprintf(`{"n":%d}`, i))
	}
	deadline := time.Now().Add(10 * time.Second)
	for (w.Queued() > 0 || w.Lost() < 5) && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond) // until the writer has tried the full disk
	}
	d.Resize(1 << 20)
	for i := 5; i < 8; i++ {
		add(w, ClientToServer, fmt.Sprintf(`{"n":%d}`, i))
	}
	if lost := w.Close(); lost != 5 {
		t.Fatalf("lost %d, want 5", lost)
	}
	frames, torn := readLog(t, d.Bytes())
	var seqs []uint64
	for _, f := range frames {
		seqs = append(seqs, f.Seq)
	}
	if torn != 0 || fmt.Sprint(seqs) != "[6 7 8 9]" || frames[3].Dropped != 5 || seqGaps(frames) != 5 {
		t.Errorf("seqs %v, torn %d, frames %+v", seqs, torn, frames)
	}
}

// Past MaxSize frames are dropped and counted; the log holds whole frames
// up to the bound and then the closing frame.
func TestLogSinkMaxSize(t *testing.T) {
	d := capturetest.NewDisk(1 << 30)
	const bound = 10_000
	w := NewLogWriter(d.Output(), LogOptions{SessionID: "s-1-aaaaaaaaaaaa", Label: "s", Path: "p.jsonl", MaxSize: bound})
	const sent = 500
	for i := range sent {
		add(w, ServerToClient, fmt.Sprintf(`{"n":%d,"pad":"%s"}`, i, strings.Repeat("y", 100)))
	}
	lost := w.Close()
	data := d.Bytes()
	frames, torn := readLog(t, data)
	last := bytes.LastIndexByte(data[:len(data)-1], '\n') + 1 // the closing frame's line
	if torn != 0 || last > bound || last < bound-200 {
		t.Errorf("frames take %d bytes, bound %d (torn %d)", last, bound, torn)
	}
	closing := frames[len(frames)-1]
	if int(lost)+len(frames)-1 != sent || closing.Dropped != lost || seqGaps(frames) != int(lost) {
		t.Errorf("%d frames, lost %d, closing %+v", len(frames), lost, closing)
	}
}

// The room set aside beside a regular file is a hidden file that is gone
// from the folder at once and holds its bytes until the log closes.
func TestReserveBesideRegularFile(t *testing.T) {
	dir := t.TempDir()
	f, _, err := OpenLogFile(dir + "/a.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	release := reserveRoom(f, ClosingReserve)
	if release == nil {
		t.Fatal("no room reserved beside a regular file")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the folder holds %v", entries)
	}
	release()
	f.Close()
}

// waitFlushed waits until the writer has written what it was given: it
// sleeps on its wake-up with nothing queued, which it does only once its
// buffer is flushed. The bound is for a hang only.
func waitFlushed(t *testing.T, w *LogWriter) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !w.Idle(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the writer never flushed what it was given")
		}
	}
}

type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
