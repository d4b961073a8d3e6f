package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// fail-on: security in the action gates on the security rules, and the
// SARIF report it uploads declares each S rule with the security-severity
// code scanning ranks alerts by; the default gate passes the same log.
func TestActionFailOnSecurity(t *testing.T) {
	t.Parallel()
	f := newActionFixture(t)
	data, err := os.ReadFile(filepath.Join(actionPath(t), "checker", "testdata", "security", "positive", "poisoned.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	const log = "logs/security/poisoned.jsonl"
	writeFile(t, filepath.Join(f.workspace, log), data)

	res, uploads := f.run(t, map[string]string{"session": log})
	if res.Failed || len(uploads) != 1 {
		t.Fatalf("default gate: failed %v, %d uploads\n%s", res.Failed, len(uploads), res.Log)
	}

	res, uploads = f.run(t, map[string]string{"session": log, "fail-on": "error,invalid,warn,security"})
	if !res.Failed || res.Outputs["exit-code"] != "1" || len(uploads) != 1 {
		t.Fatalf("fail-on security: failed %v, exit %q, %d uploads\n%s", res.Failed, res.Outputs["exit-code"], len(uploads), res.Log)
	}
	var doc struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID         string `json:"id"`
						Properties struct {
							Severity string `json:"security-severity"`
						} `json:"properties"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID string `json:"ruleId"`
				Level  string `json:"level"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(uploads[0].data, &doc); err != nil {
		t.Fatal(err)
	}
	severity := map[string]string{}
	for _, r := range doc.Runs[0].Tool.Driver.Rules {
		severity[r.ID] = r.Properties.Severity
	}
	if severity["mcpsnoop/security/S2"] != "9.0" || severity["mcpsnoop/security/S1"] != "8.0" {
		t.Errorf("security-severity of S1, S2: %q, %q", severity["mcpsnoop/security/S1"], severity["mcpsnoop/security/S2"])
	}
	errors := 0
	for _, r := range doc.Runs[0].Results {
		if severity[r.RuleID] != "" && r.Level == "error" {
			errors++
		}
	}
	if errors != 11 {
		t.Errorf("%d security alerts at level error, want 11", errors)
	}
}
