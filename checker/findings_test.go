package checker_test

import (
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// TestFindingsReportOrder checks report order (check.md 8.2): session by
// session in first-seen order; within a session frame by frame in log order,
// and on one frame error, invalid, warn, late-result, pending; pending
// findings sit at their request's frame; then incomplete, then assertions.
func TestFindingsReportOrder(t *testing.T) {
	lines := []string{
		logOf("a", "1 c2s 0 "+toolCall("1", "echo", "")),
		logOf("a", "2 s2c 10 not json"),
		logOf("a", "3 s2c 20 "+rpcError("9", -32000, "who?")),
		logOf("b", "1 c2s 25 "+toolCall("1", "echo", "")),
		logOf("a", `5 c2s 30 {"jsonrpc":"2.0","id":true,"method":"ping"}`), // seq 4 lost
		logOf("b", "2 c2s 35 "+cancelNote("1")),
		logOf("b", "3 s2c 40 "+rpcError("1", -32800, "cancelled")),
		logOf("b", "4 s2c 45 [1]"),
	}
	log := strings.Join(lines, "")
	rep := check(t, checker.Config{ExpectTools: []string{"never"}}, log)
	sameLines(t, "findings", messages(rep), []string{
		"note mcpsnoop/pending session a line 1: tools/call echo (id 1) never got a response",
		"error mcpsnoop/invalid session a line 2: frame on the protocol channel is not valid JSON-RPC",
		"error mcpsnoop/error session a line 3: error response could not be matched to a call: response id has no matching request",
		"error mcpsnoop/warn session a line 3: response id has no matching request",
		"error mcpsnoop/warn session a line 5: request id has type boolean; MCP requires a string or integer id",
		"note mcpsnoop/pending session a line 5: ping (id true) never got a response",
		"note mcpsnoop/incomplete session a has 1 dropped frame",
		`error mcpsnoop/assertion session a: expected tool "never" was never called`,
		"error mcpsnoop/error session b line 7: tools/call echo (id 1) ended in an error: cancelled (code -32800)",
		"note mcpsnoop/late-result session b line 7: tools/call echo (id 1) was answered after it was cancelled: result arrived 5ms after cancellation",
		"error mcpsnoop/invalid session b line 8: frame on the protocol channel is not valid JSON-RPC",
		`error mcpsnoop/assertion session b: expected tool "never" was never called`,
	})
	// Frame findings carry the frame's seq and log line; session-wide ones
	// carry neither.
	wantAt := []struct {
		seq  uint64
		line int
	}{{1, 1}, {2, 2}, {3, 3}, {3, 3}, {5, 5}, {5, 5}, {0, 0}, {0, 0}, {3, 7}, {3, 7}, {4, 8}, {0, 0}}
	if len(rep.Findings) == len(wantAt) {
		for i, f := range rep.Findings {
			if f.Seq != wantAt[i].seq || f.Line != wantAt[i].line {
				t.Errorf("finding %d (%s) at seq %d line %d, want seq %d line %d", i, f.Message, f.Seq, f.Line, wantAt[i].seq, wantAt[i].line)
			}
		}
	}
	if rep.FindingsTotal != len(rep.Findings) || rep.FindingsTruncated != 0 {
		t.Errorf("total %d truncated %d, want %d and 0", rep.FindingsTotal, rep.FindingsTruncated, len(rep.Findings))
	}
}

// TestFindingsOrderFollowsLogNotSeq: frames are walked in the order they were
// read, so a reordered seq does not move its findings.
func TestFindingsOrderFollowsLogNotSeq(t *testing.T) {
	rep := check(t, checker.Config{}, logOf("s", "2 s2c 0 first", "1 s2c 1 second"))
	sameLines(t, "findings", messages(rep), []string{
		"error mcpsnoop/invalid session s line 1: frame on the protocol channel is not valid JSON-RPC", // seq 2
		"error mcpsnoop/invalid session s line 2: frame on the protocol channel is not valid JSON-RPC", // seq 1
		"note mcpsnoop/incomplete session s has 1 dropped frame",                                       // seq 1 was not there when seq 2 came
	})
}

// TestAssertionFindingsOrder: a session's assertion failures are reported in
// evaluation order (check.md 5: max-duration, each --expect-tool in order,
// each --forbid-tool in order; 8.2 item 7).
func TestAssertionFindingsOrder(t *testing.T) {
	tests := []struct {
		name   string
		cfg    checker.Config
		frames []string
		want   []string
	}{
		{
			name:   "alone",
			cfg:    checker.Config{ExpectTools: []string{"x"}, ForbidTools: []string{"echo"}},
			frames: []string{"1 c2s 0 " + call1},
			want: []string{
				`expected tool "x" was never called`,
				`forbidden tool "echo" was called`,
			},
		},
		{
			name:   "after other findings",
			cfg:    checker.Config{ExpectTools: []string{"x"}, ForbidTools: []string{"echo"}},
			frames: []string{"1 c2s 0 " + call1, "2 c2s 1 " + call1},
			want: []string{
				`expected tool "x" was never called`,
				`forbidden tool "echo" was called`,
			},
		},
		{
			name:   "many",
			cfg:    checker.Config{ExpectTools: []string{"e1", "e2", "e3"}, ForbidTools: []string{"echo", "other"}},
			frames: []string{"1 c2s 0 " + call1, "2 s2c 1 x", "3 c2s 2 " + call1, "4 c2s 3 " + toolCall("5", "other", "")},
			want: []string{
				`expected tool "e1" was never called`,
				`expected tool "e2" was never called`,
				`expected tool "e3" was never called`,
				`forbidden tool "echo" was called`,
				`forbidden tool "other" was called`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := check(t, tt.cfg, logOf("s", tt.frames...))
			var got []string
			for _, f := range rep.Findings {
				if f.RuleID == checker.RuleAssertion {
					got = append(got, strings.TrimPrefix(f.Message, "session s: "))
				}
			}
			sameLines(t, "assertion findings", got, tt.want)
		})
	}
}

// TestFindingsCap checks Config.MaxFindings (interfaces.md: findings keeps at
// most N entries, findings_truncated the rest; report.go: the kept ones are
// the most severe, errors before notes, earliest first, in report order).
func TestFindingsCap(t *testing.T) {
	pendingNote := func(sid string, seq int, id string) string {
		return "note mcpsnoop/pending session " + sid + " line " + strconv.Itoa(seq) + ": tools/call echo (id " + id + ") never got a response"
	}
	invalid := func(sid string, seq int) string {
		return "error mcpsnoop/invalid session " + sid + " line " + strconv.Itoa(seq) + ": frame on the protocol channel is not valid JSON-RPC"
	}
	tests := []struct {
		name      string
		cfg       checker.Config
		log       string
		want      []string
		total     int
		truncated int
	}{
		{
			name: "more errors than room: the earliest errors, no notes",
			cfg:  checker.Config{MaxFindings: 5},
			log: logOf("s1", "1 c2s 0 "+toolCall("1", "echo", ""), "2 s2c 1 junk", "3 c2s 2 "+toolCall("2", "echo", ""), "4 s2c 3 junk", "5 s2c 4 junk") +
				logOf("s2", "1 s2c 5 junk", "2 s2c 6 junk", "3 c2s 7 "+toolCall("1", "echo", ""), "4 s2c 8 junk"),
			want:      []string{invalid("s1", 2), invalid("s1", 4), invalid("s1", 5), invalid("s2", 6), invalid("s2", 7)}, // their log lines,
			total:     9,
			truncated: 4,
		},
		{
			name: "fewer errors than room: every error, then the earliest notes, all in report order",
			cfg:  checker.Config{MaxFindings: 5},
			log: logOf("s",
				"1 c2s 0 "+toolCall("1", "echo", ""),
				"2 c2s 1 "+toolCall("2", "echo", ""),
				"3 s2c 2 junk",
				"4 c2s 3 "+toolCall("4", "echo", ""),
				"5 c2s 4 "+toolCall("5", "echo", ""),
				"6 s2c 5 junk",
				"7 c2s 6 "+toolCall("7", "echo", "")),
			want:      []string{pendingNote("s", 1, "1"), pendingNote("s", 2, "2"), invalid("s", 3), pendingNote("s", 4, "4"), invalid("s", 6)},
			total:     7,
			truncated: 2,
		},
		{
			name: "an assertion failure is an error and beats earlier notes",
			cfg:  checker.Config{MaxFindings: 2, ExpectTools: []string{"missing"}},
			log: logOf("s", "1 c2s 0 "+toolCall("1", "echo", ""), "2 s2c 1 junk", "3 c2s 2 "+toolCall("3", "echo", "")) +
				logOf("t", "1 c2s 0 "+toolCall("1", "missing", "")),
			want:      []string{invalid("s", 2), `error mcpsnoop/assertion session s: expected tool "missing" was never called`},
			total:     5,
			truncated: 3,
		},
		{
			name: "notes count as errors when their signal is gated",
			cfg:  checker.Config{MaxFindings: 2, FailOn: []checker.Signal{checker.SignalPending}},
			log:  logOf("s", "1 s2c 0 junk", "2 c2s 1 "+toolCall("2", "echo", ""), "3 s2c 2 junk", "4 c2s 3 "+toolCall("4", "echo", "")),
			want: []string{
				"error mcpsnoop/pending session s line 2: tools/call echo (id 2) never got a response",
				"error mcpsnoop/pending session s line 4: tools/call echo (id 4) never got a response",
			},
			total:     4,
			truncated: 2,
		},
		{
			name:  "exactly at the cap nothing is left out",
			cfg:   checker.Config{MaxFindings: 3},
			log:   logOf("s", "1 s2c 0 junk", "2 c2s 1 "+toolCall("2", "echo", ""), "3 s2c 2 junk"),
			want:  []string{invalid("s", 1), pendingNote("s", 2, "2"), invalid("s", 3)},
			total: 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := check(t, tt.cfg, tt.log)
			sameLines(t, "kept findings", messages(rep), tt.want)
			if rep.FindingsTotal != tt.total || rep.FindingsTruncated != tt.truncated {
				t.Errorf("total %d truncated %d, want %d and %d", rep.FindingsTotal, rep.FindingsTruncated, tt.total, tt.truncated)
			}
			if rep.FindingsTruncated != rep.FindingsTotal-len(rep.Findings) {
				t.Errorf("truncated %d != total %d - kept %d", rep.FindingsTruncated, rep.FindingsTotal, len(rep.Findings))
			}
		})
	}
}

