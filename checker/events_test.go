package checker_test

import (
	"os"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
)

// TestFrameEventsAndCallRecords runs the store example (capture-store-export.md
// 6.15, as fixtures/store-example.jsonl) and checks what exports are told:
// each frame's kind, call link, warning and observation, and each call's
// record with its bodies.
func TestFrameEventsAndCallRecords(t *testing.T) {
	f, err := os.Open("../fixtures/store-example.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var events []string
	calls := map[int]checker.CallRecord{}
	e := checker.New(checker.Config{
		KeepBodies: true,
		OnFrame: func(ev *checker.FrameEvent) {
			line := ev.Kind + " " + ev.Method + " id=" + ev.ID + " call=" + itoa(ev.CallIndex)
			if ev.Warning != "" {
				line += " warning=" + ev.Warning
			}
			if ev.Observation != "" {
				line += " observation=" + ev.Observation
			}
			events = append(events, line)
		},
		OnCall: func(r checker.CallRecord) { calls[r.Index] = r },
	})
	err = capture.ReadLog(f, "store-example.jsonl", func(fr *capture.Frame, line int) bool {
		e.Ingest(fr, checker.Position{Name: "store-example.jsonl", Line: line})
		return true
	}, e.TornTail)
	if err != nil {
		t.Fatal(err)
	}
	rep := e.Report()
	sameLines(t, "events", events, []string{
		"meta  id= call=-1",
		"request tools/call id=1 call=0",
		"response  id=\"1\" call=-1 warning=response id has no matching request",
		"response tools/call id=1 call=0",
		"response tools/call id=1 call=0 warning=duplicate response for the same id",
		"request tools/call id=2 call=1",
		"notification notifications/cancelled id= call=1",
		"response tools/call id=2 call=1 observation=result arrived 250ms after cancellation",
		"request tools/call id=3 call=2",
		"response tools/call id=3 call=2",
		"request tools/call id=4 call=3",
		"request tools/call id=4 call=4 warning=request reuses an id already in flight",
		"response tools/call id=4 call=4",
		"stderr  id= call=-1",
		"request tools/call id=5 call=5",
		"response tools/call id=5 call=5",
		"request tasks/get id=6 call=6",
		"response tasks/get id=6 call=6",
		"notification notifications/tasks id= call=-1",
		"request tools/call id=7 call=7",
		"response tools/call id=7 call=7",
		"request tools/call id=11 call=8",
		"other  id= call=-1",
		"response  id=12 call=-1",
		"invalid  id= call=-1",
	})
	want := map[int]string{
		0: "completed ok tool=echo",
		1: "cancelled late_result late reason=user gave up",
		3: "superseded superseded",
		5: "completed ok task=completed",
		6: "completed ok",
		7: "failed error error",
		8: "pending pending",
	}
	for i, w := range want {
		r, ok := calls[i]
		if !ok {
			t.Fatalf("call %d was never reported", i)
		}
		got := r.State + " " + r.Status
		if r.LateResult {
			got += " late reason=" + r.CancelReason
		}
		if r.TaskStatus != "" {
			got += " task=" + r.TaskStatus
		}
		if r.Error != nil {
			got += " error"
		}
		if i == 0 {
			got += " tool=" + r.Name
		}
		if got != w {
			t.Errorf("call %d: got %q, want %q", i, got, w)
		}
	}
	if p := string(calls[0].Params); !strings.Contains(p, `"arguments":{"text":"hi"}`) {
		t.Errorf("call 0 params = %s", p)
	}
	if r := string(calls[5].Result); !strings.Contains(r, "report ready") {
		t.Errorf("task call result = %s, want the task's own result", r)
	}
	sr := rep.Sessions[0]
	tr := sr.Traffic
	if tr.Requests != 9 || tr.Responses != 10 || tr.Notifications != 2 || sr.Calls != 9 {
		t.Errorf("traffic %+v calls %d", tr, sr.Calls)
	}
}

// TestCacheStaleRefetch: a cacheable request sent while the answer to the
// same request is still fresh by its ttlMs is noted on the request frame,
// and never counted as a warning.
func TestCacheStaleRefetch(t *testing.T) {
	list := func(id string, ms int, params string) []string {
		return []string{
			"c2s " + itoa(ms) + " " + rpcRequest(id, "tools/list", "{"+meta2026+params),
			"s2c " + itoa(ms+5) + " " + rpcResult(id, `{"tools":[],"resultType":"complete","ttlMs":60000}`),
		}
	}
	var frames []string
	frames = append(frames, list("1", 0, "}")...)                   // first fetch
	frames = append(frames, list("2", 10000, "}")...)               // inside the 60 s window
	frames = append(frames, list("3", 20000, `,"cursor":"p2"}`)...) // another page: not the same request
	frames = append(frames, list("4", 80000, "}")...)               // after the window of fetch 2
	log := logOf("s", numbered(frames...)...)
	var stale []uint64
	rep := check(t, checker.Config{OnFrame: func(ev *checker.FrameEvent) {
		if ev.CacheStaleRefetch {
			stale = append(stale, ev.Frame.Seq)
		}
	}}, log)
	if len(stale) != 1 || stale[0] != 3 {
		t.Errorf("stale refetch noted on frames %v, want [3]", stale)
	}
	if n := rep.Sessions[0].Counters.Warnings; n != 0 {
		t.Errorf("%d warnings, want none: a refetch is a note", n)
	}
}
