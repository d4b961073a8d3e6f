package sarif

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// findingsReport wraps findings in a report the way the engine would.
func findingsReport(fs ...checker.Finding) *checker.Report {
	v := checker.Passed
	for _, f := range fs {
		if f.Level == checker.LevelError {
			v = checker.Failed
		}
	}
	return &checker.Report{
		Verdict:       v,
		FailOn:        checker.DefaultFailOn,
		Findings:      fs,
		FindingsTotal: len(fs),
	}
}

// finding is a signal finding with a fingerprint derived from its message.
func finding(sig checker.Signal, level checker.Level, path string, seq uint64, line int, msg string) checker.Finding {
	sum := sha256.Sum256([]byte(msg))
	return checker.Finding{
		Signal: sig, RuleID: sig.RuleID(), Level: level,
		SessionID: "s1", Seq: seq, Path: path, Line: line,
		Message: msg, Fingerprint: hex.EncodeToString(sum[:8]),
	}
}

// signalFindings is one session's findings in report order: frame findings
// first, then session-wide ones (drift and schema at the last tools/list,
// incomplete and the assertion with no region).
func signalFindings(path string) []checker.Finding {
	assertion := finding("", checker.LevelError, path, 0, 0, `session s1: forbidden tool "echo" was called`)
	assertion.RuleID = checker.RuleAssertion
	noPrint := finding(checker.SignalDrift, checker.LevelNote, path, 0, 0, "session s1: recorded first-seen tool baseline (trusted, not verified)")
	noPrint.Fingerprint = "" // a finding without one gets no partialFingerprints
	return []checker.Finding{
		finding(checker.SignalError, checker.LevelError, path, 2, 2, `session s1 frame 2: tools/call echo (id "a") ended in an error: boom (code -32603)`),
		finding(checker.SignalInvalid, checker.LevelError, path, 3, 3, "session s1 frame 3: frame on the protocol channel is not valid JSON-RPC"),
		finding(checker.SignalPending, checker.LevelNote, path, 4, 4, "session s1 frame 4: tools/call hang (id 2) never got a response"),
		finding(checker.SignalDeprecated, checker.LevelNote, path, 5, 5, "session s1 frame 5: logging notifications/message is deprecated (2026-07-28); use stderr for stdio or OpenTelemetry instead"),
		finding(checker.SignalWarn, checker.LevelError, path, 6, 7, "session s1 frame 6: result of tools/call lacks resultType"),
		finding(checker.SignalMismatch, checker.LevelNote, path, 8, 9, "session s1 frame 8: routing header mismatch: Mcp-Name \"a\" != body name \"b\""),
		finding(checker.SignalLateResult, checker.LevelNote, path, 9, 10, "session s1 frame 9: tools/call slow (id 3) was answered after it was cancelled: result arrived 1.25s after cancellation"),
		noPrint,
		finding(checker.SignalDrift, checker.LevelNote, path, 0, 11, `session s1: tool "a" description changed`),
		finding(checker.SignalSchema, checker.LevelNote, path, 0, 11, `session s1: tool "pick" schema uses oneOf`),
		finding(checker.SignalIncomplete, checker.LevelNote, path, 0, 0, "session s1 has 2 dropped frames"),
		assertion,
	}
}

// capReport has errors invalid frames, then notes pending calls.
func capReport(errors, notes int) *checker.Report {
	var fs []checker.Finding
	for i := 1; i <= errors+notes; i++ {
		sig, level := checker.SignalInvalid, checker.LevelError
		msg := fmt.Sprintf("session s1 frame %d: frame on the protocol channel is not valid JSON-RPC", i)
		if i > errors {
			sig, level = checker.SignalPending, checker.LevelNote
			msg = fmt.Sprintf("session s1 frame %d: tools/call hang (id %d) never got a response", i, i)
		}
		fs = append(fs, finding(sig, level, s1Log, uint64(i), i, msg))
	}
	// Notes first in report order would be kept last: interleave one early.
	if errors > 0 && notes > 0 {
		fs[0], fs[errors] = fs[errors], fs[0]
	}
	return findingsReport(fs...)
}

// checkCap checks a capped run: the level counts, then the truncation
// result last, with the message of check.md 8.5.
func checkCap(errors, warnings, notes, found, dropped int) func(*testing.T, *logDoc) {
	return func(t *testing.T, doc *logDoc) {
		t.Helper()
		res := doc.Runs[0].Results
		if len(res) != errors+warnings+notes {
			t.Fatalf("%d results, want %d", len(res), errors+warnings+notes)
		}
		count := map[string]int{}
		for i, r := range res {
			count[r.Level]++
			// Severity order: every error before every note.
			if i > 0 && rank(res[i-1].Level) > rank(r.Level) && r.RuleID != RuleReportTruncated {
				t.Fatalf("result %d (%s) follows a %s", i, r.Level, res[i-1].Level)
			}
		}
		want := map[string]int{"error": errors, "warning": warnings, "note": notes}
		for level, n := range want {
			if count[level] != n {
				t.Errorf("%d %s results, want %d", count[level], level, n)
			}
		}
		last := res[len(res)-1]
		msg := fmt.Sprintf("the capture holds %d findings, more than a code-scanning upload accepts in one run, so %d of them were left out of this report; the text and junit formats report all of them", found, dropped)
		if last.RuleID != RuleReportTruncated || last.RuleIndex != 11 || last.Level != "warning" || last.Message.Text != msg {
			t.Errorf("last result = %s #%d %s %q, want the truncation warning %q", last.RuleID, last.RuleIndex, last.Level, last.Message.Text, msg)
		}
		if last.PartialFingerprints[FingerprintKey] != truncationFingerprint || len(truncationFingerprint) != 16 {
			t.Errorf("truncation fingerprint = %v", last.PartialFingerprints)
		}
		if len(last.Locations) > 0 && string(last.Locations) != "null" && containsRegion(last.Locations) {
			t.Errorf("truncation result has a region: %s", last.Locations)
		}
	}
}

func rank(level string) int {
	for i, l := range levelOrder {
		if l == level {
			return i
		}
	}
	return len(levelOrder)
}