// TestFindingsCapCountersStayExact: the cap trims the list, never the counters.
func TestFindingsCapCountersStayExact(t *testing.T) {
	var frames []string
	for i := 1; i <= 40; i++ {
		frames = append(frames, strconv.Itoa(i)+" s2c "+strconv.Itoa(i)+" junk")
	}
	rep := check(t, checker.Config{MaxFindings: 3}, logOf("s", frames...))
	if got := onlySession(t, rep).Counters.Invalid; got != 40 {
		t.Errorf("invalid = %d, want 40", got)
	}
	if len(rep.Findings) != 3 || rep.FindingsTotal != 40 || rep.FindingsTruncated != 37 {
		t.Errorf("kept %d total %d truncated %d, want 3 40 37", len(rep.Findings), rep.FindingsTotal, rep.FindingsTruncated)
	}
	if rep.Verdict != checker.Failed {
		t.Errorf("verdict = %s", rep.Verdict)
	}
}

// TestFindingsDefaultCap: MaxFindings zero means 10,000 (interfaces.md).
func TestFindingsDefaultCap(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= checker.DefaultMaxFindings+2; i++ {
		b.WriteString(`{"session_id":"s","seq":` + strconv.Itoa(i) + `,"direction":"s2c","text":"junk"}` + "\n")
	}
	rep := check(t, checker.Config{}, b.String())
	if checker.DefaultMaxFindings != 10000 {
		t.Errorf("DefaultMaxFindings = %d, want 10000", checker.DefaultMaxFindings)
	}
	if len(rep.Findings) != 10000 || rep.FindingsTotal != 10002 || rep.FindingsTruncated != 2 {
		t.Errorf("kept %d total %d truncated %d, want 10000 10002 2", len(rep.Findings), rep.FindingsTotal, rep.FindingsTruncated)
	}
	if last := rep.Findings[len(rep.Findings)-1]; last.Seq != 10000 {
		t.Errorf("last kept finding is seq %d, want 10000 (the earliest are kept)", last.Seq)
	}
}

