package report

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
)

func checkSecurityFixture(t *testing.T, cfg checker.Config) *checker.Report {
	t.Helper()
	const path = "../checker/testdata/security/positive/poisoned.jsonl"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	eng := checker.New(cfg)
	r := capture.NewReader(bytes.NewReader(data), path)
	for {
		f, line, err := r.Next()
		if err != nil {
			break
		}
		eng.Ingest(&f, checker.Position{Path: path, Name: path, Line: line})
	}
	return eng.Report()
}

// The text report gets a "security findings:" block of its own when the
// security rules ran; the counters line keeps its fixed wording. The JSON
// report counts security_findings and carries each finding's detail.
func TestSecurityReports(t *testing.T) {
	gate, _ := checker.ParseFailOn("error,invalid,warn,security")
	rep := checkSecurityFixture(t, checker.Config{FailOn: gate})
	var text bytes.Buffer
	if err := WriteText(&text, rep, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	out := text.String()
	for _, want := range []string{
		"\nsecurity findings:\n  S1 high: 1 finding (instruction aimed at the model, hidden from the user)\n  S2 critical: 1 finding",
		"  S7 high: 2 findings (credential in traffic)\n",
		"check failed: security\n",
		`security [client]: S7 (high): GitHub token "ghp_…(40)" at /params/arguments/sidenote`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
	first := strings.SplitN(out, "\n", 2)[0]
	if strings.Contains(first, "security") || !strings.HasSuffix(first, "missing_frames=0 schema_findings=0") {
		t.Errorf("counters line changed: %q", first)
	}

	var js bytes.Buffer
	if err := WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Sessions []struct {
			Counters map[string]int `json:"counters"`
			Security *struct {
				Rules []struct {
					Rule     string `json:"rule"`
					Findings int    `json:"findings"`
				} `json:"rules"`
			} `json:"security"`
		} `json:"sessions"`
		Findings []struct {
			RuleID   string `json:"rule_id"`
			Security *struct {
				Rule, Severity, Pointer, Cue string
			} `json:"security"`
		} `json:"findings"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	s := doc.Sessions[0]
	if s.Counters["security_findings"] != 11 || s.Security == nil || len(s.Security.Rules) != 8 {
		t.Errorf("counters %v, security %+v", s.Counters, s.Security)
	}
	details := 0
	for _, f := range doc.Findings {
		if strings.HasPrefix(f.RuleID, "mcpsnoop/security/") {
			if f.Security == nil || f.Security.Pointer == "" || f.Security.Cue == "" || "mcpsnoop/security/"+f.Security.Rule != f.RuleID {
				t.Errorf("%s: detail %+v", f.RuleID, f.Security)
			}
			details++
		}
	}
	if details != 11 {
		t.Errorf("%d security findings in the JSON report, want 11", details)
	}

	// Without the security rules: no block, no counter, no key.
	rep = checkSecurityFixture(t, checker.Config{})
	text.Reset()
	js.Reset()
	if err := WriteText(&text, rep, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text.String(), "security findings") || strings.Contains(js.String(), `"security_findings"`) || strings.Contains(js.String(), `"security":`) {
		t.Errorf("a check without the security rules mentions them:\n%s", text.String())
	}
}
