package checker_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
)

// TestMultiSessionInterleaved: sessions of one stream are judged separately
// (check.md 1.2, 2.3): a response in one session never answers a request of
// another, seqs and counters are per session, sessions come in first-seen
// order, and the verdict fails when any session fails.
func TestMultiSessionInterleaved(t *testing.T) {
	log := strings.Join([]string{
		envelope("zeta", "z-srv", 1, 0, "c2s", toolCall("7", "echo", "")),
		envelope("alpha", "a-srv", 1, 5, "c2s", toolCall("1", "other", "")),
		envelope("alpha", "a-srv", 2, 10, "s2c", rpcResult("7", `{}`)),         // zeta's id, in alpha
		envelope("zeta", "z-srv", 2, 15, "s2c", rpcError("1", -1, "not mine")), // alpha's id, in zeta
		envelope("zeta", "z-srv", 3, 20, "s2c", rpcResult("7", `{"content":[]}`)),
		envelope("alpha", "a-srv", 3, 30, "s2c", rpcResult("1", `{"content":[]}`)),
	}, "")
	rep := check(t, checker.Config{}, log)
	if len(rep.Sessions) != 2 {
		t.Fatalf("sessions = %d", len(rep.Sessions))
	}
	z, a := rep.Sessions[0], rep.Sessions[1]
	if z.ID != "zeta" || a.ID != "alpha" {
		t.Fatalf("session order = %s, %s; want zeta, alpha (first seen)", z.ID, a.ID)
	}
	if z.Label != "z-srv" || a.Label != "a-srv" {
		t.Errorf("labels = %q, %q", z.Label, a.Label)
	}
	if z.Source.FirstLine != 1 || a.Source.FirstLine != 2 || a.Source.Path != "test.jsonl" {
		t.Errorf("sources = %+v, %+v", z.Source, a.Source)
	}
	wantZ := checker.Counters{Errors: 1, Warnings: 1}
	wantA := checker.Counters{Warnings: 1}
	if z.Counters != wantZ || a.Counters != wantA {
		t.Errorf("counters zeta %+v alpha %+v; want %+v and %+v", z.Counters, a.Counters, wantZ, wantA)
	}
	sameLines(t, "findings", messages(rep), []string{
		"error mcpsnoop/error session zeta line 4: error response could not be matched to a call: response id has no matching request",
		"error mcpsnoop/warn session zeta line 4: response id has no matching request",
		"error mcpsnoop/warn session alpha line 3: response id has no matching request",
	})
	sameTools(t, z, []checker.ToolStats{{Name: "echo", Calls: 1, RoundTrips: 1, P50Ms: 20, P95Ms: 20, P99Ms: 20, ResultBytes: 14, MaxResultBytes: 14}})
	sameTools(t, a, []checker.ToolStats{{Name: "other", Calls: 1, RoundTrips: 1, P50Ms: 25, P95Ms: 25, P99Ms: 25, ResultBytes: 14, MaxResultBytes: 14}})
	if rep.Verdict != checker.Failed || !z.Failed() || !a.Failed() {
		t.Errorf("verdict %s, zeta failed %v, alpha failed %v", rep.Verdict, z.Failed(), a.Failed())
	}
}

// TestMultiSessionSeparateState: MRTR parking, pending calls, assertions and
// the verdict are per session.
func TestMultiSessionSeparateState(t *testing.T) {
	log := strings.Join([]string{
		envelope("one", "srv", 1, 0, "c2s", toolCall("1", "ask", "")),
		envelope("one", "srv", 2, 10, "s2c", rpcResult("1", inputRequired(`"S"`, "q"))),
		// An exact echo in another session links nothing there.
		envelope("two", "srv", 1, 20, "c2s", toolCall("2", "ask", retryParams(`"S"`, "q"))),
		envelope("two", "srv", 2, 30, "s2c", rpcResult("2", `{}`)),
	}, "")
	rep := check(t, checker.Config{ExpectTools: []string{"ask"}}, log)
	if len(rep.Sessions) != 2 {
		t.Fatalf("sessions = %d", len(rep.Sessions))
	}
	one, two := rep.Sessions[0], rep.Sessions[1]
	if one.Counters.Pending != 1 || two.Counters.Pending != 0 {
		t.Errorf("pending one=%d two=%d, want 1 and 0", one.Counters.Pending, two.Counters.Pending)
	}
	sameTools(t, two, []checker.ToolStats{{Name: "ask", Calls: 1, RoundTrips: 1, P50Ms: 10, P95Ms: 10, P99Ms: 10, ResultBytes: 2, MaxResultBytes: 2}})
	sameLines(t, "assertions one", assertionLines(one), []string{`pass expect-tool: expected tool "ask" was called`})
	sameLines(t, "assertions two", assertionLines(two), []string{`pass expect-tool: expected tool "ask" was called`})
	// Pending is not gated by default: both sessions pass.
	if rep.Verdict != checker.Passed {
		t.Errorf("verdict = %s, want passed: %q", rep.Verdict, messages(rep))
	}

	// An expected tool must be called in every session.
	rep = check(t, checker.Config{ExpectTools: []string{"ask"}},
		log+envelope("three", "srv", 1, 40, "c2s", rpcRequest("1", "ping", `{}`))+envelope("three", "srv", 2, 41, "s2c", rpcResult("1", `{}`)))
	if len(rep.Sessions) != 3 || rep.Verdict != checker.Failed || rep.Sessions[0].Failed() || !rep.Sessions[2].Failed() {
		t.Errorf("verdict %s; a session without the expected tool must fail alone", rep.Verdict)
	}
}