// fingerprintScenario is one scenario rendered as a capture: the session id,
// request ids, seq layout and timestamps vary with v, nothing else does.
func fingerprintScenario(sid string, v int) string {
	ids := [][2]string{{"1", "2"}, {"101", `"b-2"`}}[v]
	unmatched := [][2]string{{"77", "78"}, {"5", "6"}}[v]
	ms := func(n int) string { return strconv.Itoa(n*(v+1) + v*3600000) }
	var frames []string
	seq := 0
	add := func(gap int, dir string, at int, raw string) {
		seq += 1 + gap
		frames = append(frames, strconv.Itoa(seq)+" "+dir+" "+ms(at)+" "+raw)
	}
	if v == 1 {
		add(0, "meta", 0, `{"command":["server"],"cwd":"/"}`)
		add(0, "stderr", 0, "starting")
	}
	add(0, "c2s", 0, toolCall(ids[0], "echo", ""))
	add(0, "s2c", 10, rpcError(ids[0], -32000, "boom"))
	add(0, "c2s", 20, toolCall(ids[1], "slow", ""))
	add(0, "s2c", 30, "stray stdout line")
	add(0, "s2c", 40, "another stray line")
	add(0, "s2c", 50, rpcResult(unmatched[0], `{}`))
	add(1+2*v, "s2c", 60, rpcResult(unmatched[1], `{}`)) // a different number of frames lost
	return logOf(sid, frames...)
}

