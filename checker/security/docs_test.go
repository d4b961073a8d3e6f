package security

import (
	"os"
	"strings"
	"testing"
)

// TestDocsComplete: docs/reference/security.md has a section and a table
// row for every rule, with its severity, score and CWE, and quotes its
// example finding.
func TestDocsComplete(t *testing.T) {
	b, err := os.ReadFile("../../docs/reference/security.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, r := range Rules {
		cwe := r.CWE
		if cwe == "" {
			cwe = "–"
		}
		row := "| [" + r.ID + "](#" + strings.ToLower(r.ID) + ") | " + r.Severity + " | " + r.Score + " | " + cwe + " | "
		for _, want := range []string{"\n### " + r.ID + "\n", row, "\n" + r.Example + "\n"} {
			if !strings.Contains(doc, want) {
				t.Errorf("%s: the page lacks %q", r.ID, want)
			}
		}
	}
}
