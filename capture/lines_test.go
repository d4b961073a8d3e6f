package capture

import (
	"bytes"
	"fmt"
	"testing"
)

// observed is a frame reduced to what a splitter decides.
type observed struct {
	Dir       string
	Raw       string
	Text      string
	Truncated bool
}

func splitFrames(t *testing.T, dir string, chunks [][]byte) []observed {
	t.Helper()
	out := &memLog{}
	w := newTestLog(out, nil)
	l := w.Lines(dir)
	for _, c := range chunks {
		l.cur = newSlab(false)
		c = append(l.cur.buf[:0], c...)
		l.number(c)
		l.fill()
		l.cur.release()
		l.cur = nil
	}
	l.End()
	if lost := w.Close(); lost != 0 {
		t.Fatalf("lost %d", lost)
	}
	var got []observed
	for i, f := range out.frames(t) {
		if f.Seq != uint64(i+1) {
			t.Fatalf("seq %d at %d", f.Seq, i)
		}
		got = append(got, observed{f.Direction, string(f.Raw), f.Text, f.Truncated})
	}
	return got
}

// chunkings cuts stream at every place, at every pair of places up to
// three bytes apart, and into single bytes.
func chunkings(stream []byte) [][][]byte {
	var out [][][]byte
	for i := 0; i <= len(stream); i++ {
		for j := i; j <= min(i+3, len(stream)); j++ {
			out = append(out, [][]byte{stream[:i], stream[i:j], stream[j:]})
		}
	}
	var singles [][]byte
	for i := range stream {
		singles = append(singles, stream[i:i+1])
	}
	return append(out, singles)
}

// However a stream is cut into reads, the log holds the same lines: JSON
// compacted, anything else as text, CR before LF stripped, empty protocol
// lines skipped (but not empty stderr lines), a last line without newline
// kept.
func TestSplitterIsIndependentOfChunking(t *testing.T) {
	tests := []struct {
		dir    string
		stream string
		want   []observed
	}{
		{ClientToServer, "{\"a\": 1}\r\n\r\n\n  \nnot json\r\n[1, 2]\n\rx\npartial\r", []observed{
			{ClientToServer, `{"a":1}`, "", false},
			{ClientToServer, "", "  ", false},
			{ClientToServer, "", "not json", false},
			{ClientToServer, `[1,2]`, "", false},
			{ClientToServer, "", "\rx", false},
			{ClientToServer, "", "partial\r", false},
		}},
		{ServerToClient, "\r", []observed{{ServerToClient, "", "\r", false}}},
		{ServerToClient, "\r\n\r\n", nil},
		{Stderr, "one\n\n\r\n{\"json\": true}\nlast", []observed{
			{Stderr, "", "one", false},
			{Stderr, "", "", false},
			{Stderr, "", "", false},
			{Stderr, "", `{"json": true}`, false},
			{Stderr, "", "last", false},
		}},
	}
	for _, tt := range tests {
		for _, chunks := range chunkings([]byte(tt.stream)) {
			got := splitFrames(t, tt.dir, chunks)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("%s %q cut as %q:\ngot  %+v\nwant %+v", tt.dir, tt.stream, chunks, got, tt.want)
			}
		}
	}
}

// A line longer than MaxLogLine is logged as its first MaxLogLine bytes,
// as text, marked truncated.
func TestSplitterTruncatesLongLines(t *testing.T) {
	long := append([]byte(`{"a":"`), bytes.Repeat([]byte("x"), MaxLogLine)...)
	long = append(long, "\"}\n{}\n"...)
	for _, size := range []int{64 << 10, 3 * MaxLogLine} {
		var chunks [][]byte
		for rest := long; len(rest) > 0; {
			n := min(size, len(rest))
			chunks = append(chunks, rest[:n])
			rest = rest[n:]
		}
		got := splitFrames(t, ClientToServer, chunks)
		if len(got) != 2 || !got[0].Truncated || got[0].Text != string(long[:MaxLogLine]) || got[1].Raw != "{}" {
			t.Fatalf("chunks of %d: %d frames, first truncated=%v", size, len(got), len(got) > 0 && got[0].Truncated)
		}
	}
}