// TestLastNonEmptyLabelWins (check.md 1.1; capture-store-export.md 6.1).
func TestLastNonEmptyLabelWins(t *testing.T) {
	log := envelope("s", "first", 1, 0, "s2c", rpcRequest("1", "ping", `{}`)) +
		envelope("s", "", 2, 1, "c2s", rpcResult("1", `{}`)) +
		envelope("s", "second", 3, 2, "c2s", rpcRequest("2", "ping", `{}`)) +
		envelope("s", "", 4, 3, "s2c", rpcResult("2", `{}`)) +
		`{"session_id":"s","seq":5,"direction":"stderr","text":"no label member at all"}` + "\n"
	sr := onlySession(t, check(t, checker.Config{}, log))
	if sr.Label != "second" {
		t.Errorf("label = %q, want second", sr.Label)
	}
	if sr.Transport != "stdio" {
		t.Errorf("transport = %q", sr.Transport)
	}
}

// TestFramesWithoutSessionAreIgnored: envelopes that name no session belong
// to none; Ingest says so and they change nothing.
func TestFramesWithoutSessionAreIgnored(t *testing.T) {
	eng := checker.New(checker.Config{})
	ts := time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)
	orphan := capture.Frame{Seq: 9, TS: ts, Direction: capture.ServerToClient, Text: "not json at all"}
	if eng.Ingest(&orphan, checker.Position{Line: 1}) {
		t.Error("Ingest of a frame without session_id = true")
	}
	if eng.Sessions() != 0 {
		t.Errorf("sessions after an orphan frame = %d", eng.Sessions())
	}
	req := capture.Frame{SessionID: "s", Seq: 1, TS: ts, Direction: capture.ClientToServer, Raw: []byte(toolCall("1", "echo", ""))}
	if !eng.Ingest(&req, checker.Position{Line: 2}) {
		t.Error("Ingest of a session frame = false")
	}
	// An answer without a session does not settle the call.
	answer := capture.Frame{Seq: 2, TS: ts, Direction: capture.ServerToClient, Raw: []byte(rpcResult("1", `{}`))}
	if eng.Ingest(&answer, checker.Position{Line: 3}) {
		t.Error("Ingest of an answer without session_id = true")
	}
	rep := eng.Report()
	if len(rep.Sessions) != 1 {
		t.Fatalf("sessions = %d", len(rep.Sessions))
	}
	want := checker.Counters{Pending: 1}
	if got := rep.Sessions[0].Counters; got != want {
		t.Errorf("counters = %+v, want %+v (seq 9 and 2 never reached the session)", got, want)
	}
	sameLines(t, "findings", messages(rep), []string{"note mcpsnoop/pending session s line 2: tools/call echo (id 1) never got a response"})

	// Through the reader too: a log line without session_id is skipped.
	log := `{"seq":1,"direction":"s2c","text":"orphan"}` + "\n" +
		`{"session_id":"","seq":2,"direction":"s2c","raw":` + rpcResult("1", `{}`) + "}\n" +
		logOf("s", "1 c2s 0 "+call1, "2 s2c 5 "+ok1)
	rep = check(t, checker.Config{}, log)
	if len(rep.Sessions) != 1 || rep.Sessions[0].Counters != (checker.Counters{}) || len(rep.Findings) != 0 {
		t.Errorf("orphans leaked into the check: %d sessions, findings %q", len(rep.Sessions), messages(rep))
	}
	if rep.Sessions[0].Source.FirstLine != 3 {
		t.Errorf("first line = %d, want 3", rep.Sessions[0].Source.FirstLine)
	}
}
