package httpcapture

import (
	"bytes"
	"net/url"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// A body's log copy is sized from its Content-Length, so that it is
// allocated once, but a declared length sets aside no more than expectMax
// ahead of the bytes, and nothing the budget cannot spare without a
// warning; whatever was set aside goes back when the copy is taken.
func TestLogCopyExpect(t *testing.T) {
	body := []byte(strings.Repeat("b", 640))
	for _, tc := range []struct {
		name     string
		budget   int   // 0: no budget
		declared int64 // Content-Length; -1 unknown
		wantCap  int   // capacity set aside before any byte
	}{
		{"a small body, allocated once", 1 << 20, 640, 640},
		{"a huge declared body sets aside expectMax", 1 << 20, 1 << 30, expectMax},
		{"unknown length", 1 << 20, -1, 0},
		{"no budget", 0, 640, 640},
		{"a budget that cannot spare it", 100, 640, 0},
		{"a declared length the budget cannot spare, a body it can", 2000, 5000, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var warn bytes.Buffer
			notes, _ := capture.NoticesFor(&warn)
			var mem *memBudget
			if tc.budget > 0 {
				mem = newMemBudget(tc.budget, notes)
			}
			c := logCopy{mem: mem}
			c.expect(tc.declared)
			if cap(c.buf) != tc.wantCap || c.held != tc.wantCap {
				t.Fatalf("set aside cap %d (held %d), want %d", cap(c.buf), c.held, tc.wantCap)
			}
			if mem != nil && mem.used != tc.wantCap {
				t.Errorf("budget used %d, want %d", mem.used, tc.wantCap)
			}
			first := c.buf[:cap(c.buf)]
			for p := body; len(p) > 0; p = p[min(len(p), 200):] {
				c.add(p[:min(len(p), 200)], capture.MaxLogLine)
			}
			data, truncated := c.take()
			fits := tc.budget == 0 || tc.budget >= len(body)
			if fits && (truncated || !bytes.Equal(data, body)) {
				t.Errorf("copy %q (truncated %v), want the body", data, truncated)
			}
			if tc.wantCap >= len(body) && len(first) > 0 && &first[0] != &data[0] {
				t.Error("the copy was grown past what was set aside for it")
			}
			if mem != nil && mem.used != 0 {
				t.Errorf("budget used %d after take, want 0", mem.used)
			}
			notes.Close(capture.NoticeFlush)
			if fits && warn.Len() > 0 {
				t.Errorf("warned %q", warn.String())
			}
		})
	}
}

// The reverse proxy copies bodies through pooled buffers of its own size;
// a buffer of another size is never pooled.
func TestProxyPoolsCopyBuffers(t *testing.T) {
	p := NewProxy(ProxyOptions{Target: &url.URL{Scheme: "http", Host: "127.0.0.1:1"}})
	if p.rp.BufferPool != copyBuffers {
		t.Fatalf("the reverse proxy's BufferPool is %v, want the shared pool", p.rp.BufferPool)
	}
	var pool bufferPool
	b := pool.Get()
	if len(b) != copyBufferSize {
		t.Fatalf("Get gave %d bytes, want %d", len(b), copyBufferSize)
	}
	pool.Put(b[:10]) // the reverse proxy may hand back a resliced buffer
	if got := pool.Get(); len(got) != copyBufferSize {
		t.Errorf("Get after Put gave %d bytes, want %d", len(got), copyBufferSize)
	}
	pool.Put(make([]byte, 100))
	for range 3 {
		if got := pool.Get(); len(got) != copyBufferSize {
			t.Errorf("a buffer of another size came back: %d bytes", len(got))
		}
	}
}
