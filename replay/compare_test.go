package replay

import "testing"

// Every report (text, JUnit, SARIF, the viewer's page) writes a change the
// one way: path, the recorded value, the new one, (absent) for a side
// without the member.
func TestChangeString(t *testing.T) {
	for _, tt := range []struct {
		c    Change
		want string
	}{
		{Change{Path: "$.result.content[0].text", Before: `"5"`, After: `"6"`}, `$.result.content[0].text: "5" -> "6"`},
		{Change{Path: "$.result.isError", After: "true"}, "$.result.isError: (absent) -> true"},
		{Change{Path: "$.result.structuredContent", Before: "{}"}, "$.result.structuredContent: {} -> (absent)"},
	} {
		if got := tt.c.String(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.c, got, tt.want)
		}
	}
}
