package checker_test

import (
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// What a log says of its own end: a seq that jumps further than any
// capture loses is no count (missing_frames does not take it, and the
// finding says the loss is unknown), and a log whose first frame says it
// had no room for a closing frame, and has none, may have lost frames at
// its end that nothing counts.
func TestLogEnds(t *testing.T) {
	const unreservedMeta = `{"session_id":"s","seq":1,"direction":"meta","transport":"stdio","raw":{"command":["srv"]},"unreserved":true}` + "\n"
	tests := []struct {
		name     string
		log      string
		missing  int
		findings []string
	}{
		{
			name:    "a jump to 2^63",
			log:     logOf("s", "1 c2s 0 "+call1, "2 s2c 1 "+ok1) + stderrAt("9223372036854775808"),
			missing: 0,
			findings: []string{"note mcpsnoop/incomplete session s has 0 dropped frames; " +
				"seq jumped from 2 to 9223372036854775808: an unknown number of frames lost"},
		},
		{
			name:    "a gap, then a jump: the gap is counted, the jump is not",
			log:     logOf("s", "1 c2s 0 "+call1, "5 s2c 1 "+ok1) + stderrAt("9223372036854775808") + stderrAt("18446744073709551615"),
			missing: 3,
			findings: []string{"note mcpsnoop/incomplete session s has 3 dropped frames; " +
				"seq jumped from 5 to 9223372036854775808: an unknown number of frames lost"},
		},
		{
			name:     "a wide gap a capture could have lost is counted",
			log:      logOf("s", "1 c2s 0 "+call1, "2147483650 s2c 1 "+ok1),
			missing:  1<<31 - 1,
			findings: []string{"note mcpsnoop/incomplete session s has 2147483647 dropped frames"},
		},
		{
			name:    "unreserved, and no closing frame",
			log:     unreservedMeta + logOf("s", "2 c2s 0 "+call1, "3 s2c 1 "+ok1),
			missing: 0,
			findings: []string{"note mcpsnoop/incomplete session s has 0 dropped frames; its log could not set room aside " +
				"for a closing frame when it opened (the disk was nearly full), and has none: frames lost at its end would not be counted"},
		},
		{
			name: "unreserved, and a closing frame after all",
			log: unreservedMeta + logOf("s", "2 c2s 0 "+call1, "3 s2c 1 "+ok1) +
				`{"session_id":"s","seq":7,"direction":"meta","transport":"stdio","last_seq":6,"dropped":3}` + "\n",
			missing:  3,
			findings: []string{"note mcpsnoop/incomplete session s has 3 dropped frames"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := check(t, checker.Config{}, tt.log)
			if got := rep.Sessions[0].Counters.MissingFrames; got != tt.missing {
				t.Errorf("missing_frames = %d, want %d", got, tt.missing)
			}
			if got := messages(rep); strings.Join(got, "\n") != strings.Join(tt.findings, "\n") {
				t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.findings, "\n"))
			}
		})
	}
}

// stderrAt is a stderr frame of session s with seq (decimal, up to 2^64-1).
func stderrAt(seq string) string {
	return `{"session_id":"s","server_label":"srv","seq":` + seq + `,"direction":"stderr","transport":"stdio","text":"x"}` + "\n"
}