// TestFingerprints checks interfaces.md's SARIF fingerprint: sha256 over
// label, rule id, method, tool, kind and occurrence index, NUL-joined, first
// 16 hex digits; stable across re-captures, distinct per occurrence, and
// dependent on the server label (the session's last non-empty one).
func TestFingerprints(t *testing.T) {
	cfg := checker.Config{ExpectTools: []string{"missing"}}
	a := check(t, cfg, fingerprintScenario("capture-one", 0))
	b := check(t, cfg, fingerprintScenario("0f9e-second-capture", 1))

	if len(a.Findings) != 8 {
		t.Fatalf("capture one has %d findings, want 8:\n%s", len(a.Findings), strings.Join(messages(a), "\n"))
	}
	hex16 := regexp.MustCompile(`^[0-9a-f]{16}$`)
	seen := map[string]string{}
	for _, f := range a.Findings {
		if !hex16.MatchString(f.Fingerprint) {
			t.Errorf("fingerprint %q of %q is not 16 hex digits", f.Fingerprint, f.Message)
		}
		if prev, dup := seen[f.Fingerprint]; dup {
			t.Errorf("findings %q and %q share fingerprint %s", prev, f.Message, f.Fingerprint)
		}
		seen[f.Fingerprint] = f.Message
	}

	// The documented formula, with the occurrence index counted per tuple.
	occ := map[string]int{}
	for _, f := range a.Findings {
		tuple := strings.Join([]string{"srv", f.RuleID, f.Method, f.Tool, f.Kind}, "\x00")
		sum := sha256.Sum256([]byte(tuple + "\x00" + strconv.Itoa(occ[tuple])))
		occ[tuple]++
		if want := hex.EncodeToString(sum[:])[:16]; f.Fingerprint != want {
			t.Errorf("fingerprint of %q = %s, want %s", f.Message, f.Fingerprint, want)
		}
	}

	// A re-capture: same fingerprints, same order.
	if len(b.Findings) != len(a.Findings) {
		t.Fatalf("re-capture has %d findings, want %d:\n%s", len(b.Findings), len(a.Findings), strings.Join(messages(b), "\n"))
	}
	for i := range a.Findings {
		if a.Findings[i].Fingerprint != b.Findings[i].Fingerprint {
			t.Errorf("finding %d: %q -> %s but re-captured %q -> %s", i,
				a.Findings[i].Message, a.Findings[i].Fingerprint, b.Findings[i].Message, b.Findings[i].Fingerprint)
		}
	}

	// Another server label changes every fingerprint.
	c := check(t, cfg, strings.ReplaceAll(fingerprintScenario("capture-one", 0), `"server_label":"srv"`, `"server_label":"srv-2"`))
	if len(c.Findings) != len(a.Findings) {
		t.Fatalf("relabelled capture has %d findings, want %d", len(c.Findings), len(a.Findings))
	}
	for i := range a.Findings {
		if c.Findings[i].Fingerprint == a.Findings[i].Fingerprint {
			t.Errorf("finding %q keeps fingerprint %s under another label", a.Findings[i].Message, a.Findings[i].Fingerprint)
		}
	}

	// The label used is the session's last non-empty one, for every finding,
	// including those found before the label was seen.
	lines := strings.SplitAfter(fingerprintScenario("capture-one", 0), "\n")
	for i := range lines {
		switch {
		case i < 3:
			lines[i] = strings.Replace(lines[i], `"server_label":"srv"`, `"server_label":"early"`, 1)
		case i > 4:
			lines[i] = strings.Replace(lines[i], `"server_label":"srv"`, `"server_label":""`, 1)
		}
	}
	d := check(t, cfg, strings.Join(lines, ""))
	if len(d.Findings) != len(a.Findings) {
		t.Fatalf("late-label capture has %d findings, want %d", len(d.Findings), len(a.Findings))
	}
	if got := onlySession(t, d).Label; got != "srv" {
		t.Errorf("label = %q, want srv", got)
	}
	for i := range a.Findings {
		if d.Findings[i].Fingerprint != a.Findings[i].Fingerprint {
			t.Errorf("finding %q: fingerprint %s with a late label, want %s", a.Findings[i].Message, d.Findings[i].Fingerprint, a.Findings[i].Fingerprint)
		}
	}
}

