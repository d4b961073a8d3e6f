package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/diff"
	"github.com/mcpsnoop/mcpsnoop/internal/testserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A session recorded from a real client against the v1 build verifies
// against the same build, in both eras: every call the same once the
// default ignores drop the volatile fields (stamp's createdAt, serverInfo
// under 2026-07-28), the destructive tool not replayed, nothing regressed.
func TestVerifySameBuild(t *testing.T) {
	_, v1, _ := programs(t)
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			rec := load(t, record(t, v1, version, everyTool))
			if got := rec.Modern(); got != (version == "2026-07-28") {
				t.Fatalf("Modern() = %v, revision %q", got, rec.Revision)
			}
			res, v := replay(t, rec, nil, Options{})
			if res.Stopped != "" {
				t.Fatalf("stopped: %s", res.Stopped)
			}
			if v.Regressed() {
				var b bytes.Buffer
				_ = v.WriteText(&b)
				t.Fatalf("regressed against the same build:\n%s", b.String())
			}
			got := verdicts(v)
			want := []string{"tools/list", "echo", "add", "slow", "lookup", "flaky", "stamp"}
			if rec.Modern() {
				want = append(want, "server/discover") // the SDK's client asks first
			}
			for _, name := range want {
				if got[name].Outcome != OutcomeSame {
					t.Errorf("%s: %+v", name, got[name])
				}
			}
			if d := got["delete_item"]; d.Outcome != OutcomeNotReplayed || !strings.Contains(d.Reason, "--all") {
				t.Errorf("delete_item: %+v", d)
			}
			if !v.ToolsCompared || len(v.Tools) != 0 {
				t.Errorf("tools: compared %v, %+v", v.ToolsCompared, v.Tools)
			}
			if v.Verdict() != VerdictPassed || v.Verified() != len(want) {
				t.Errorf("verdict %s, verified %d", v.Verdict(), v.Verified())
			}
			// The replay is a session log of its own, with the replay's
			// client info in place of the recorded client's.
			frames := framesOf(t, res.Log)
			if len(frames) == 0 || frames[0].SessionID != res.SessionID || frames[0].Direction != "meta" {
				t.Fatalf("replay log starts with %+v, session %q", frames[0], res.SessionID)
			}
			sawClient := false
			for _, f := range frames {
				if bytes.Contains(f.Raw, []byte(`"recorder"`)) {
					t.Errorf("the recorded client's info reached the replay: %s", f.Raw)
				}
				sawClient = sawClient || bytes.Contains(f.Raw, []byte(`"mcpsnoop-replay"`))
			}
			if !sawClient {
				t.Error("the replay never sent its own client info")
			}
		})
	}
}

