package otlpsink

import (
	"bytes"
	"errors"
	"github.com/mcpsnoop/mcpsnoop/internal/otlptest"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/capture/capturetest"
	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/export/otlp"
)

type closeBuffer struct {
	bytes.Buffer
	closed bool
}

func (b *closeBuffer) Close() error { b.closed = true; return nil }

// checkLog is what `check` finds in a log: its sessions' call counts and
// missing frames.
func checkLog(t *testing.T, data []byte) *checker.Report {
	t.Helper()
	eng := checker.New(checker.Config{})
	r := capture.NewReader(bytes.NewReader(data), "log")
	for {
		fr, line, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			continue
		}
		eng.Ingest(&fr, checker.Position{Line: line})
	}
	return eng.Report()
}

// TestTapTracesTheLog: a log's lines shown to a tap (as the log writer
// shows them) become one span per call of the log, with the session's
// resource as check sees it, and what is written through the tap reaches
// the output unchanged.
func TestTapTracesTheLog(t *testing.T) {
	for _, path := range []string{"../fixtures/devtools-60calls.jsonl", "../fixtures/mrtr.jsonl", "../fixtures/elicit.jsonl"} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rep := checkLog(t, data)
		c := otlptest.New(t, nil)
		sink := New(fast(c.URL()))
		var out closeBuffer
		w := sink.Tap(&out)
		obs, ok := w.(capture.LineObserver)
		if !ok {
			t.Fatal("a tap is not a capture.LineObserver")
		}
		for rest := data; len(rest) > 0; {
			i := bytes.IndexByte(rest, '\n') + 1
			obs.ObserveLine(rest[:i])
			rest = rest[i:]
		}
		if k, err := w.Write(data); k != len(data) || err != nil {
			t.Fatalf("write: %d, %v", k, err)
		}
		if err := w.Close(); err != nil || !out.closed {
			t.Fatalf("close: %v (closed %v)", err, out.closed)
		}
		st := sink.Close()
		if !bytes.Equal(out.Bytes(), data) {
			t.Fatalf("%s: the log's bytes changed", path)
		}
		calls := 0
		for _, s := range rep.Sessions {
			calls += s.Calls
		}
		if len(c.Spans()) != calls || st.Sent != int64(calls) || st.FramesSkipped != 0 {
			t.Errorf("%s: %d spans (stats %+v) for %d calls", path, len(c.Spans()), st, calls)
		}
		ids := map[string]bool{}
		for _, sp := range c.Spans() {
			ids[sp.Span.SpanID().String()] = true
		}
		if len(ids) != calls {
			t.Errorf("%s: %d distinct span ids for %d calls", path, len(ids), calls)
		}
	}
}

// TestTapNeverBlocks: with its tracer's queue full, a tap counts the lines
// it could not trace, one each, and still writes the log in full.
func TestTapNeverBlocks(t *testing.T) {
	var skipped atomic.Int64
	sent := 0
	tr := newTracer(func(otlp.Span) bool { sent++; return true }, &skipped, 100)
	var out closeBuffer
	w := &tap{out: &out, tr: tr}
	line := []byte(`{"session_id":"s","server_label":"x","seq":1,"ts":"2026-08-01T10:00:00Z","direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"method":"ping"}}` + "\n")
	for range 3 {
		w.ObserveLine(line) // each over the queue's 100 bytes
	}
	if n, err := w.Write(line); n != len(line) || err != nil {
		t.Fatalf("write: %d %v", n, err)
	}
	w.Close()
	<-tr.done
	if !bytes.Equal(out.Bytes(), line) || skipped.Load() != 3 || sent != 0 {
		t.Errorf("log %d bytes, skipped %d, sent %d; want the line written, 3 skipped", out.Len(), skipped.Load(), sent)
	}
	w.ObserveLine(line)
	if skipped.Load() != 4 {
		t.Errorf("a line after close: skipped %d, want 4", skipped.Load())
	}
}

