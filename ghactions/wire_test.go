package ghactions

import (
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// The job summary's counters table has a wire column only when frames
// were validated.
func TestSummaryWireColumn(t *testing.T) {
	rep := report(t.TempDir())
	if out := Summary(rep, Options{}); strings.Contains(out, "| wire |") {
		t.Errorf("wire column without validation:\n%s", out)
	}
	rep.Wire = true
	for _, s := range rep.Sessions {
		s.Wire = &checker.WireSummary{Validated: 3}
		s.Counters.WireFindings = 2
	}
	out := Summary(rep, Options{})
	if !strings.Contains(out, "| schema | wire |") || !strings.Contains(out, "| 0 | 2 |") {
		t.Errorf("no wire column with validation:\n%s", out)
	}
}
