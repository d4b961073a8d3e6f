package sarif

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

func TestCap(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rep   *checker.Report
		check func(*testing.T, *logDoc)
	}{
		{
			// Exactly 5,000 is not capped.
			name: "5000 kept",
			rep:  capReport(4990, 10),
			check: func(t *testing.T, doc *logDoc) {
				res := doc.Runs[0].Results
				if len(res) != 5000 || res[len(res)-1].RuleID == RuleReportTruncated {
					t.Errorf("%d results, last %s: want 5000 and no truncation", len(res), res[len(res)-1].RuleID)
				}
				// Not capped: report order is kept, the note first.
				if res[0].Level != "note" {
					t.Errorf("first result is %s, want the note in report order", res[0].Level)
				}
			},
		},
		{
			name:  "5001 capped",
			rep:   capReport(4991, 10),
			check: checkCap(4991, 1, 8, 5001, 2),
		},
		{
			name:  "notes only",
			rep:   capReport(0, 6000),
			check: checkCap(0, 1, 4999, 6000, 1001),
		},
		{
			// The engine keeps at most 10,000 findings; the total counts
			// them all.
			name: "engine truncated too",
			rep: func() *checker.Report {
				r := capReport(6000, 4000)
				r.FindingsTotal, r.FindingsTruncated = 25000, 15000
				return r
			}(),
			check: checkCap(4999, 1, 0, 25000, 20001),
		},
		{
			// Few kept but more found: every kept one is shown and the
			// rest are accounted for.
			name: "engine dropped some under the cap",
			rep: func() *checker.Report {
				r := capReport(3, 2)
				r.FindingsTotal, r.FindingsTruncated = 9, 4
				return r
			}(),
			check: checkCap(3, 1, 2, 9, 4),
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, tc.rep, Options{WorkDir: repo}); err != nil {
				t.Fatal(err)
			}
			tc.check(t, checkInvariants(t, buf.Bytes()))
		})
	}
}

// TestCapStdin: with nothing to point at, the truncation result has no
// location either.
func TestCapStdin(t *testing.T) {
	rep := capReport(5001, 0)
	for i := range rep.Findings {
		rep.Findings[i].Path = ""
	}
	var buf bytes.Buffer
	if err := Write(&buf, rep, Options{WorkDir: repo}); err != nil {
		t.Fatal(err)
	}
	doc := checkInvariants(t, buf.Bytes())
	checkCap(4999, 1, 0, 5001, 2)(t, doc)
	if last := doc.Runs[0].Results[len(doc.Runs[0].Results)-1]; last.Locations != nil {
		t.Errorf("truncation result has locations %s", last.Locations)
	}
}

// TestSchemaCatches makes sure the schema check can fail: the go-sarif
// pitfalls it guards against are rejected.
func TestSchemaCatches(t *testing.T) {
	sch := compileSchema(t)
	var buf bytes.Buffer
	if err := Write(&buf, findingsReport(signalFindings(s1Log)...), Options{WorkDir: repo}); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	for name, bad := range map[string]string{
		"null shortDescription": strings.Replace(good, `"shortDescription": {
                "text": "A call ended in an error"
              }`, `"shortDescription": null`, 1),
		"startLine 0":   strings.Replace(good, `"startLine": 2`, `"startLine": 0`, 1),
		"unknown level": strings.Replace(good, `"level": "error"`, `"level": "fatal"`, 1),
		"backslash uri": strings.Replace(good, `"uri": "logs/s1.jsonl"`, `"uri": "logs\\s1.jsonl"`, 1),
	} {
		t.Run(name, func(t *testing.T) {
			if bad == good {
				t.Fatal("mutation did not apply")
			}
			if err := validate(sch, []byte(bad)); err == nil {
				t.Error("schema accepted it")
			}
		})
	}
}
