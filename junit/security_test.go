package junit

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// A session's security testcase exists only when the security rules ran,
// and fails when security is gated and counted.
func TestSecurityTestcase(t *testing.T) {
	s := session("s1", checker.Counters{SecurityFindings: 3})
	for _, tt := range []struct {
		ran    bool
		failOn []checker.Signal
		want   string // the security testcase, "" for none
	}{
		{false, checker.DefaultFailOn, ""},
		{true, checker.DefaultFailOn, `<testcase classname="mcpsnoop.check" name="s1/security" time="0"></testcase>`},
		{true, []checker.Signal{checker.SignalSecurity}, `<testcase classname="mcpsnoop.check" name="s1/security" time="0">` + "\n" +
			`      <failure message="session s1 has 3 security findings" type="mcpsnoop.check.security">session s1 has 3 security findings</failure>`},
	} {
		var buf bytes.Buffer
		rep := gate(&checker.Report{Verdict: checker.Passed, FailOn: tt.failOn, Security: tt.ran, Sessions: []*checker.SessionReport{s}})
		if err := Write(&buf, rep, Options{}); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		cases := strings.Count(out, "<testcase ")
		if tt.want == "" {
			if strings.Contains(out, "s1/security") || cases != 11 {
				t.Errorf("without the rules: %d testcases\n%s", cases, out)
			}
			continue
		}
		if !strings.Contains(out, tt.want) || cases != 12 {
			t.Errorf("ran, fail-on %v: %d testcases, want the security case\n%s\nin\n%s", tt.failOn, cases, tt.want, out)
		}
	}
}
