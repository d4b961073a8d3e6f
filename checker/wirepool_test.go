package checker

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// Outcomes reach the session in frame order whatever the batches do: the
// k-th finding of a kind gets occurrence k, so its fingerprint is the one
// a frame-by-frame check would give it.
func TestWirePoolAppliesInFrameOrder(t *testing.T) {
	var log strings.Builder
	seq := 0
	line := func(dir, raw string) {
		seq++
		fmt.Fprintf(&log, `{"session_id":"s","server_label":"srv","seq":%d,"ts":"2026-07-28T12:00:00Z","direction":%q,"transport":"stdio","raw":%s}`+"\n", seq, dir, raw)
	}
	line("c2s", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	line("s2c", `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}`)
	for i := 1; i <= 400; i++ {
		line("c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"t","arguments":{}}}`, i))
		result := `{"content":[]}`
		if i%10 == 0 {
			result = `{"content":[{"type":"text"}]}`
		}
		line("s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":%s}`, i, result))
	}

	e := New(Config{Wire: true})
	e.pool.maxInFlight = 3 // several batches out at the end, whatever the machine
	r := capture.NewReader(strings.NewReader(log.String()), "t.jsonl")
	for {
		f, n, err := r.Next()
		if err != nil {
			break
		}
		e.Ingest(&f, Position{Path: "t.jsonl", Line: n})
	}
	rep := e.Report()
	var wire []Finding
	for _, f := range rep.Findings {
		if f.Signal == SignalWire {
			wire = append(wire, f)
		}
	}
	if len(wire) != 40 {
		t.Fatalf("%d wire findings, want 40", len(wire))
	}
	sort.Slice(wire, func(i, j int) bool { return wire[i].Seq < wire[j].Seq })
	for k, f := range wire {
		tuple := fingerprintTuple{rule: f.Rule(), method: f.Method, tool: f.Tool, kind: f.Kind}
		if want := fingerprint("srv", tuple, k); f.Fingerprint != want {
			t.Fatalf("finding %d (frame %d): fingerprint %s, want %s (occurrence %d)", k, f.Seq, f.Fingerprint, want, k)
		}
	}
	if g := rep.Sessions[0].Wire.Groups; len(g) != 1 || g[0].FirstSeq != 22 || g[0].Frames != 40 {
		t.Errorf("groups %+v", g)
	}
}