// TestFingerprintOccurrence: a second identical finding in a session gets the
// next occurrence index, so its own fingerprint; the same finding in another
// session with the same label starts again at 0.
func TestFingerprintOccurrence(t *testing.T) {
	log := logOf("s1", "1 s2c 0 junk", "2 s2c 1 junk", "3 s2c 2 junk") + logOf("s2", "1 s2c 3 junk")
	rep := check(t, checker.Config{}, log)
	if len(rep.Findings) != 4 {
		t.Fatalf("findings = %d", len(rep.Findings))
	}
	f := rep.Findings
	if f[0].Fingerprint == f[1].Fingerprint || f[1].Fingerprint == f[2].Fingerprint || f[0].Fingerprint == f[2].Fingerprint {
		t.Errorf("identical findings share fingerprints: %s %s %s", f[0].Fingerprint, f[1].Fingerprint, f[2].Fingerprint)
	}
	if f[3].Fingerprint != f[0].Fingerprint {
		t.Errorf("first occurrence in session s2 = %s, want %s as in s1", f[3].Fingerprint, f[0].Fingerprint)
	}
}

// TestFingerprintsSurviveTheCap: a kept finding's fingerprint does not depend
// on which others were dropped (occurrences count every finding).
func TestFingerprintsSurviveTheCap(t *testing.T) {
	log := logOf("s", "1 c2s 0 "+toolCall("1", "echo", ""), "2 s2c 1 junk", "3 c2s 2 "+toolCall("3", "echo", ""), "4 s2c 3 junk")
	all := check(t, checker.Config{}, log)
	capped := check(t, checker.Config{MaxFindings: 1}, log)
	if len(capped.Findings) != 1 {
		t.Fatalf("kept %d", len(capped.Findings))
	}
	for _, f := range all.Findings {
		if f.Message == capped.Findings[0].Message && f.Fingerprint != capped.Findings[0].Fingerprint {
			t.Errorf("%q: fingerprint %s capped, %s uncapped", f.Message, capped.Findings[0].Fingerprint, f.Fingerprint)
		}
	}
}