// The same recording against the changed build names each change: the
// renamed tool (removed, added, and its call no longer offered), the
// changed result (with the JSON path that changed), the slower tool and
// the call that fails now.
func TestVerifyChangedBuild(t *testing.T) {
	t.Log("records with the SDK through the shim, verifies against a changed build")
	_, v1, v2 := programs(t)
	rec := load(t, record(t, v1, "2025-11-25", everyTool))
	// v2's slow sleeps a second, past any threshold up to half of it; a
	// busy machine may make any other call slower too, which is reported
	// as it should be: the counts below are what this run measured.
	durations := diff.Options{Threshold: testserver.SlowV2 / 2, Ratio: 2}
	res, v := replayJudged(t, rec, []string{v2}, Options{}, VerifyOptions{FailOnSlower: true, Durations: durations})
	if !v.Regressed() || v.Verdict() != VerdictRegressed {
		t.Fatal("the changed build did not regress")
	}
	got := verdicts(v)
	add := got["add"]
	if add.Outcome != OutcomeChanged || !add.Regression || len(add.Changes) != 1 ||
		add.Changes[0].Path != "$.result.content[0].text" || add.Changes[0].Before != `"2+3=5"` || add.Changes[0].After != `"2+3=6"` {
		t.Errorf("add: %+v", add)
	}
	if slow := got["slow"]; !slow.Slower || !slow.Regression || slow.Outcome != OutcomeSame {
		t.Errorf("slow: %+v", slow)
	}
	if l := got["lookup"]; l.Outcome != OutcomeNotOffered || !l.Regression {
		t.Errorf("lookup: %+v", l)
	}
	if f := got["flaky"]; f.Outcome != OutcomeErrorNow || f.Before != "ok" || f.After != "error" || !f.Regression ||
		f.Reason != `the tool answered isError "flaky: broken in v2"` {
		t.Errorf("flaky: %+v", f)
	}
	for _, name := range []string{"echo", "stamp"} {
		if c := got[name]; c.Outcome != OutcomeSame || c.Regression != c.Slower {
			t.Errorf("%s: %+v", name, c)
		}
	}
	slower := func(v *Verification) int {
		n := 0
		for _, d := range v.Durations {
			if d.Slower {
				n++
			}
		}
		return n
	}
	tools := map[string]string{}
	for _, tc := range v.Tools {
		tools[tc.Tool] = tc.Kind
		if tc.Regression != (tc.Kind != "added") {
			t.Errorf("tool change %+v: regression flag", tc)
		}
	}
	if tools["lookup"] != "removed" || tools["find"] != "added" {
		t.Errorf("tools: %+v", v.Tools)
	}
	var b bytes.Buffer
	if err := v.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"  removed: lookup\n", "  added: find\n",
		`  changed: line `, `tools/call add {"a":2,"b":3}`, `      $.result.content[0].text: "2+3=5" -> "2+3=6"`,
		`  error now: line `, `tools/call flaky {"text":"x"} (ok -> error): the tool answered isError "flaky: broken in v2"`,
		`  not offered: line `, `the replayed tools/list no longer lists tool "lookup"`,
		"durations (median per tool):\n  slower: tools/call slow ",
		fmt.Sprintf("verify failed: 1 changed, 1 error now, %d slower, 1 not offered, 1 tool change\n", slower(v)),
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, b.String())
		}
	}

	// The same replay without --fail-on-slower: slow is still reported,
	// and fails nothing.
	v, err := Verify(rec, res, VerifyOptions{Durations: durations})
	if err != nil {
		t.Fatal(err)
	}
	if slow := verdicts(v)["slow"]; !slow.Slower || slow.Regression {
		t.Errorf("slow, not gated: %+v", slow)
	}
	for _, d := range v.Durations {
		if d.Regression {
			t.Errorf("duration %+v, not gated, fails", d)
		}
	}
	b.Reset()
	_ = v.WriteText(&b)
	if want := fmt.Sprintf("verify failed: 1 changed, 1 error now, 1 not offered, 1 tool change; not gated: %d slower\n", slower(v)); !strings.HasSuffix(b.String(), want) {
		t.Errorf("text report, slower not gated:\n%s", b.String())
	}
}

// Fields that change on every call compare the same only when ignored:
// --ignore takes a JSONPath, --ignore-order compares arrays as sets.
func TestVerifyIgnores(t *testing.T) {
	_, v1, _ := programs(t)
	rec := load(t, record(t, v1, "2025-11-25", func(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
		call(ctx, t, cs, "nonce", map[string]any{"text": "x"})
		call(ctx, t, cs, "shuffle", map[string]any{"text": "x"})
	}))
	shim, _, _ := programs(t)
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	res, err := Run(withTimeout(t), rec, Target{Shim: shim, Log: t.TempDir() + "/r.jsonl"}, Options{All: true})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		ignore      []string
		order       bool
		nonce, shuf string
	}{
		{"defaults", nil, false, OutcomeChanged, OutcomeChanged},
		{"ignore the nonce", []string{"$.result.structuredContent.nonce", "result.content[0].text"}, false, OutcomeSame, OutcomeChanged},
		{"ignore order", nil, true, OutcomeChanged, OutcomeSame},
		{"both", []string{"$..nonce"}, true, OutcomeSame, OutcomeSame},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewComparer(tt.ignore, false, tt.order)
			if err != nil {
				t.Fatal(err)
			}
			v, err := Verify(rec, res, VerifyOptions{Comparer: c, Durations: untimed.Durations})
			if err != nil {
				t.Fatal(err)
			}
			got := verdicts(v)
			if got["nonce"].Outcome != tt.nonce || got["shuffle"].Outcome != tt.shuf {
				t.Errorf("nonce %+v, shuffle %+v", got["nonce"], got["shuffle"])
			}
		})
	}
}

