package viewer

import (
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
)

var testStrings = NewInterner()

func testRow(seq uint64, call int, body string) *Row {
	f := &capture.Frame{SessionID: "s", Seq: seq, Direction: "c2s", Raw: []byte(body)}
	return testStrings.Row(&checker.FrameEvent{Frame: f, Kind: "request", CallIndex: call, Pos: checker.Position{Name: "s.jsonl", Line: int(seq)}})
}

// TestStoreLimits: past the body budget the oldest bodies are released
// (rows, counts and statuses stay); past the frame limit the oldest rows
// go, and the session counts what went.
func TestStoreLimits(t *testing.T) {
	st := NewStore(Limits{BodyBytes: 100, MaxFrames: 5})
	body := `{"jsonrpc":"2.0","id":1,"method":"x","params":{"pad":"` + strings.Repeat("a", 10) + `"}}` // 57 bytes
	for i := 1; i <= 4; i++ {
		st.Apply([]Change{{SessionID: "s", Row: testRow(uint64(i), i, body)}})
	}
	st.Apply([]Change{{SessionID: "s", Call: &CallEnd{Index: 1, Status: "ok"}}})
	s := st.Session("s")
	released := 0
	for _, r := range s.Rows {
		if r.Released() {
			released++
		}
	}
	if released != 3 || st.BodyBytes() > 100 || len(s.Rows) != 4 {
		t.Fatalf("released %d bodies, holding %d bytes and %d rows", released, st.BodyBytes(), len(s.Rows))
	}
	if s.Rows[0].Status() != "ok" || s.Pending != 3 {
		t.Errorf("a released row keeps its call: status %q, pending %d", s.Rows[0].Status(), s.Pending)
	}
	page := inspect(s.Rows[0], st.Limits)
	if !strings.Contains(page, "released to keep the live view within its memory budget") || !strings.Contains(page, "line 1 of s.jsonl") {
		t.Errorf("the inspector of a released frame:\n%s", page)
	}
	if page := inspect(s.Rows[3], st.Limits); !strings.Contains(page, `"pad": "aaaaaaaaaa"`) {
		t.Errorf("the newest body is kept:\n%s", page)
	}
	for i := 5; i <= 7; i++ {
		st.Apply([]Change{{SessionID: "s", Row: testRow(uint64(i), -1, body)}})
	}
	if len(s.Rows) != 5 || s.Dropped != 2 || s.Frames != 7 || st.Held() != 5 || s.Rows[0].Seq != 3 {
		t.Errorf("frame limit: %d rows from seq %d, %d dropped, %d frames counted", len(s.Rows), s.Rows[0].Seq, s.Dropped, s.Frames)
	}
	if _, ok := s.calls[1]; ok {
		t.Error("a finished call whose rows all went is forgotten")
	}
	if s.Calls != 4 {
		t.Errorf("calls counted: %d", s.Calls)
	}
}