// TestTapSkipsWholeLines: a line that does not fit the tracer's queue
// costs that line alone; the calls before and after it become spans.
func TestTapSkipsWholeLines(t *testing.T) {
	var skipped atomic.Int64
	var spans []otlp.Span
	tr := newTracer(func(sp otlp.Span) bool { spans = append(spans, sp); return true }, &skipped, 1<<20)
	req := func(id int) string {
		return `{"session_id":"s","server_label":"x","seq":` + itoa(2*id-1) + `,"ts":"2026-08-01T10:00:00Z","direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"ping"}}` + "\n"
	}
	res := func(id int) string {
		return `{"session_id":"s","server_label":"x","seq":` + itoa(2*id) + `,"ts":"2026-08-01T10:00:01Z","direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","id":` + itoa(id) + `,"result":{}}}` + "\n"
	}
	w := &tap{out: &closeBuffer{}, tr: tr}
	w.ObserveLine([]byte(req(1)))
	waitFor(t, "the tracer to take the line", func() bool { tr.mu.Lock(); defer tr.mu.Unlock(); return len(tr.pending) == 0 })
	tr.mu.Lock()
	saved := tr.limit
	tr.limit = 0 // the next line does not fit
	tr.mu.Unlock()
	w.ObserveLine([]byte(res(1)))
	tr.mu.Lock()
	tr.limit = saved
	tr.mu.Unlock()
	w.ObserveLine([]byte(req(2)))
	w.ObserveLine([]byte(res(2)))
	w.Close()
	<-tr.done
	if len(spans) != 2 || skipped.Load() != 1 {
		t.Fatalf("%d spans, %d skipped; want call 1 (pending at the end) and call 2, one line skipped", len(spans), skipped.Load())
	}
}

// BenchmarkTracer: what tracing costs per frame of a log (read, judged by
// the engine, calls mapped to spans), on the tracer's own goroutine.
func BenchmarkTracer(b *testing.B) {
	data, err := os.ReadFile(benchLog())
	if err != nil {
		b.Fatal(err)
	}
	frames := bytes.Count(data, []byte{'\n'})
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		var skipped atomic.Int64
		tr := newTracer(func(otlp.Span) bool { return true }, &skipped, len(data))
		tr.feed(data)
		tr.end()
		<-tr.done
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*frames), "ns/frame")
}

func benchLog() string {
	if p := os.Getenv("TRACER_BENCH_LOG"); p != "" {
		return p
	}
	return "../fixtures/devtools-60calls.jsonl"
}

// TestTapDiskFull: a log written through a tap onto a disk that fills up
// is the log it would be without one (the torn line cut off, the closing
// frame in the room set aside for it), and the spans are the calls the
// log was given, those the disk could not take too.
func TestTapDiskFull(t *testing.T) {
	d := capturetest.NewDisk(256 << 10)
	c := otlptest.New(t, nil)
	sink := New(fast(c.URL()))
	w := capture.NewLogWriter(sink.Tap(d.Output()), capture.LogOptions{SessionID: "srv-1-aaaaaaaaaaaa", Label: "srv", Path: "full.jsonl"})
	c2s, s2c := w.Lines(capture.ClientToServer), w.Lines(capture.ServerToClient)
	const calls = 400
	for i := 1; i <= calls; i++ {
		send(c2s, `{"jsonrpc":"2.0","id":`+itoa(i)+`,"method":"tools/call","params":{"name":"echo","arguments":{}}}`+"\n")
		send(s2c, `{"jsonrpc":"2.0","id":`+itoa(i)+`,"result":{"content":[{"type":"text","text":"`+strings.Repeat("x", 1000)+`"}]}}`+"\n")
	}
	// Small lines after the big ones fill what is left to less than a
	// closing frame, which only the room set aside takes.
	waitFor(t, "the log writer to write out and flush what it was given", w.Idle)
	for i := 0; i < 300; i++ {
		send(s2c, `{"n":`+itoa(i)+`}`+"\n")
	}
	lost := w.Close()
	st := sink.Close()
	data := d.Bytes()
	if lost == 0 || len(data) == 0 || data[len(data)-1] != '\n' {
		t.Fatalf("lost %d, the log ends %q", lost, data[max(0, len(data)-20):])
	}
	var last capture.Frame
	r := capture.NewReader(bytes.NewReader(data), "full.jsonl")
	for {
		fr, _, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the log holds a bad line: %v", err)
		}
		last = fr.Clone()
	}
	if last.Direction != capture.Meta || last.Dropped != lost {
		t.Errorf("the log ends with %+v, want the closing frame counting %d lost", last, lost)
	}
	rep := checkLog(t, data)
	if rep.Sessions[0].Calls >= calls || st.Sent != calls || st.FramesSkipped != 0 || len(c.Spans()) != calls {
		t.Errorf("stats %+v, collector %d, for %d calls given (%d in the log)", st, len(c.Spans()), calls, rep.Sessions[0].Calls)
	}
}

