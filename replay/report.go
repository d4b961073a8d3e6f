package replay

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/mcpsnoop/mcpsnoop/internal/termsafe"
)

// Verdicts of a verification.
const (
	VerdictPassed    = "passed"
	VerdictRegressed = "regressed"
	VerdictNothing   = "error" // nothing was verified
)

// Verdict is passed, regressed, or error when no call was verified.
func (v *Verification) Verdict() string {
	switch {
	case v.Verified() == 0:
		return VerdictNothing
	case v.Regressed():
		return VerdictRegressed
	}
	return VerdictPassed
}

// outcomeLabels name the outcomes in the text report.
var outcomeLabels = map[string]string{
	OutcomeSame: "same", OutcomeChanged: "changed", OutcomeErrorNow: "error now", OutcomeOKNow: "ok now",
	OutcomeTimeout: "timed out", OutcomeFailed: "failed", OutcomeNotOffered: "not offered", OutcomeNotReplayed: "not replayed",
}

// OutcomeLabel is how reports name an outcome ("error now").
func OutcomeLabel(o string) string { return outcomeLabels[o] }

// Subject names a call in one line: method, name and arguments.
func (c *CallVerdict) Subject() string {
	s := c.Method
	if c.Name != "" {
		s += " " + c.Name
	}
	if c.Arguments != "" {
		s += " " + c.Arguments
	}
	return s
}

// Summary is the report's last line: verify passed or failed, with counts.
func (v *Verification) Summary() string {
	var parts []string
	add := func(n int, what string) {
		if n > 0 {
			parts = append(parts, strconv.Itoa(n)+" "+what)
		}
	}
	slower := v.Slower()
	// A slower tool is always reported, and counted with the failures
	// only when it fails the verify.
	notGated := ""
	if slower > 0 && !v.FailOnSlower {
		notGated = "; not gated: " + strconv.Itoa(slower) + " slower"
	}
	if v.Regressed() {
		regressedTools := 0
		for _, t := range v.Tools {
			if t.Regression {
				regressedTools++
			}
		}
		add(v.changedAnswers(), "changed")
		add(v.Count(OutcomeErrorNow), "error now")
		add(v.Count(OutcomeTimeout), "timed out")
		add(v.Count(OutcomeFailed), "failed")
		if v.FailOnSlower {
			add(slower, "slower")
		}
		add(v.Count(OutcomeNotOffered), "not offered")
		add(regressedTools, plural(regressedTools, "tool change", "tool changes"))
		return "verify failed: " + strings.Join(parts, ", ") + notGated
	}
	add(v.Count(OutcomeSame), "same")
	add(v.Count(OutcomeOKNow), "ok now")
	add(v.Count(OutcomeNotReplayed), "not replayed")
	return "verify passed: " + strings.Join(parts, ", ") + notGated
}

// Slower is how many tools got slower.
func (v *Verification) Slower() int {
	n := 0
	for _, d := range v.Durations {
		if d.Slower {
			n++
		}
	}
	return n
}

// changedAnswers counts the calls whose answer changed; a changed
// tools/list is counted with the tools instead.
func (v *Verification) changedAnswers() int {
	n := 0
	for _, c := range v.Calls {
		if c.Outcome == OutcomeChanged && c.Method != "tools/list" {
			n++
		}
	}
	return n
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// WriteText writes the report scripts and people read: where the replay
// went, the tool listing's changes, one line per call (the differences
// under a changed one), the tools whose durations moved (medians), and
// the summary line. Text from the server is escaped for the terminal.
func (v *Verification) WriteText(w io.Writer) error {
	var b strings.Builder
	line := func(format string, args ...any) {
		b.WriteString(termsafe.Clean(fmt.Sprintf(format, args...), false))
		b.WriteByte('\n')
	}
	line("mcpsnoop verify %s (session %s) -> %s", v.Recording, v.SessionID, v.Target)
	if v.ReplaySessionID != "" {
		line("replay log: %s (session %s)", v.ReplayLog, v.ReplaySessionID)
	}
	if len(v.Tools) > 0 {
		b.WriteString("tools:\n")
		for _, t := range v.Tools {
			line("  %s: %s", t.Label, t.Tool)
		}
	}
	if len(v.Calls) > 0 {
		b.WriteString("calls:\n")
	}
	for _, c := range v.Calls {
		head := fmt.Sprintf("  %s: line %d %s", OutcomeLabel(c.Outcome), c.Line, c.Subject())
		switch c.Outcome {
		case OutcomeErrorNow, OutcomeOKNow, OutcomeTimeout, OutcomeFailed:
			head += fmt.Sprintf(" (%s -> %s)", c.Before, c.After)
		}
		if c.Reason != "" {
			head += ": " + c.Reason
		}
		line("%s", head)
		for _, ch := range c.Changes {
			line("      %s", ch)
		}
		if more := c.ChangesTotal - len(c.Changes); more > 0 {
			line("      ... and %d more", more)
		}
	}
	if len(v.Durations) > 0 {
		head := "durations (median per tool):"
		if v.Slower() > 0 && !v.FailOnSlower {
			head = "durations (median per tool; slower is reported, --fail-on-slower fails on it):"
		}
		line("%s", head)
	}
	for _, d := range v.Durations {
		word := "faster"
		if d.Slower {
			word = "slower"
		}
		line("  %s: %s %s -> %s (%d %s)", word, d.Subject(), msText(&d.BeforeMS), msText(&d.AfterMS), d.Calls, plural(d.Calls, "call", "calls"))
	}
	for _, d := range v.Declined {
		line("declined: %s", d)
	}
	for _, n := range v.Notes {
		line("note: %s", n)
	}
	if v.Stopped != "" {
		line("replay stopped: %s", v.Stopped)
	}
	line("%s", v.Summary())
	_, err := io.WriteString(w, b.String())
	return err
}

func msText(v *float64) string {
	if v == nil {
		return "-"
	}
	return time.Duration(*v * float64(time.Millisecond)).Round(time.Microsecond).String()
}

// jsonReport is the JSON form: the verification with its verdict and
// counts.
type jsonReport struct {
	Version  int            `json:"version"`
	Verdict  string         `json:"verdict"`
	Counts   map[string]int `json:"counts"`
	Verified int            `json:"verified"`
	*Verification
}

// WriteJSON writes the verification as one indented JSON document.
func (v *Verification) WriteJSON(w io.Writer) error {
	counts := map[string]int{"slower": v.Slower()}
	for o := range outcomeLabels {
		counts[o] = v.Count(o)
	}
	out, err := json.MarshalIndent(jsonReport{Version: 1, Verdict: v.Verdict(), Counts: counts, Verified: v.Verified(), Verification: v}, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(out, '\n'))
	return err
}
