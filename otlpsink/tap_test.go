package otlpsink

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

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

// TestTapTracesTheLog: a log written through a tap, in writes of any
// size (lines split anywhere), reaches the file unchanged and becomes one
// span per call of the log, with the session's resource as check sees it.
func TestTapTracesTheLog(t *testing.T) {
	for _, path := range []string{"../fixtures/devtools-60calls.jsonl", "../fixtures/mrtr.jsonl", "../fixtures/elicit.jsonl"} {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rep := checkLog(t, data)
		for _, size := range []int{7, 333, 4096, len(data)} {
			c := newCollector(t, nil)
			sink := New(fast(c.url()))
			var out closeBuffer
			w := sink.Tap(&out)
			tr := w.(*tap).tr
			for rest := data; len(rest) > 0; {
				n := min(size, len(rest))
				if k, err := w.Write(rest[:n]); k != n || err != nil {
					t.Fatalf("write: %d, %v", k, err)
				}
				rest = rest[n:]
				for len(tr.in) > tapQueueWrites/2 {
					time.Sleep(time.Millisecond) // small writes: let the tracer keep up
				}
			}
			if err := w.Close(); err != nil || !out.closed {
				t.Fatalf("close: %v (closed %v)", err, out.closed)
			}
			st := sink.Close()
			if !bytes.Equal(out.Bytes(), data) {
				t.Fatalf("%s by %d: the log's bytes changed", path, size)
			}
			calls := 0
			for _, s := range rep.Sessions {
				calls += s.Calls
			}
			if c.received() != calls || st.Sent != int64(calls) || st.FramesSkipped != 0 {
				t.Errorf("%s by %d: %d spans (stats %+v) for %d calls", path, size, c.received(), st, calls)
			}
			ids := map[string]bool{}
			for _, sp := range c.spans {
				ids[sp.SpanID().String()] = true
			}
			if len(ids) != calls {
				t.Errorf("%s by %d: %d distinct span ids for %d calls", path, size, len(ids), calls)
			}
		}
	}
}

// TestTapNeverBlocks: with its tracer's queue full, a tap still writes
// the log in full and counts the frames it could not trace.
func TestTapNeverBlocks(t *testing.T) {
	var skipped atomic.Int64
	sent := 0
	tr := newTracer(func(otlp.Span) bool { sent++; return true }, &skipped, 100)
	var out closeBuffer
	w := &tap{out: &out, tr: tr}
	line := []byte(`{"session_id":"s","server_label":"x","seq":1,"ts":"2026-08-01T10:00:00Z","direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"method":"ping"}}` + "\n")
	big := bytes.Repeat(line, 3) // over the queue's 100 bytes
	if n, err := w.Write(big); n != len(big) || err != nil {
		t.Fatalf("write: %d %v", n, err)
	}
	w.Close()
	<-tr.done
	if !bytes.Equal(out.Bytes(), big) || skipped.Load() != 3 || sent != 0 {
		t.Errorf("log %d bytes, skipped %d, sent %d; want all bytes, 3 skipped", out.Len(), skipped.Load(), sent)
	}
	if n, err := w.Write(line); n != len(line) || err != nil || skipped.Load() != 4 {
		t.Errorf("a write after close: %d %v, skipped %d", n, err, skipped.Load())
	}
}

// TestTapResyncsAfterASkip: a write skipped in the middle of a line costs
// that line and the ones in the write, not the lines after it.
func TestTapResyncsAfterASkip(t *testing.T) {
	var skipped atomic.Int64
	var spans []otlp.Span
	done := make(chan struct{})
	tr := newTracer(func(sp otlp.Span) bool { spans = append(spans, sp); return true }, &skipped, 1<<20)
	req := func(id int) string {
		return `{"session_id":"s","server_label":"x","seq":` + itoa(2*id-1) + `,"ts":"2026-08-01T10:00:00Z","direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"ping"}}` + "\n"
	}
	res := func(id int) string {
		return `{"session_id":"s","server_label":"x","seq":` + itoa(2*id) + `,"ts":"2026-08-01T10:00:01Z","direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","id":` + itoa(id) + `,"result":{}}}` + "\n"
	}
	w := &tap{out: &closeBuffer{}, tr: tr}
	call1 := req(1) + res(1)
	w.Write([]byte(call1[:len(call1)-20])) // call 1, its answer cut
	for len(tr.in) > 0 {
		time.Sleep(time.Millisecond)
	}
	tr.mu.Lock()
	saved := tr.limit
	tr.limit = 0 // the next write does not fit
	tr.mu.Unlock()
	w.Write([]byte(call1[len(call1)-20:] + req(2)[:30]))
	tr.mu.Lock()
	tr.limit = saved
	tr.mu.Unlock()
	w.Write([]byte(req(2)[30:] + req(3) + res(3)))
	w.Close()
	go func() { <-tr.done; close(done) }()
	<-done
	if len(spans) != 2 {
		t.Fatalf("%d spans, want call 1 (pending at the end) and call 3", len(spans))
	}
	if skipped.Load() < 2 {
		t.Errorf("skipped %d, want the two lines cut", skipped.Load())
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
		tr := newTracer(func(otlp.Span) bool { return true }, &skipped, tapQueueBytes)
		tr.in <- chunk{data: data}
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
// frame in the room set aside for it), and the spans are the calls of
// what the log kept.
func TestTapDiskFull(t *testing.T) {
	d := capturetest.NewDisk(256 << 10)
	c := newCollector(t, nil)
	sink := New(fast(c.url()))
	w := capture.NewLogWriter(sink.Tap(d.Output()), capture.LogOptions{SessionID: "srv-1-aaaaaaaaaaaa", Label: "srv", Path: "full.jsonl"})
	c2s, s2c := w.Lines(capture.ClientToServer), w.Lines(capture.ServerToClient)
	send := func(l *capture.LineSplitter, line string) {
		buf := l.Buffer(len(line))
		n := copy(buf, line)
		l.Number(buf[:n])
		l.Fill()
	}
	const calls = 400
	for i := 1; i <= calls; i++ {
		send(c2s, `{"jsonrpc":"2.0","id":`+itoa(i)+`,"method":"tools/call","params":{"name":"echo","arguments":{}}}`+"\n")
		send(s2c, `{"jsonrpc":"2.0","id":`+itoa(i)+`,"result":{"content":[{"type":"text","text":"`+strings.Repeat("x", 1000)+`"}]}}`+"\n")
	}
	// Small lines after the big ones fill what is left to less than a
	// closing frame, which only the room set aside takes.
	waitFor(t, "the log writer's queue to drain", func() bool { return w.Queued() == 0 })
	time.Sleep(50 * time.Millisecond) // past its idle polls, to the flush
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
	if st.Sent != int64(rep.Sessions[0].Calls) || st.FramesSkipped != 0 || c.received() != int(st.Sent) {
		t.Errorf("stats %+v, collector %d, for %d calls in the log", st, c.received(), rep.Sessions[0].Calls)
	}
}