// TestTapLostFrames: frames the log could not keep still become spans,
// so the stream shows every call the log was given: past the log's size
// bound (--max-log-size), and after a failed write left a torn line that
// could not be cut off (an output that cannot be truncated), when the log
// takes nothing more.
func TestTapLostFrames(t *testing.T) {
	for _, tc := range []struct {
		name string
		out  io.WriteCloser
		max  int64
	}{
		{"size bound", &closeBuffer{}, 16 << 10},
		{"torn line", &failingOutput{room: 16 << 10}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := otlptest.New(t, nil)
			sink := New(fast(c.URL()))
			w := capture.NewLogWriter(sink.Tap(tc.out), capture.LogOptions{SessionID: "srv-1-aaaaaaaaaaaa", Label: "srv", Path: "lossy.jsonl", MaxSize: tc.max})
			c2s, s2c := w.Lines(capture.ClientToServer), w.Lines(capture.ServerToClient)
			const calls = 300
			for i := 1; i <= calls; i++ {
				send(c2s, `{"jsonrpc":"2.0","id":`+itoa(i)+`,"method":"tools/call","params":{"name":"echo","arguments":{}}}`+"\n")
				send(s2c, `{"jsonrpc":"2.0","id":`+itoa(i)+`,"result":{"content":[{"type":"text","text":"`+strings.Repeat("x", 100)+`"}]}}`+"\n")
				if i == 100 {
					// Past the bound or the room already: once these are
					// flushed, the frames after them are lost before they
					// are even written.
					waitFor(t, "the log writer to write out and flush what it was given", w.Idle)
				}
			}
			lost := w.Close()
			st := sink.Close()
			var kept []byte
			switch o := tc.out.(type) {
			case *closeBuffer:
				kept = o.Bytes()
			case *failingOutput:
				kept = o.Bytes()
			}
			rep := checkLog(t, kept)
			if lost == 0 || rep.Sessions[0].Calls >= calls {
				t.Fatalf("lost %d, %d calls in the log: nothing was lost", lost, rep.Sessions[0].Calls)
			}
			if st.Sent != calls || st.FramesSkipped != 0 || len(c.Spans()) != calls {
				t.Errorf("stats %+v, collector %d, for %d calls given (%d in the log)", st, len(c.Spans()), calls, rep.Sessions[0].Calls)
			}
		})
	}
}

// send hands a line to a log writer as the stdio shim does.
func send(l *capture.LineSplitter, line string) {
	buf := l.Buffer(len(line))
	n := copy(buf, line)
	l.Number(buf[:n])
	l.Fill()
}

// failingOutput takes room bytes, then fails every write part-way, and
// cannot be truncated: a torn line stays.
type failingOutput struct {
	closeBuffer
	room int
}

func (f *failingOutput) Write(p []byte) (int, error) {
	n := min(len(p), f.room)
	f.room -= n
	f.Buffer.Write(p[:n])
	if n < len(p) {
		return n, errors.New("no space left on device")
	}
	return n, nil
}
