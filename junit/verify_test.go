package junit

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/replay"
)

func f64(v float64) *float64 { return &v }

// verification is a replay with one call of each kind, a tool name and a
// reason carrying control characters from the wire.
func verification() *replay.Verification {
	return &replay.Verification{
		Recording: "recordings/session.jsonl", SessionID: "server-1-abc", Label: "server", Target: "./server --stdio",
		ReplaySessionID: "server-2-def", ToolsCompared: true,
		Tools: []replay.ToolChange{{Kind: "removed", Label: "removed", Tool: "lookup", Regression: true}},
		Calls: []replay.CallVerdict{
			{Line: 3, Method: "tools/list", Outcome: replay.OutcomeChanged, Reason: "the tool listing changed: removed: lookup", Before: "ok", After: "ok", Regression: true},
			{Line: 5, Method: "tools/call", Name: "echo", Arguments: `{"text":"hi"}`, Outcome: replay.OutcomeSame, Before: "ok", After: "ok", BeforeMS: f64(1.5), AfterMS: f64(2.25)},
			{Line: 7, Method: "tools/call", Name: "add", Arguments: `{"a":2}`, Outcome: replay.OutcomeChanged, Before: "ok", After: "ok", Regression: true,
				Changes: []replay.Change{{Path: "$.result.content[0].text", Before: `"5"`, After: `"6"`}}, ChangesTotal: 3, AfterMS: f64(1)},
			{Line: 9, Method: "tools/call", Name: "slow\x1b[31m", Arguments: `{}`, Outcome: replay.OutcomeSame, Before: "ok", After: "ok", Slower: true, Regression: true, BeforeMS: f64(1), AfterMS: f64(400)},
			{Line: 11, Method: "tools/call", Name: "flaky", Arguments: `{}`, Outcome: replay.OutcomeErrorNow, Before: "ok", After: "error", Reason: "the server rejected the request's MCP headers (-32020 HeaderMismatch): bad\x07", Regression: true},
			{Line: 13, Method: "tools/call", Name: "lookup", Arguments: `{}`, Outcome: replay.OutcomeNotOffered, Reason: `the replayed tools/list no longer lists tool "lookup"`, Regression: true},
			{Line: 15, Method: "tools/call", Name: "delete_item", Arguments: `{}`, Outcome: replay.OutcomeNotReplayed, Reason: "--all replays it"},
			{Line: 17, Method: "tools/call", Name: "wait", Arguments: `{}`, Outcome: replay.OutcomeTimeout, Before: "ok", After: "call_cancelled", Reason: "no answer within the call timeout", Regression: true},
		},
	}
}

func TestWriteVerifyGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteVerify(&buf, verification()); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "verify.xml")
	if *update {
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got := buf.String(); got != string(want) {
		t.Errorf("output differs from %s:\n--- got\n%s--- want\n%s", golden, got, want)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Skipped  int `xml:"skipped,attr"`
		Suites   []struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Time    string `xml:"time,attr"`
				Failure *struct {
					Type string `xml:"type,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Tests != 8 || doc.Failures != 6 || doc.Skipped != 1 || len(doc.Suites) != 1 || len(doc.Suites[0].Cases) != 8 {
		t.Fatalf("counts: tests %d failures %d skipped %d", doc.Tests, doc.Failures, doc.Skipped)
	}
	if c := doc.Suites[0].Cases[2]; c.Name != "server-1-abc/line 7 tools/call add" || c.Failure == nil || c.Failure.Type != "mcpsnoop.verify.changed" || c.Time != "0.001" {
		t.Errorf("add case %+v", c)
	}
	if strings.ContainsAny(buf.String(), "\x1b\x07") {
		t.Error("a control character reached the document")
	}
	if err := WriteVerify(&buf, nil); err == nil {
		t.Error("nil verification accepted")
	}
}
