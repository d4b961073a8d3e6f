package export

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// bigLog is a session of n tools/call exchanges whose answers carry size
// bytes of text each.
func bigLog(n, size int) string {
	var b strings.Builder
	payload := strings.Repeat("x", size)
	ts := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, `{"session_id":"big","server_label":"srv","seq":%d,"ts":%q,"direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"t","arguments":{}}}}`+"\n",
			2*i-1, ts.Add(time.Duration(2*i)*time.Millisecond).Format(time.RFC3339Nano), i)
		fmt.Fprintf(&b, `{"session_id":"big","server_label":"srv","seq":%d,"ts":%q,"direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"%s"}]}}}`+"\n",
			2*i, ts.Add(time.Duration(2*i+1)*time.Millisecond).Format(time.RFC3339Nano), i, payload)
	}
	return b.String()
}

// heapPeak samples the heap's object bytes until stop is called, and
// returns the highest sample over the level when it started.
func heapPeak() (stop func() uint64) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 { metrics.Read(sample); return sample[0].Value.Uint64() }
	runtime.GC()
	base := read()
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			if v := read(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			default:
				runtime.Gosched()
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		if p := peak.Load(); p > base {
			return p - base
		}
		return 0
	}
}

// TestExportSpillsPastItsBudget: an export of a log far larger than its
// MemoryBudget moves what it rendered to the spill file, and the heap
// stays bounded by the budget, not by the log: 24 MB of log, a 64 KiB
// budget, a peak under 16 MiB (the reader's buffer, a frame, the engine's
// state and a few budget-sized buffers per spill; the rendered log held in
// memory is about 90 MiB). The spills' own memory is held to the budget.
func TestExportSpillsPastItsBudget(t *testing.T) {
	const budget = 64 << 10
	log := bigLog(400, 60_000)
	defer debug.SetGCPercent(debug.SetGCPercent(10)) // the heap tracks what is live
	stop := heapPeak()
	x, err := Load(NewJSON(), []capture.Input{{Name: "stdin", Stdin: true}}, strings.NewReader(log),
		Options{GeneratedAt: fixedTime, TempDir: t.TempDir(), MemoryBudget: budget})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	for name, sp := range map[string]*spill{"events": x.events, "calls": x.calls} {
		if sp.f == nil || sp.memStart < int64(len(log))/4 {
			t.Errorf("%s spill: file %v, %d bytes handed to it; want most of the rendered log on disk", name, sp.f != nil, sp.memStart)
		}
		if cap(sp.mem) > budget {
			t.Errorf("%s spill: %d bytes of memory, more than the %d budget", name, cap(sp.mem), budget)
		}
	}
	n, err := io.Copy(io.Discard, writerTo{x})
	peak := stop()
	if err != nil {
		t.Fatal(err)
	}
	if n < int64(len(log)) {
		t.Errorf("the export is %d bytes, less than the log's %d", n, len(log))
	}
	t.Logf("log %d MiB, export %d MiB, heap peak %.1f MiB", len(log)>>20, n>>20, float64(peak)/(1<<20))
	if peak > 16<<20 {
		t.Errorf("heap peak %.1f MiB for a %d MiB log; want it bounded by the budget, under 16 MiB", float64(peak)/(1<<20), len(log)>>20)
	}
}

// writerTo lets io.Copy run an export's Write.
type writerTo struct{ x *Export }

func (w writerTo) Read([]byte) (int, error) { return 0, io.EOF }

func (w writerTo) WriteTo(dst io.Writer) (int64, error) {
	cw := &countingWriter{w: dst}
	err := w.x.Write(cw)
	return cw.n, err
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
