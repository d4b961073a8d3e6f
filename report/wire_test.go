package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/checker/wire"
)

// wireReport is a session validated against 2025-06-18 with one finding.
func wireReport() *checker.Report {
	f := &wire.Finding{Revision: "2025-06-18", Subject: "tools/list result", Definition: "ListToolsResult",
		Issues: []wire.Issue{{Pointer: "/result/tools/1", Relative: "/tools/1", Keyword: "required", Message: `missing property "name"`, Definition: "ListToolsResult"}}}
	url := "https://modelcontextprotocol.io/specification/2025-06-18/schema#listtoolsresult"
	s := &checker.SessionReport{
		ID: "s1", Counters: checker.Counters{WireFindings: 1},
		FailedSignals: []checker.Signal{checker.SignalWire},
		RuleHits:      []checker.RuleHit{{ID: "W24", Frames: 2, SpecURL: "https://example/w24"}, {ID: "wire", Frames: 1, SpecURL: url}},
		Wire: &checker.WireSummary{Revisions: []string{"2025-06-18"}, Validated: 12, NotValidated: 1,
			Note: "1 frame not validated: they came before any frame told the session's protocol revision",
			Groups: []checker.WireGroup{{Subject: "tools/list result", Revision: "2025-06-18", Definition: "ListToolsResult", SpecURL: url,
				Frames: 1, FirstSeq: 5, FirstLine: 5, Example: f.Text() + "\x1b[2J"}}},
	}
	return &checker.Report{
		Verdict: checker.Failed, FailOn: []checker.Signal{checker.SignalWire}, Wire: true, Sessions: []*checker.SessionReport{s},
		Findings: []checker.Finding{{Signal: checker.SignalWire, RuleID: "mcpsnoop/wire", Level: checker.LevelError, SessionID: "s1", Seq: 5, Line: 5,
			Message: "session s1 frame 5: " + f.Text(), Text: f.Text(), Rules: []checker.RuleRef{{ID: "wire", SpecURL: url}}, Wire: f}},
		FindingsTotal: 1,
	}
}

func TestWriteTextWire(t *testing.T) {
	counters := "session s1: errors=0 invalid=0 warnings=0 mismatches=0 pending=0 late_results=0 deprecated=0 missing_frames=0 schema_findings=0\n"
	block := "wire findings:\n" +
		"  validated 12 frames against 2025-06-18: 1 breaks the schema\n" +
		`  1 frame, first at line 5: wire: tools/list result: /tools/1: missing property "name" (2025-06-18 ListToolsResult)\x1b[2J` + "\n"
	note := "  1 frame not validated: they came before any frame told the session's protocol revision\n"
	finding := `-:5: wire: tools/list result: /tools/1: missing property "name" (2025-06-18 ListToolsResult)` + "\n"
	verdict := "result: 1 of 1 session failed the gate (wire)\n"
	for _, tt := range []struct {
		verbose bool
		want    string
	}{
		{false, counters + finding + block + note + "check failed: wire\n" + verdict},
		{true, counters + finding + block + "    spec: https://modelcontextprotocol.io/specification/2025-06-18/schema#listtoolsresult\n" + note +
			"check failed: wire\n" +
			"rule W24: 2 frames, https://example/w24\n" +
			"rule wire: 1 frame, https://modelcontextprotocol.io/specification/2025-06-18/schema#listtoolsresult\n" + verdict},
	} {
		var buf bytes.Buffer
		if err := WriteText(&buf, wireReport(), TextOptions{Verbose: tt.verbose}); err != nil {
			t.Fatal(err)
		}
		if buf.String() != tt.want {
			t.Errorf("verbose=%v:\n%s\nwant:\n%s", tt.verbose, buf.String(), tt.want)
		}
	}

	// A session with nothing to validate says so.
	empty := &checker.Report{Verdict: checker.Passed, Wire: true, Sessions: []*checker.SessionReport{{ID: "s1", Wire: &checker.WireSummary{}}}}
	var out bytes.Buffer
	WriteText(&out, empty, TextOptions{})
	if want := counters + "wire findings:\n  no JSON-RPC frame to validate\ncheck passed\n"; out.String() != want {
		t.Errorf("empty session:\n%s\nwant:\n%s", out.String(), want)
	}

	// Without validation there is no block, and the counters line is the same.
	rep := wireReport()
	rep.Wire, rep.Sessions[0].Wire, rep.Sessions[0].FailedSignals, rep.Findings, rep.Verdict = false, nil, nil, nil, checker.Passed
	var buf bytes.Buffer
	WriteText(&buf, rep, TextOptions{})
	if strings.Contains(buf.String(), "wire") || !strings.HasPrefix(buf.String(), counters) {
		t.Errorf("without validation:\n%s", buf.String())
	}
}

func TestWriteJSONWire(t *testing.T) {
	decode := func(rep *checker.Report) map[string]any {
		var buf bytes.Buffer
		if err := WriteJSON(&buf, rep); err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		return doc
	}
	doc := decode(wireReport())
	s := doc["sessions"].([]any)[0].(map[string]any)
	if n, ok := s["counters"].(map[string]any)["wire_findings"]; !ok || n != 1.0 {
		t.Errorf("counters.wire_findings = %v", n)
	}
	if w := s["wire"].(map[string]any); w["validated_frames"] != 12.0 || w["unvalidated_frames"] != 1.0 || len(w["groups"].([]any)) != 1 {
		t.Errorf("wire = %v", w)
	}
	f := doc["findings"].([]any)[0].(map[string]any)
	rules := f["rules"].([]any)[0].(map[string]any)
	issue := f["wire"].(map[string]any)["issues"].([]any)[0].(map[string]any)
	if rules["id"] != "wire" || !strings.HasSuffix(rules["spec_url"].(string), "#listtoolsresult") ||
		issue["pointer"] != "/result/tools/1" || issue["keyword"] != "required" || f["wire"].(map[string]any)["definition"] != "ListToolsResult" {
		t.Errorf("finding = %v", f)
	}

	// Without validation: no wire_findings, no wire object.
	rep := wireReport()
	rep.Wire, rep.Sessions[0].Wire, rep.Findings = false, nil, nil
	s = decode(rep)["sessions"].([]any)[0].(map[string]any)
	if _, ok := s["counters"].(map[string]any)["wire_findings"]; ok {
		t.Error("wire_findings present without validation")
	}
	if _, ok := s["wire"]; ok {
		t.Error("wire present without validation")
	}
}