// A server-to-client elicitation (2025-11-25) is answered with the
// recorded client's answer; one with no recorded answer is declined and
// reported, and the call's answer then differs.
func TestReplayAnswersServerRequests(t *testing.T) {
	_, v1, _ := programs(t)
	path := record(t, v1, "2025-11-25", func(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
		res := call(ctx, t, cs, "ask", map[string]any{"text": "Pick a seat"})
		if got := res.Content[0].(*mcp.TextContent).Text; got != "user said accept window" {
			t.Fatalf("recorded ask: %q", got)
		}
	})
	rec := load(t, path)
	res, v := replay(t, rec, nil, Options{All: true})
	if c := verdicts(v)["ask"]; c.Outcome != OutcomeSame || len(res.Declined) != 0 {
		t.Fatalf("ask: %+v, declined %v", c, res.Declined)
	}

	rec.answers = map[string][]recordedAnswer{} // as if the client's answer was never recorded
	res, v = replay(t, rec, nil, Options{All: true})
	c := verdicts(v)["ask"]
	if c.Outcome != OutcomeChanged || len(res.Declined) != 1 || !strings.Contains(res.Declined[0], "elicitation/create") {
		t.Fatalf("ask without a recorded answer: %+v, declined %v", c, res.Declined)
	}
	if len(c.Changes) != 1 || c.Changes[0].After != `"user said decline \u003cnil\u003e"` && c.Changes[0].After != `"user said decline <nil>"` {
		t.Errorf("changes: %+v", c.Changes)
	}
}

// A call that outlives --call-timeout is reported as timed out (and
// cancelled on the wire), and the replay goes on with the next call.
func TestReplayCallTimeout(t *testing.T) {
	_, v1, v2 := programs(t)
	rec := load(t, record(t, v1, "2025-11-25", func(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
		call(ctx, t, cs, "slow", map[string]any{"text": "x"})
		call(ctx, t, cs, "echo", map[string]any{"text": "after"})
	}))
	res, v := replay(t, rec, []string{v2}, Options{All: true, CallTimeout: testserver.SlowV2 / 4})
	got := verdicts(v)
	if s := got["slow"]; s.Outcome != OutcomeTimeout || !s.Regression || (s.After != "call_cancelled" && s.After != "late_result") {
		t.Errorf("slow: %+v", s)
	}
	// The replay went on: echo was sent (how fast it was answered on a
	// loaded machine is not this test's business).
	if e := got["echo"]; !e.Replayed() || e.ReplayID == "" || res.Stopped != "" {
		t.Errorf("echo after the timeout: %+v (stopped %q)", e, res.Stopped)
	}
	sentEcho := false
	for _, f := range framesOf(t, res.Log) {
		sentEcho = sentEcho || f.Direction == "c2s" && bytes.Contains(f.Raw, []byte(`"after"`))
	}
	if !sentEcho {
		t.Error("echo never reached the server")
	}
	cancelled := false
	for _, f := range framesOf(t, res.Log) {
		cancelled = cancelled || f.Direction == "c2s" && bytes.Contains(f.Raw, []byte("notifications/cancelled"))
	}
	if !cancelled {
		t.Error("the timed-out call was not cancelled on the wire")
	}
}

