//go:build unix

package capture

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

// fullPipe is a pipe whose buffer is full and that nobody reads: a
// client's stderr=PIPE it never reads. Reading r later lets it drain.
func fullPipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	chunk := make([]byte, 64<<10)
	for {
		if err := w.SetWriteDeadline(time.Now().Add(50 * time.Millisecond)); err != nil {
			t.Skipf("pipes take no deadline here: %v", err)
		}
		if _, err := w.Write(chunk); err != nil {
			if !errors.Is(err, os.ErrDeadlineExceeded) {
				t.Fatal(err)
			}
			break
		}
	}
	if err := w.SetWriteDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	return r, w
}

// The warning about lost frames goes to a stderr nobody reads, which is
// full: the writer does not wait on it. Frames after the loss are logged,
// the log gets its closing frame, and the warning is written once stderr
// drains.
func TestLogWriterWarnNeverBlocks(t *testing.T) {
	defer func(d time.Duration) { closeTimeout = d }(closeTimeout)
	closeTimeout = 500 * time.Millisecond // what a writer stuck on stderr would cost
	r, stderr := fullPipe(t)
	out := &memLog{block: make(chan struct{}), entered: make(chan struct{}, 1)}
	w := NewLogWriter(out, LogOptions{SessionID: "s", Label: "l", Path: "warn.jsonl", Warn: stderr, Queue: 1})
	w.Add(ClientToServer, nil, nil, []byte("first"), false)
	<-out.entered // the writer is stuck writing "first"
	w.Add(ClientToServer, nil, nil, []byte("queued"), false)
	w.Add(ClientToServer, nil, nil, []byte("dropped"), false) // the queue (1) is full
	close(out.block)
	// Each later line waits for the queue to empty first, so that none is
	// dropped for the queue: a writer stuck on stderr never empties it.
	const later = 5
	for i := range later {
		for deadline := time.Now().Add(10 * time.Second); w.Queued() > 0; {
			if time.Now().After(deadline) {
				t.Fatalf("the writer stopped taking frames after the loss (line %d)", i)
			}
			time.Sleep(time.Millisecond)
		}
		w.Add(ClientToServer, nil, nil, []byte("later"), false)
	}
	if lost := w.Close(); lost != 1 {
		t.Errorf("lost %d, want 1", lost)
	}
	frames := out.frames(t)
	n := 0
	for _, f := range frames {
		if f.Text == "later" {
			n++
		}
	}
	if n != later {
		t.Errorf("%d of the %d lines after the loss are logged", n, later)
	}
	if c := frames[len(frames)-1]; c.Direction != Meta || c.Dropped != 1 {
		t.Errorf("no closing frame: the last is %+v", c)
	}
	// The warning is still on its way: it reaches stderr once it drains.
	if err := r.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	var got []byte
	buf := make([]byte, 64<<10)
	for !bytes.Contains(got, []byte("frames are being dropped")) {
		k, err := r.Read(buf)
		if err != nil {
			t.Fatalf("the warning never came: %v", err)
		}
		got = append(got[max(len(got)-256, 0):], bytes.Trim(buf[:k], "\x00")...)
	}
	if !strings.Contains(string(got), "warn.jsonl") {
		t.Errorf("warning: %q", got)
	}
}

// An output that drains slowly but steadily (a pipe read 64 KiB at a time,
// a tenth of the close bound apart) is waited
// for at Close, with more than a write buffer queued: nothing is lost and
// the log needs no closing frame.
func TestLogWriterCloseWaitsForASlowPipe(t *testing.T) {
	defer func(d time.Duration) { closeTimeout = d }(closeTimeout)
	closeTimeout = time.Second
	r, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got := make(chan []byte, 1)
	go func() {
		var all []byte
		buf := make([]byte, 64<<10)
		for {
			k, err := r.Read(buf)
			all = append(all, buf[:k]...)
			if err != nil {
				got <- all
				return
			}
			time.Sleep(closeTimeout / 10)
		}
	}()
	w := NewLogWriter(pw, LogOptions{SessionID: "s", Label: "l", Path: "slow.fifo"})
	line := []byte(strings.Repeat("x", 32<<10))
	const n = 48 // 1.5 MiB: one write of the buffer would outlast the bound
	for range n {
		w.Add(ClientToServer, nil, nil, line, false)
	}
	if lost := w.Close(); lost != 0 {
		t.Errorf("lost %d", lost)
	}
	pw.Close() // a Close that gave up left it open
	var frames []Frame
	rd := NewReader(bytes.NewReader(<-got), "pipe")
	for {
		f, _, err := rd.Next()
		if err != nil {
			break
		}
		frames = append(frames, f)
	}
	if len(frames) != n || frames[n-1].Direction == Meta {
		t.Errorf("%d frames, want %d and no closing frame", len(frames), n)
	}
}
