package sarif

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/replay"
)

func f64(v float64) *float64 { return &v }

// verification is a replay with one call of each kind.
func verification(path string) *replay.Verification {
	return &replay.Verification{
		Recording: "recordings/session.jsonl", RecordingPath: path, SessionID: "server-1-abc", Label: "server", Target: "./server",
		ToolsCompared: true, ListingLine: 4, FailOnSlower: true,
		Tools: []replay.ToolChange{{Kind: "removed", Label: "removed", Tool: "lookup", Regression: true}, {Kind: "added", Label: "added", Tool: "find"}},
		Calls: []replay.CallVerdict{
			{Line: 3, Method: "tools/list", Outcome: replay.OutcomeChanged, Reason: "the tool listing changed", Regression: true},
			{Line: 5, Method: "tools/call", Name: "echo", Arguments: `{}`, Outcome: replay.OutcomeSame, Before: "ok", After: "ok"},
			{Line: 7, Method: "tools/call", Name: "add", Arguments: `{"a":2}`, Outcome: replay.OutcomeChanged, Regression: true, Before: "ok", After: "ok",
				Changes: []replay.Change{{Path: "$.result.content[0].text", Before: `"5"`, After: `"6"`}}, ChangesTotal: 2},
			{Line: 9, Method: "tools/call", Name: "slow", Arguments: `{}`, Outcome: replay.OutcomeSame, Slower: true, Regression: true, BeforeMS: f64(1), AfterMS: f64(400)},
			{Line: 11, Method: "tools/call", Name: "flaky", Arguments: `{}`, Outcome: replay.OutcomeErrorNow, Before: "ok", After: "error", Regression: true},
			{Line: 13, Method: "tools/call", Name: "lookup", Arguments: `{}`, Outcome: replay.OutcomeNotOffered, Reason: `no longer listed`, Regression: true},
			{Line: 15, Method: "tools/call", Name: "delete_item", Arguments: `{}`, Outcome: replay.OutcomeNotReplayed, Reason: "--all replays it"},
			{Line: 17, Method: "tools/call", Name: "wait", Arguments: `{}`, Outcome: replay.OutcomeTimeout, Before: "ok", After: "pending", Regression: true},
			{Line: 19, Method: "tools/call", Name: "add", Arguments: `{"a":3}`, Outcome: replay.OutcomeChanged, Regression: true, Before: "ok", After: "ok"},
			{Line: 21, Method: "tools/call", Name: "crash", Arguments: `{}`, Outcome: replay.OutcomeFailed, Before: "ok", After: "pending", Reason: "the server closed its stdout (it exited or crashed)", Regression: true},
		},
	}
}

// A verification's SARIF: every verify rule declared, a result per
// regression (the tools one per removed tool, none for an added one) and
// a note per call not replayed, each on the recording's line, with
// fingerprints that tell two calls of one tool apart by occurrence.
func TestWriteVerify(t *testing.T) {
	work := t.TempDir()
	var buf bytes.Buffer
	if err := WriteVerify(&buf, verification(filepath.Join(work, "recordings", "session.jsonl")), Options{Version: "1.2.3", WorkDir: work}); err != nil {
		t.Fatal(err)
	}
	validateSchema(t, compileSchema(t), buf.Bytes())
	compareGolden(t, filepath.Join("testdata", "verify.sarif"), buf.Bytes())

	var doc struct {
		Runs []struct {
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Locations []struct {
					Physical struct {
						Artifact struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
						Region struct {
							StartLine int `json:"startLine"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
				Fingerprints map[string]string `json:"partialFingerprints"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	var got []string
	fps := map[string]bool{}
	for _, r := range doc.Runs[0].Results {
		got = append(got, r.RuleID+"@"+r.Level+":"+itoa(r.Locations[0].Physical.Region.StartLine))
		if r.Locations[0].Physical.Artifact.URI != "recordings/session.jsonl" {
			t.Errorf("uri %q", r.Locations[0].Physical.Artifact.URI)
		}
		fp := r.Fingerprints[FingerprintKey]
		if fp == "" || fps[fp] {
			t.Errorf("fingerprint %q missing or repeated", fp)
		}
		fps[fp] = true
	}
	want := []string{
		"mcpsnoop/verify-tools@error:4", "mcpsnoop/verify-changed@error:7", "mcpsnoop/verify-slower@error:9",
		"mcpsnoop/verify-error-now@error:11", "mcpsnoop/verify-not-offered@error:13", "mcpsnoop/verify-not-replayed@note:15",
		"mcpsnoop/verify-timeout@error:17", "mcpsnoop/verify-changed@error:19", "mcpsnoop/verify-failed@error:21",
	}
	if len(got) != len(want) {
		t.Fatalf("results %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("result %d: %s, want %s", i, got[i], want[i])
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// Without --fail-on-slower a slower call is no result, not even when the
// call regressed for another reason.
func TestWriteVerifySlowerNotGated(t *testing.T) {
	v := verification("")
	v.FailOnSlower = false
	v.Calls = []replay.CallVerdict{
		{Line: 7, Method: "tools/call", Name: "add", Arguments: `{}`, Outcome: replay.OutcomeChanged, Regression: true, Slower: true, BeforeMS: f64(1), AfterMS: f64(400)},
		{Line: 9, Method: "tools/call", Name: "slow", Arguments: `{}`, Outcome: replay.OutcomeSame, Slower: true, BeforeMS: f64(1), AfterMS: f64(400)},
	}
	var buf bytes.Buffer
	if err := WriteVerify(&buf, v, Options{Version: "1.2.3"}); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(buf.Bytes(), []byte(`"ruleId": "mcpsnoop/verify-slower"`)) || !bytes.Contains(buf.Bytes(), []byte(`"ruleId": "mcpsnoop/verify-changed"`)) {
		t.Errorf("results:\n%s", buf.Bytes())
	}
}
