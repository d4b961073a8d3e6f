package replay

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/diff"
)

// A tool is slower when the median of its replayed calls exceeds the
// median of its recorded ones by both the threshold and the ratio; it
// fails the verify only with FailOnSlower, and is reported either way.
func TestJudgeDurations(t *testing.T) {
	type call struct {
		method, name  string
		before, after float64 // ms; -1 for none
		outcome       string
	}
	c := func(name string, before, after float64) call {
		return call{"tools/call", name, before, after, OutcomeSame}
	}
	tests := []struct {
		name   string
		calls  []call
		gate   bool
		want   []string // method name: before -> after slower|faster
		slower []string // calls (by index) marked slower
		regr   []int    // calls that regressed
	}{
		{"one call of five held up is no slower tool",
			[]call{c("echo", 23, 22), c("echo", 23, 138), c("echo", 24, 25), c("echo", 22, 23), c("echo", 23, 24)}, true, nil, nil, nil},
		{"every call slower",
			[]call{c("echo", 10, 400), c("echo", 12, 390), c("other", 10, 11)}, true,
			[]string{"tools/call echo: 11 -> 395 slower"}, []string{"echo", "echo"}, []int{0, 1}},
		{"not gated: reported, no regression",
			[]call{c("echo", 10, 400), c("echo", 12, 390)}, false,
			[]string{"tools/call echo: 11 -> 395 slower"}, []string{"echo", "echo"}, nil},
		{"the median of an odd count is the middle call",
			[]call{c("echo", 10, 10), c("echo", 10, 500), c("echo", 10, 600)}, true,
			[]string{"tools/call echo: 10 -> 500 slower"}, []string{"echo", "echo", "echo"}, []int{0, 1, 2}},
		{"past the threshold but not the ratio",
			[]call{c("echo", 1000, 1500)}, true, nil, nil, nil},
		{"past the ratio but not the threshold",
			[]call{c("echo", 1, 90)}, true, nil, nil, nil},
		{"faster is reported, never a regression",
			[]call{c("echo", 900, 100)}, true, []string{"tools/call echo: 900 -> 100 faster"}, nil, nil},
		{"tools apart, by method and name",
			[]call{{"resources/read", "file:///a", 1, 300, OutcomeSame}, {"prompts/get", "file:///a", 1, 2, OutcomeSame}}, true,
			[]string{"resources/read file:///a: 1 -> 300 slower"}, []string{"file:///a"}, []int{0}},
		{"server/discover, calls not replayed and calls without an answer are not timed",
			[]call{{"server/discover", "", 1, 900, OutcomeSame}, {"tools/call", "x", 1, 900, OutcomeNotReplayed},
				{"tools/call", "y", 1, -1, OutcomeTimeout}}, true, nil, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls []CallVerdict
			for _, x := range tt.calls {
				cv := CallVerdict{Method: x.method, Name: x.name, Outcome: x.outcome}
				if x.before >= 0 {
					cv.BeforeMS = &x.before
				}
				if x.after >= 0 {
					cv.AfterMS = &x.after
				}
				calls = append(calls, cv)
			}
			o := VerifyOptions{Durations: diff.Options{Threshold: 100 * time.Millisecond, Ratio: 2}, FailOnSlower: tt.gate}
			var got []string
			for _, d := range judgeDurations(calls, o) {
				word := "faster"
				if d.Slower {
					word = "slower"
				}
				got = append(got, d.Subject()+": "+ftoa(d.BeforeMS)+" -> "+ftoa(d.AfterMS)+" "+word)
				if d.Regression != (d.Slower && tt.gate) {
					t.Errorf("%s: regression %v", d.Subject(), d.Regression)
				}
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("durations %q, want %q", got, tt.want)
			}
			var slower []string
			var regr []int
			for i, c := range calls {
				if c.Slower {
					slower = append(slower, c.Name)
				}
				if c.Regression {
					regr = append(regr, i)
				}
			}
			if strings.Join(slower, "|") != strings.Join(tt.slower, "|") || fmt.Sprint(regr) != fmt.Sprint(tt.regr) {
				t.Errorf("slower calls %q, regressed %v; want %q, %v", slower, regr, tt.slower, tt.regr)
			}
		})
	}
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// A build whose tool now takes two seconds (a server-side delay, recorded
// without it) passes by default, with the slower tool reported, and fails
// with FailOnSlower. The delay is far past diff's thresholds (100ms, 2x)
// from a call recorded in milliseconds.
func TestVerifySlowerBuild(t *testing.T) {
	_, v1, _ := programs(t)
	rec := load(t, record(t, v1, "2025-11-25", everyTool))
	t.Setenv("REPLAYSERVER_DELAY", "echo=2s")
	res, v := replayJudged(t, rec, []string{v1}, Options{}, VerifyOptions{})
	var b bytes.Buffer
	_ = v.WriteText(&b)
	if v.Regressed() || v.Verdict() != VerdictPassed || v.Slower() != 1 || len(v.Durations) != 1 ||
		v.Durations[0].Name != "echo" || !v.Durations[0].Slower || v.Durations[0].AfterMS < 2000 {
		t.Fatalf("by default:\n%s", b.String())
	}
	for _, want := range []string{"  slower: tools/call echo ", "verify passed: 7 same, 1 not replayed; not gated: 1 slower\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the text report lacks %q:\n%s", want, b.String())
		}
	}
	v, err := Verify(rec, res, VerifyOptions{FailOnSlower: true})
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	_ = v.WriteText(&b)
	if echo := verdicts(v)["echo"]; !v.Regressed() || !echo.Slower || !echo.Regression || echo.Outcome != OutcomeSame ||
		!strings.HasSuffix(b.String(), "verify failed: 1 slower\n") {
		t.Errorf("with FailOnSlower: %+v\n%s", echo, b.String())
	}
}
