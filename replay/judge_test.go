package replay

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/diff"
)

// A call that got no answer within the call timeout is reported as timed
// out and fails the verification, whatever it was recorded as: a recorded
// error ranks worse than a cancelled call, so without the timeout first
// it would read as "ok now".
func TestJudgeTimedOutFailsWhateverWasRecorded(t *testing.T) {
	start := time.Date(2026, 8, 1, 10, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		recorded, now string // the recorded call's status; the replayed one's
		answer        string // the late answer, if one came
	}{
		{"error", "call_cancelled", ""},
		{"error", "pending", ""},
		{"error", "late_result", `{"jsonrpc":"2.0","id":9,"error":{"code":-32000,"message":"boom"}}`},
		{"ok", "call_cancelled", ""},
		{"ok", "late_result", `{"jsonrpc":"2.0","id":9,"result":{"content":[]}}`},
	} {
		t.Run(tt.recorded+"/"+tt.now, func(t *testing.T) {
			req := &Request{Seq: 3, Line: 3, TS: start, ID: json.RawMessage(`1`), Method: "tools/call", Name: "slow",
				Params: json.RawMessage(`{"name":"slow","arguments":{"text":"x"}}`)}
			rec := &Recording{calls: map[string]checker.CallRecord{
				callKey("1", start): {ID: "1", Method: "tools/call", Name: "slow", Status: tt.recorded, Start: start,
					End: start.Add(time.Millisecond), Duration: time.Millisecond, HasDuration: true},
			}}
			out := &Outcome{Request: req, ID: json.RawMessage(`9`), TimedOut: true}
			if tt.answer != "" {
				out.Answer = json.RawMessage(tt.answer)
			}
			replayed := map[string]checker.CallRecord{"9": {ID: "9", Method: "tools/call", Name: "slow", Status: tt.now, Start: start}}
			cmp, err := NewComparer(nil, false, false)
			if err != nil {
				t.Fatal(err)
			}
			c := judge(rec, out, replayed, false, "", VerifyOptions{Comparer: cmp, Durations: diff.DefaultOptions})
			if c.Outcome != OutcomeTimeout || !c.Regression || c.Before != tt.recorded || c.After != tt.now {
				t.Errorf("verdict %s (regression %v, %s -> %s), want %s and a regression", c.Outcome, c.Regression, c.Before, c.After, OutcomeTimeout)
			}
			v := Verification{Calls: []CallVerdict{c}}
			if v.Verdict() != VerdictRegressed || v.Count(OutcomeTimeout) != 1 {
				t.Errorf("verification %s with %d timed out, want %s and 1", v.Verdict(), v.Count(OutcomeTimeout), VerdictRegressed)
			}
		})
	}
}
