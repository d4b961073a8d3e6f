package httpcapture

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// chunkReader hands out one given chunk per Read, then io.EOF once eof.
type chunkReader struct {
	next []byte
	eof  bool
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.next) == 0 && r.eof {
		return 0, io.EOF
	}
	n := copy(p, r.next)
	r.next = r.next[n:]
	return n, nil
}

func (r *chunkReader) Close() error { return nil }

// gzipEvents is a gzip event stream in chunks, chunk i holding counts[i]
// events and flushed, as a server streams them; it returns the events of
// each chunk too.
func gzipEvents(t *testing.T, level int, counts []int) (chunks [][]byte, events [][]string) {
	var z bytes.Buffer
	zw, err := gzip.NewWriterLevel(&z, level)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for c, count := range counts {
		var evs []string
		for range count {
			ev := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":%d}}`, n)
			n++
			evs = append(evs, ev)
			fmt.Fprintf(zw, "data: %s\n\n", ev)
		}
		if c == len(counts)-1 {
			zw.Close()
		} else {
			zw.Flush()
		}
		chunks = append(chunks, bytes.Clone(z.Bytes()))
		events = append(events, evs)
		z.Reset()
	}
	return chunks, events
}

// A chunk of a compressed event stream that took its place in the queue
// but does not fit the queue's memory budget is not logged, yet its loss
// is counted exactly: up to twice the budget it is still decoded, on the
// writer's side, and each event it completes is counted lost with a seq of
// its own, so the stream after it is logged whole; past twice the budget it
// is dropped, the decoder is told and decodes nothing after the hole (one
// lost frame for the rest of the stream, as for a chunk the full queue
// refused). Either way the closing frame's dropped equals the seq gaps
// (what check reports as missing_frames), and nothing but events sent, in
// their order, is logged.
func TestCompressedStreamChunkPastTheQueueBudget(t *testing.T) {
	for _, tt := range []struct {
		name   string
		level  int   // gzip's
		counts []int // events per chunk; chunk 1 is the one past the budget
		kept   []int // the chunks whose events are logged
		lost   int
	}{
		{"within twice the budget", gzip.DefaultCompression, []int{3, 3, 3, 3}, []int{0, 2, 3}, 3},
		// Stored blocks: a decoder not told of the hole would go on past
		// it as if nothing were missing.
		{"past twice the budget", gzip.NoCompression, []int{1, 60, 1, 1}, []int{0}, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			chunks, events := gzipEvents(t, tt.level, tt.counts)
			budget := len(chunks[0]) + 16
			for _, c := range chunks[2:] {
				if len(c) > budget {
					t.Fatalf("chunk of %d bytes, past the budget %d", len(c), budget)
				}
			}
			if over, twice := len(chunks[0])+len(chunks[1]) > budget, len(chunks[0])+len(chunks[1]) > 2*budget; !over || twice != (tt.lost == 1) {
				t.Fatalf("chunk 1 (%d bytes) is not where the case needs it", len(chunks[1]))
			}
			out := &memLog{block: make(chan struct{}), entered: make(chan struct{}, 1)}
			l := newLog(out, LogOptions{SessionID: "z-1-aaaaaaaaaaaa", Label: "z", Path: "z.jsonl", queueBytes: budget}, 64)
			x := &exchange{conn: "c"}
			l.add(observation{kind: obsRequest, x: x, body: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`)})
			select {
			case <-out.entered: // the writer is stuck writing the request
			case <-time.After(10 * time.Second):
				t.Fatal("the writer never wrote")
			}
			src := &chunkReader{}
			tap := &responseTap{src: src, log: l, x: x, info: &responseInfo{status: 200, contentType: "text/event-stream"}, z: newZStream("gzip", l.mem)}
			buf := make([]byte, 64<<10)
			read := func(c []byte) {
				src.next = c
				if n, err := tap.Read(buf); n != len(c) || err != nil {
					t.Fatalf("read %d of %d bytes: %v", n, len(c), err)
				}
			}
			drained := func() {
				for deadline := time.Now().Add(10 * time.Second); l.w.Queued() > 0; time.Sleep(time.Millisecond) {
					if time.Now().After(deadline) {
						t.Fatal("the queue never drained")
					}
				}
			}
			read(chunks[0]) // fits the budget
			read(chunks[1]) // does not, once its place is taken
			close(out.block)
			for _, c := range chunks[2:] {
				drained() // the chunks after fit
				read(c)
			}
			src.eof = true
			if _, err := tap.Read(buf); err != io.EOF {
				t.Fatalf("end of the stream: %v", err)
			}
			lost := l.Close()

			frames := out.frames(t)
			closing := frames[len(frames)-1]
			var logged []string
			var last uint64
			gaps := 0
			for _, f := range frames {
				if f.Seq > last {
					gaps += int(f.Seq - last - 1)
					last = f.Seq
				}
				if f.Direction == capture.ServerToClient {
					logged = append(logged, string(f.Raw)+f.Text)
				}
			}
			if closing.Direction != capture.Meta || closing.Dropped != lost || int(lost) != gaps || int(lost) != tt.lost {
				t.Errorf("lost %d (want %d), %d seq gaps, closing frame %+v", lost, tt.lost, gaps, closing)
			}
			var want []string
			for _, c := range tt.kept {
				want = append(want, events[c]...)
			}
			if strings.Join(logged, "\n") != strings.Join(want, "\n") {
				t.Errorf("logged:\n%s\nwant:\n%s", strings.Join(logged, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}
