package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker/security"
)

var poisonedLog = filepath.Join("..", "..", "checker", "testdata", "security", "positive", "poisoned.jsonl")

// --security counts without gating; --fail-on security gates; the default
// gate does not run the rules.
func TestCheckSecurityFlags(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	code, stdout, stderr := checkRun(t, "", "--security", poisonedLog)
	if code != 0 || stderr != "" || !strings.Contains(stdout, "security findings:\n  S1 high: 1 finding") || !strings.HasSuffix(stdout, "check passed\n") {
		t.Errorf("--security: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = checkRun(t, "", "--fail-on", "error,invalid,warn,security", poisonedLog)
	if code != 1 || !strings.Contains(stdout, "check failed: security\n") || !strings.Contains(stdout, `: security [server]: S2 (critical): tool "add" description`) {
		t.Errorf("--fail-on security: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = checkRun(t, "", poisonedLog)
	if code != 0 || strings.Contains(stdout, "security") {
		t.Errorf("default: exit %d\n%s", code, stdout)
	}
	// --blame client gates only on the credential the client sent.
	code, stdout, _ = checkRun(t, "", "--fail-on", "security", "--blame", "client", "--format", "json", poisonedLog)
	var rep struct {
		Findings []struct {
			RuleID, Level, Party string
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil || code != 1 {
		t.Fatalf("--blame client: exit %d, %v", code, err)
	}
	for _, f := range rep.Findings {
		if strings.HasPrefix(f.RuleID, security.RulePrefix) && (f.Level == "error") != (f.Party == "client") {
			t.Errorf("%s [%s] at level %s under --blame client", f.RuleID, f.Party, f.Level)
		}
	}
}

// --explain knows the security rules and the signal.
func TestExplainSecurity(t *testing.T) {
	for _, r := range security.Rules {
		code, stdout, _ := checkRun(t, "", "--explain", strings.ToLower(r.ID))
		lines := strings.Split(stdout, "\n")
		if code != 0 || lines[0] != r.ID+": "+r.Title || !slices.Contains(lines, "  example:   session s1 line 7: "+r.Example) ||
			!slices.Contains(lines, "  sarif:     mcpsnoop/security/"+r.ID) {
			t.Errorf("--explain %s: exit %d\n%s", r.ID, code, stdout)
		}
	}
	code, stdout, _ := checkRun(t, "", "--explain", "security")
	if code != 0 || strings.Count(stdout, "\n") != len(security.Rules)+1 || !strings.Contains(stdout, "S7  high     sender credential in traffic\n") {
		t.Errorf("--explain security: exit %d\n%s", code, stdout)
	}
	_, all, _ := checkRun(t, "", "--explain", "all")
	if !strings.HasSuffix(all, "S9    security server all revisions          one tool name, two servers, two definitions (low)\n") {
		t.Errorf("--explain all does not end with the security rules:\n%s", all)
	}
}
