package progress

import (
	"bytes"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestRender(t *testing.T) {
	tests := []struct {
		read, total int64
		elapsed     time.Duration
		want        string
	}{
		{0, 417_000_000, 0, "reading 0 MB of 417 MB"},
		{0, 417_000_000, time.Second, "reading 0 MB of 417 MB"},
		{123_000_000, 417_000_000, 0, "reading 123 MB of 417 MB"},
		{210_000_000, 417_000_000, time.Second, "reading 210 MB of 417 MB, 210 MB/s, ETA 1s"},
		{100_000_000, 400_000_000, 2 * time.Second, "reading 100 MB of 400 MB, 50 MB/s, ETA 6s"},
		{10_000_000, 1_000_000_000, time.Second, "reading 10 MB of 1000 MB, 10 MB/s, ETA 1m39s"},
		{123_499_999, 417_000_000, 4 * time.Second, "reading 123 MB of 417 MB, 31 MB/s, ETA 10s"},
		{417_000_000, 417_000_000, 2 * time.Second, "reading 417 MB of 417 MB, 209 MB/s, ETA 0s"},
		// A file read twice counts past the total: the line stops there.
		{500_000_000, 417_000_000, 2 * time.Second, "reading 417 MB of 417 MB, 209 MB/s, ETA 0s"},
	}
	for _, tt := range tests {
		if got := Render(tt.read, tt.total, tt.elapsed); got != tt.want {
			t.Errorf("Render(%d, %d, %v) = %q, want %q", tt.read, tt.total, tt.elapsed, got, tt.want)
		}
	}
}

func TestShown(t *testing.T) {
	tests := []struct {
		terminal bool
		total    int64
		want     bool
	}{
		{true, Threshold + 1, true},
		{true, 417_000_000, true},
		{true, Threshold, false},
		{true, 0, false},
		{false, Threshold + 1, false},
		{false, 417_000_000, false},
	}
	for _, tt := range tests {
		if got := Shown(tt.terminal, tt.total); got != tt.want {
			t.Errorf("Shown(%v, %d) = %v, want %v", tt.terminal, tt.total, got, tt.want)
		}
	}
}

// syncBuffer is a bytes.Buffer the line's goroutine and the test can share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// A line not shown writes nothing at all and stops as a nil Line.
func TestStartNotShown(t *testing.T) {
	for _, tc := range []struct {
		terminal bool
		total    int64
	}{{false, 417_000_000}, {true, Threshold}} {
		var w syncBuffer
		var read atomic.Int64
		l := Start(&w, tc.terminal, tc.total, &read)
		if l != nil {
			t.Errorf("terminal %v, %d bytes: a line was started", tc.terminal, tc.total)
		}
		read.Store(tc.total / 2)
		l.Stop()
		if w.String() != "" {
			t.Errorf("terminal %v, %d bytes: wrote %q", tc.terminal, tc.total, w.String())
		}
	}
}

// A shown line is redrawn in place and erased at the end: every draw
// starts with a carriage return, one over a longer one pads it out, and
// what is left on the line after Stop is blank.
func TestLineDrawsAndErases(t *testing.T) {
	var w syncBuffer
	var read atomic.Int64
	l := Start(&w, true, 417_000_000, &read)
	if l == nil {
		t.Fatal("no line for a terminal and 417 MB")
	}
	if got := w.String(); got != "\rreading 0 MB of 417 MB" {
		l.Stop()
		t.Fatalf("not drawn at once: %q", got)
	}
	read.Store(123_000_000)
	// Wait for a draw (not a timing assertion: only how long to poll).
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(w.String(), "reading 123 MB of 417 MB"); {
		if time.Now().After(deadline) {
			l.Stop()
			t.Fatalf("no line drawn: %q", w.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	l.draw("short")
	l.Stop()
	out := w.String()
	if !strings.HasPrefix(out, "\r") || strings.Contains(out, "\n") {
		t.Errorf("not drawn in place: %q", out)
	}
	// What a terminal shows at the end: apply each carriage return.
	screen := []rune{}
	col := 0
	for _, r := range out {
		if r == '\r' {
			col = 0
			continue
		}
		if col < len(screen) {
			screen[col] = r
		} else {
			screen = append(screen, r)
		}
		col++
	}
	if strings.TrimSpace(string(screen)) != "" || col != 0 {
		t.Errorf("line left %q, cursor at %d", string(screen), col)
	}
	// "short" was drawn over the longer line: padded to its width.
	if i := strings.LastIndex(out, "\rshort"); i < 0 || !strings.HasPrefix(out[i+len("\rshort"):], strings.Repeat(" ", len("reading 123 MB of 417 MB")-len("short"))) {
		t.Errorf("a shorter line does not pad over the longer: %q", out)
	}
}

// screen is what a terminal shows after out: lines, with each carriage
// return going back to the start of the line, and where the cursor is.
func screen(out string) (lines []string, col int) {
	cur := []rune{}
	for _, r := range out {
		switch r {
		case '\r':
			col = 0
		case '\n':
			lines = append(lines, string(cur))
			cur, col = []rune{}, 0
		default:
			if col < len(cur) {
				cur[col] = r
			} else {
				cur = append(cur, r)
			}
			col++
		}
	}
	return append(lines, string(cur)), col
}

// A named read says what it is for; a message said while the line is up
// gets a clean line of its own above it, the line is drawn again below it,
// and a message after Stop is written plainly.
func TestLineSayAndPrefix(t *testing.T) {
	var w syncBuffer
	var read atomic.Int64
	l := StartFor(&w, true, "finding runs: ", 417_000_000, &read)
	if got := w.String(); got != "\rfinding runs: reading 0 MB of 417 MB" {
		l.Stop()
		t.Fatalf("first draw %q", got)
	}
	l.Say("mcpsnoop check: skipping bad.jsonl: not a log\n")
	lines, _ := screen(w.String())
	if len(lines) != 2 || lines[0] != "mcpsnoop check: skipping bad.jsonl: not a log" || !strings.HasPrefix(lines[1], "finding runs: reading 0 MB of 417 MB") {
		l.Stop()
		t.Fatalf("after Say the terminal shows %q", lines)
	}
	l.Stop()
	l.Say("after\n")
	lines, col := screen(w.String())
	if len(lines) != 3 || strings.TrimRight(lines[1], " ") != "after" || lines[2] != "" || col != 0 {
		t.Errorf("after Stop the terminal shows %q, cursor at %d", lines, col)
	}
}
