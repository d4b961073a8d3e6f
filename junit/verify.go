package junit

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/jstemmer/go-junit-report/v2/junit"
	"github.com/mcpsnoop/mcpsnoop/replay"
)

// Names of the verify document.
const (
	verifySuitesName = "mcpsnoop verify"
	verifyClassname  = "mcpsnoop.verify"
	verifyType       = "mcpsnoop.verify." // + outcome
)

// WriteVerify writes a verification (`mcpsnoop verify --format junit`) as
// one testsuite for the recorded session: a testcase per recorded call,
// named after its line, method and tool, failing on a regression and
// skipped (with the reason) when the call was not replayed; its time is
// the replay's duration. A changed tool listing fails the tools/list
// call's case. It goes through the same encoder as check's report.
func WriteVerify(w io.Writer, v *replay.Verification) error {
	if v == nil {
		return errors.New("junit: nil verification")
	}
	doc := junit.Testsuites{Name: verifySuitesName, Time: zeroTime}
	suite := junit.Testsuite{Name: v.SessionID, Time: zeroTime}
	suite.AddProperty("mcpsnoop.recording", v.Recording)
	suite.AddProperty("mcpsnoop.target", v.Target)
	if v.ReplaySessionID != "" {
		suite.AddProperty("mcpsnoop.replay", v.ReplaySessionID)
	}
	for i := range v.Calls {
		suite.AddTestcase(callCase(v.SessionID, &v.Calls[i]))
	}
	doc.AddSuite(suite)
	return encode(w, &doc)
}

func callCase(sid string, c *replay.CallVerdict) junit.Testcase {
	name := fmt.Sprintf("%s/line %d %s", sid, c.Line, c.Method)
	if c.Name != "" {
		name += " " + c.Name
	}
	tc := junit.Testcase{Classname: verifyClassname, Name: name, Time: zeroTime}
	if c.AfterMS != nil {
		tc.Time = strconv.FormatFloat(*c.AfterMS/1000, 'f', 3, 64)
	}
	switch {
	case !c.Replayed() && !c.Regression:
		tc.Skipped = &junit.Result{Message: "not replayed: " + c.Reason}
	case c.Regression:
		msg := callFailure(c)
		kind := c.Outcome
		if kind == replay.OutcomeSame && c.Slower {
			kind = "slower"
		}
		tc.Failure = &junit.Result{Message: msg, Type: verifyType + kind, Data: callDetail(c, msg)}
	}
	return tc
}

// callFailure is the one-line reason a call's case fails.
func callFailure(c *replay.CallVerdict) string {
	var parts []string
	if c.Outcome != replay.OutcomeSame {
		what := replay.OutcomeLabel(c.Outcome)
		switch c.Outcome {
		case replay.OutcomeErrorNow, replay.OutcomeTimeout:
			what += fmt.Sprintf(" (%s -> %s)", c.Before, c.After)
		}
		parts = append(parts, what)
	}
	if c.Slower {
		parts = append(parts, fmt.Sprintf("slower (%s -> %s)", durationText(c.BeforeMS), durationText(c.AfterMS)))
	}
	msg := c.Subject() + ": " + strings.Join(parts, ", ")
	if c.Reason != "" {
		msg += ": " + c.Reason
	}
	return msg
}

// callDetail is the failure's text: the message and every change listed.
func callDetail(c *replay.CallVerdict, msg string) string {
	var b strings.Builder
	b.WriteString(msg)
	for _, ch := range c.Changes {
		fmt.Fprintf(&b, "\n%s: %s -> %s", ch.Path, orAbsent(ch.Before), orAbsent(ch.After))
	}
	if more := c.ChangesTotal - len(c.Changes); more > 0 {
		fmt.Fprintf(&b, "\n... and %d more", more)
	}
	return b.String()
}

func orAbsent(s string) string {
	if s == "" {
		return "(absent)"
	}
	return s
}

func durationText(ms *float64) string {
	if ms == nil {
		return "-"
	}
	return strconv.FormatFloat(*ms, 'f', 1, 64) + "ms"
}
