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
