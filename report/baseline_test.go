package report

import (
	"bytes"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// The baseline lines say whether the first-seen baseline was written, and
// where to keep it; one held for a log from elsewhere names no folder.
func TestWriteBaseline(t *testing.T) {
	tests := []struct {
		name string
		b    checker.BaselineResult
		want string
	}{
		{"recorded", checker.BaselineResult{Checked: true, Created: true, Dir: "/s/tool-baselines"},
			"recorded first-seen tool baseline (trusted, not verified)\n"},
		{"recorded only", checker.BaselineResult{Checked: true, Created: true, RecordedOnly: true, Dir: "/s/tool-baselines"},
			"recorded first-seen tool baseline (trusted, not verified)\n" +
				"nothing was verified: keep /s/tool-baselines between runs (or point --baseline at a persisted folder) so the next check compares against it\n"},
		{"held", checker.BaselineResult{Checked: true, Created: true},
			"first-seen tool baseline held for this check only (trusted, not verified; not written: the log is not one of this machine's captures; --baseline DIR records it)\n"},
		{"held only", checker.BaselineResult{Checked: true, Created: true, RecordedOnly: true},
			"first-seen tool baseline held for this check only (trusted, not verified; not written: the log is not one of this machine's captures; --baseline DIR records it)\n" +
				"nothing was verified: check it with --baseline pointing at a persisted folder so the next check compares against it\n"},
		{"compared", checker.BaselineResult{Checked: true, Dir: "/s/tool-baselines"}, ""},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		writeBaseline(&buf, &checker.SessionReport{Baseline: tt.b})
		if buf.String() != tt.want {
			t.Errorf("%s:\n%s\nwant\n%s", tt.name, buf.String(), tt.want)
		}
	}
}
