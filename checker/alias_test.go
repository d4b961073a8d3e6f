package checker_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// TestStringsOutliveTheReadBuffer: the reader hands the engine frames whose
// strings alias its read buffer, which later reads overwrite. A log much
// larger than that buffer (1 MiB) with every session still open at the end
// shows any string the engine kept without copying: its ids, labels, tool
// names, run ids and findings must all still read as written.
func TestStringsOutliveTheReadBuffer(t *testing.T) {
	const sessions = 120
	padding := strings.Repeat("p", 40_000)
	trace := func(i int) string { return fmt.Sprintf("%016x%016x", 0xabc000+i, 7) }
	var b strings.Builder
	seq := map[int]int{}
	frame := func(i int, ms int, dir, raw string) {
		seq[i]++
		fmt.Fprintf(&b, `{"session_id":"sess-%04d","server_label":"label-%04d","seq":%d,"ts":"2026-07-28T12:%02d:%02d.%03dZ","direction":%q,"transport":"stdio","raw":%s}`+"\n",
			i, i, seq[i], ms/60000, ms/1000%60, ms%1000, dir, raw)
	}
	// Every session opens two calls first; the answers come after
	// megabytes of other sessions' traffic, and one call stays pending.
	for i := range sessions {
		frame(i, i, "c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":"req-%04d-a","method":"tools/call","params":{"name":"tool-%04d","arguments":{},"_meta":{"traceparent":"00-%s-00f067aa0ba902b7-01"}}}`, i, i, trace(i)))
		frame(i, i, "c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":"req-%04d-b","method":"tools/call","params":{"name":"tool-%04d","arguments":{}}}`, i, i))
	}
	for i := range sessions {
		frame(i, 1000+i, "s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":"req-%04d-a","result":{"content":[{"type":"text","text":"%s"}]}}`, i, padding))
	}
	log := b.String()
	if len(log) < 4<<20 {
		t.Fatalf("the log is only %d bytes", len(log))
	}
	rep := check(t, checker.Config{}, log)
	if len(rep.Sessions) != sessions {
		t.Fatalf("%d sessions, want %d", len(rep.Sessions), sessions)
	}
	for i, s := range rep.Sessions {
		want := fmt.Sprintf("sess-%04d label-%04d tool-%04d calls=2 run=t-%s", i, i, i, trace(i)[:16])
		got := s.ID + " " + s.Label + " "
		if len(s.Tools) == 1 {
			got += fmt.Sprintf("%s calls=%d", s.Tools[0].Name, s.Tools[0].Calls)
		}
		got += " run=" + strings.Join(s.RunIDs, ",")
		if got != want {
			t.Errorf("session %d reads %q, want %q", i, got, want)
		}
	}
	pending := 0
	for _, f := range rep.Findings {
		if f.Signal != checker.SignalPending {
			continue
		}
		var i int
		fmt.Sscanf(f.SessionID, "sess-%04d", &i)
		want := fmt.Sprintf(`tools/call tool-%04d (id "req-%04d-b") never got a response`, i, i)
		if f.Tool != fmt.Sprintf("tool-%04d", i) || f.Method != "tools/call" || !strings.HasSuffix(f.Message, want) {
			t.Errorf("pending finding of %s: method %q tool %q message %q; want %q", f.SessionID, f.Method, f.Tool, f.Message, want)
		}
		pending++
	}
	if pending != sessions {
		t.Errorf("%d pending findings, want %d", pending, sessions)
	}
	if len(rep.Runs) != sessions {
		t.Errorf("%d runs, want one per session's trace", len(rep.Runs))
	}
}

// TestWireMethodsOutliveTheReadBuffer: schema validation runs on batches of
// frames after the reader has moved on, so the method a frame is validated
// under must not alias the read buffer. Frames large enough that one batch
// spans more than the reader's 1 MiB buffer show a method read after the
// buffer was refilled: every bad request must still get its one finding,
// against its own method's definition.
func TestWireMethodsOutliveTheReadBuffer(t *testing.T) {
	const requests = 300
	padding := strings.Repeat("p", 20_000)
	kinds := []struct{ method, params, want string }{
		{"tools/call", `{"arguments":{}`, `tools/call request: /params: missing property "name" (2025-06-18 CallToolRequest)`},
		{"prompts/get", `{"arguments":{}`, `prompts/get request: /params: missing property "name" (2025-06-18 GetPromptRequest)`},
		{"resources/read", `{"url":"x"`, `resources/read request: /params: missing property "uri" (2025-06-18 ReadResourceRequest)`},
	}
	frames := initialize("2025-06-18", "2025-06-18")
	for i := range requests {
		k := kinds[i%len(kinds)]
		params := k.params + `,"_meta":{"pad":"` + padding + `"}}`
		frames = append(frames, fmt.Sprintf("c2s %d %s", 10+i, rpcRequest(fmt.Sprint(i+1), k.method, params)))
	}
	log := logOf("s", numbered(frames...)...)
	if len(log) < 4<<20 {
		t.Fatalf("the log is only %d bytes", len(log))
	}
	rep := check(t, checker.Config{Wire: true}, log)
	got := 0
	for _, f := range rep.Findings {
		if f.Signal != checker.SignalWire {
			continue
		}
		got++
		i := f.Line - 4 // lines 1-3 are the handshake
		if i < 0 || i >= requests {
			t.Errorf("a wire finding on line %d: %s", f.Line, f.Message)
			continue
		}
		k := kinds[i%len(kinds)]
		if f.Method != k.method || !strings.HasSuffix(f.Message, "wire: "+k.want) {
			t.Errorf("line %d: method %q message %q; want %q ending %q", f.Line, f.Method, f.Message, k.method, k.want)
		}
	}
	if got != requests {
		t.Errorf("%d wire findings, want %d", got, requests)
	}
}