// A server that exits in the middle of a call: that call failed, not
// timed out (it got no answer, and not for want of time), with the end of
// the server's stderr; the calls after it are not replayed; every report
// form says failed.
func TestReplayServerExitsMidCall(t *testing.T) {
	_, v1, _ := programs(t)
	rec := load(t, record(t, v1, "2025-11-25", func(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
		call(ctx, t, cs, "echo", map[string]any{"text": "before"})
		call(ctx, t, cs, "add", map[string]any{"a": 1, "b": 2})
		call(ctx, t, cs, "echo", map[string]any{"text": "after"})
	}))
	t.Setenv("REPLAYSERVER_EXIT_ON", "add")
	res, v := replay(t, rec, nil, Options{All: true, CallTimeout: time.Hour})
	if !strings.Contains(res.Stopped, "closed its stdout") {
		t.Errorf("stopped: %q", res.Stopped)
	}
	if len(v.Calls) != 3 {
		t.Fatalf("calls %+v", v.Calls)
	}
	before, add, after := v.Calls[0], v.Calls[1], v.Calls[2]
	if before.Outcome != OutcomeSame || after.Outcome != OutcomeNotReplayed {
		t.Errorf("around the crash: %+v, %+v", before, after)
	}
	if add.Outcome != OutcomeFailed || !add.Regression || add.Before != "ok" || add.After != "pending" ||
		!strings.Contains(add.Reason, "closed its stdout") || !strings.Contains(add.Reason, "replayserver: exiting on add") {
		t.Errorf("add: %+v", add)
	}
	if v.Count(OutcomeTimeout) != 0 || v.Verdict() != VerdictRegressed {
		t.Errorf("timeouts %d, verdict %s", v.Count(OutcomeTimeout), v.Verdict())
	}
	var text, js bytes.Buffer
	if err := v.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := v.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"  failed: line ", `tools/call add {"a":1,"b":2} (ok -> pending): the server closed its stdout`, "verify failed: 1 failed\n"} {
		if !strings.Contains(text.String(), want) || strings.Contains(text.String(), "timed out") {
			t.Errorf("text report lacks %q or says timed out:\n%s", want, text.String())
		}
	}
	var doc struct {
		Counts map[string]int `json:"counts"`
		Calls  []struct {
			Outcome string `json:"outcome"`
		} `json:"calls"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil || doc.Counts["failed"] != 1 || doc.Counts["timeout"] != 0 || doc.Calls[1].Outcome != "failed" {
		t.Errorf("json (%v):\n%s", err, js.String())
	}
}

// The server's last messages are read before the replay ends: a request
// it writes after its stdin closed reaches the replay (declined, with no
// recorded answer, and reported) and its log, and nothing writes to the
// result once Run has returned (run with -race).
func TestReplayReadsTheServerToTheEnd(t *testing.T) {
	_, v1, _ := programs(t)
	rec := load(t, record(t, v1, "2025-11-25", func(ctx context.Context, t *testing.T, cs *mcp.ClientSession) {
		call(ctx, t, cs, "echo", map[string]any{"text": "hi"})
	}))
	t.Setenv("REPLAYSERVER_LATE_REQUEST", "1")
	for range 3 {
		res, v := replay(t, rec, nil, Options{All: true})
		declined := append([]string(nil), res.Declined...)
		if len(declined) != 1 || declined[0] != "roots/list: no recorded answer, refused" || len(v.Declined) != 1 {
			t.Fatalf("declined %q (verification %q)", declined, v.Declined)
		}
		late := false
		for _, f := range framesOf(t, res.Log) {
			late = late || f.Direction == "s2c" && bytes.Contains(f.Raw, []byte(`"late-1"`))
		}
		if !late {
			t.Error("the late request is not in the replay log")
		}
	}
}
