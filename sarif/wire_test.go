package sarif

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/checker/wire"
)

// The wire rule is declared only in a log of a check that validated
// frames, last, so the other rules keep their indexes; its results and
// those of warn and mismatch carry their catalogue rules and spec links.
func TestWireRuleAndSpecLinks(t *testing.T) {
	url := "https://modelcontextprotocol.io/specification/2025-06-18/schema#listtoolsresult"
	warnURL := "https://modelcontextprotocol.io/specification/2025-06-18/basic/index#responses"
	rep := findingsReport(
		checker.Finding{Signal: checker.SignalWarn, Level: checker.LevelError, SessionID: "s1", Seq: 4, Path: s1Log, Line: 4,
			Message: "session s1 frame 4: response id has no matching request", Rules: []checker.RuleRef{{ID: "W24", SpecURL: warnURL}}},
		checker.Finding{Signal: checker.SignalWire, Level: checker.LevelError, SessionID: "s1", Seq: 5, Path: s1Log, Line: 5,
			Message: `session s1 frame 5: wire: tools/list result: /tools/1: missing property "name" (2025-06-18 ListToolsResult)`,
			Rules:   []checker.RuleRef{{ID: "wire", SpecURL: url}}, Wire: &wire.Finding{Revision: "2025-06-18"}},
	)
	var buf bytes.Buffer
	if err := Write(&buf, rep, Options{WorkDir: repo}); err == nil {
		t.Fatal("a wire result in a log without the wire rule was written")
	}
	rep.Wire = true
	buf.Reset()
	if err := Write(&buf, rep, Options{WorkDir: repo}); err != nil {
		t.Fatal(err)
	}
	validateSchema(t, compileSchema(t), buf.Bytes())
	var doc struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID      string `json:"id"`
						HelpURI string `json:"helpUri"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID     string         `json:"ruleId"`
				RuleIndex  int            `json:"ruleIndex"`
				Properties map[string]any `json:"properties"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	declared := doc.Runs[0].Tool.Driver.Rules
	last := declared[len(declared)-1]
	if len(declared) != len(baseRules) || last.ID != "mcpsnoop/wire" || last.HelpURI != "https://modelcontextprotocol.io/specification/2026-07-28/schema" {
		t.Errorf("rules: %d, last %+v", len(declared), last)
	}
	for i, r := range declared[:len(declared)-1] {
		if r.ID != rules[i].id {
			t.Errorf("rule %d is %s, want %s", i, r.ID, rules[i].id)
		}
	}
	wantProps := []string{`{"mcpsnoop/rules":["W24"],"mcpsnoop/specUris":["` + warnURL + `"]}`, `{"mcpsnoop/rules":["wire"],"mcpsnoop/specUris":["` + url + `"]}`}
	for i, res := range doc.Runs[0].Results {
		props, _ := json.Marshal(res.Properties)
		if string(props) != wantProps[i] {
			t.Errorf("result %d properties %s, want %s", i, props, wantProps[i])
		}
		if declared[res.RuleIndex].ID != res.RuleID {
			t.Errorf("result %d: ruleIndex %d names %s, not %s", i, res.RuleIndex, declared[res.RuleIndex].ID, res.RuleID)
		}
	}

	// Without validation the log declares the rules it always did, each
	// with its help link where a spec section fits.
	buf.Reset()
	if err := Write(&buf, &checker.Report{Verdict: checker.Passed}, Options{WorkDir: repo}); err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(buf.Bytes(), &doc)
	declared = doc.Runs[0].Tool.Driver.Rules
	if len(declared) != len(baseRules)-1 {
		t.Fatalf("%d rules without validation, want %d", len(declared), len(baseRules)-1)
	}
	links := map[string]string{}
	for _, r := range declared {
		links[r.ID] = r.HelpURI
	}
	if links["mcpsnoop/warn"] != RuleCatalogURI || links["mcpsnoop/mismatch"] == "" || links["mcpsnoop/error"] == "" || links["mcpsnoop/assertion"] != "" {
		t.Errorf("help links %v", links)
	}
}
