package sarif

import (
	"bytes"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/checker/security"
)

const poisonedLog = "../checker/testdata/security/positive/poisoned.jsonl"

func checkPoisoned(t *testing.T, cfg checker.Config) *checker.Report {
	t.Helper()
	data, err := os.ReadFile(poisonedLog)
	if err != nil {
		t.Fatal(err)
	}
	eng := checker.New(cfg)
	r := capture.NewReader(bytes.NewReader(data), poisonedLog)
	for {
		f, line, err := r.Next()
		if err != nil {
			break
		}
		eng.Ingest(&f, checker.Position{Path: poisonedLog, Name: poisonedLog, Line: line})
	}
	return eng.Report()
}

// The security rules are declared after the others when the security
// rules ran, each with security-severity and tags so that code scanning
// ranks its alerts; every result names its own S rule.
func TestSecurityRules(t *testing.T) {
	gate, _ := checker.ParseFailOn("error,invalid,warn,security")
	rep := checkPoisoned(t, checker.Config{FailOn: gate})
	var buf bytes.Buffer
	if err := Write(&buf, rep, Options{WorkDir: "/"}); err != nil {
		t.Fatal(err)
	}
	validateSchema(t, compileSchema(t), buf.Bytes())
	var doc struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID         string `json:"id"`
						HelpURI    string `json:"helpUri"`
						Properties struct {
							Severity string   `json:"security-severity"`
							Tags     []string `json:"tags"`
						} `json:"properties"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	declared := doc.Runs[0].Tool.Driver.Rules
	if len(declared) != len(baseRules)-1+len(security.Rules) {
		t.Fatalf("%d rules declared, want the %d without wire plus %d security rules", len(declared), len(baseRules)-1, len(security.Rules))
	}
	byID := map[string]int{}
	for i, r := range declared {
		byID[r.ID] = i
	}
	for _, sr := range security.Rules {
		i, ok := byID[security.RulePrefix+sr.ID]
		if !ok {
			t.Fatalf("rule %s not declared", sr.ID)
		}
		r := declared[i]
		if score, err := strconv.ParseFloat(r.Properties.Severity, 64); err != nil || r.Properties.Severity != sr.Score || score <= 0 || score > 10 {
			t.Errorf("%s: security-severity %q, want %s", sr.ID, r.Properties.Severity, sr.Score)
		}
		tags := strings.Join(r.Properties.Tags, ",")
		if !strings.HasPrefix(tags, "security") || (sr.CWE != "" && !strings.Contains(tags, "external/cwe/"+strings.ToLower(sr.CWE))) {
			t.Errorf("%s: tags %v", sr.ID, r.Properties.Tags)
		}
		if !strings.HasSuffix(r.HelpURI, "/docs/reference/security.md#"+strings.ToLower(sr.ID)) {
			t.Errorf("%s: helpUri %q", sr.ID, r.HelpURI)
		}
	}
	seen := map[string]bool{}
	for _, res := range doc.Runs[0].Results {
		if declared[res.RuleIndex].ID != res.RuleID {
			t.Errorf("result %s has ruleIndex %d (%s)", res.RuleID, res.RuleIndex, declared[res.RuleIndex].ID)
		}
		if strings.HasPrefix(res.RuleID, security.RulePrefix) {
			seen[res.RuleID] = true
			if res.Level != "error" {
				t.Errorf("%s result at level %s, want error (gated)", res.RuleID, res.Level)
			}
		}
	}
	for _, id := range []string{"S1", "S2", "S3", "S4", "S5", "S6", "S7", "S8"} {
		if !seen[security.RulePrefix+id] {
			t.Errorf("no %s result", id)
		}
	}

	// A report of a check without the security rules declares none, and
	// a security result in it is refused rather than mis-indexed.
	rep.Security = false
	buf.Reset()
	if err := Write(&buf, rep, Options{WorkDir: "/"}); err == nil || !strings.Contains(err.Error(), "mcpsnoop/security/S") {
		t.Fatalf("a security result without its rule: err %v", err)
	}
	plain := checkPoisoned(t, checker.Config{})
	buf.Reset()
	if err := Write(&buf, plain, Options{WorkDir: "/"}); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(buf.Bytes(), []byte(security.RulePrefix)) {
		t.Error("a check without the security rules declares them")
	}
}
