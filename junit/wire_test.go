package junit

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// A session's wire testcase exists only when frames were validated, and
// fails when wire is gated and counted.
func TestWireTestcase(t *testing.T) {
	s := session("s1", checker.Counters{WireFindings: 2})
	for _, tt := range []struct {
		validated bool
		failOn    []checker.Signal
		want      string // the wire testcase, "" for none
	}{
		{false, checker.DefaultFailOn, ""},
		{true, checker.DefaultFailOn, `<testcase classname="mcpsnoop.check" name="s1/wire" time="0"></testcase>`},
		{true, []checker.Signal{checker.SignalWire}, `<testcase classname="mcpsnoop.check" name="s1/wire" time="0">` + "\n" +
			`      <failure message="session s1 has 2 frames breaking the schema" type="mcpsnoop.check.wire">session s1 has 2 frames breaking the schema</failure>`},
	} {
		var buf bytes.Buffer
		rep := gate(&checker.Report{Verdict: checker.Passed, FailOn: tt.failOn, Wire: tt.validated, Sessions: []*checker.SessionReport{s}})
		if err := Write(&buf, rep, Options{}); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		cases := strings.Count(out, "<testcase ")
		if tt.want == "" {
			if strings.Contains(out, "s1/wire") || cases != 11 {
				t.Errorf("without validation: %d testcases\n%s", cases, out)
			}
			continue
		}
		if !strings.Contains(out, tt.want) || cases != 12 {
			t.Errorf("validated, fail-on %v: %d testcases, want the wire case\n%s\nin\n%s", tt.failOn, cases, tt.want, out)
		}
	}
}
