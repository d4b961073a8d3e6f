package ghactions

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// stepEnv is a fake step environment with fresh output and summary files.
type stepEnv struct {
	vars             map[string]string
	output, summary  string
	annotations      bytes.Buffer
	workspace, other string
}

func newStepEnv(t *testing.T) *stepEnv {
	t.Helper()
	dir := t.TempDir()
	e := &stepEnv{
		output: filepath.Join(dir, "output"), summary: filepath.Join(dir, "summary"),
		workspace: filepath.Join(dir, "ws"), other: filepath.Join(dir, "elsewhere"),
	}
	e.vars = map[string]string{EnvOutput: e.output, EnvSummary: e.summary, EnvWorkspace: e.workspace}
	return e
}

func (e *stepEnv) getenv(k string) string { return e.vars[k] }

// lines is what was annotated, with go-githubactions' Windows line ends
// made "\n".
func (e *stepEnv) lines() string { return strings.ReplaceAll(e.annotations.String(), "\r\n", "\n") }

func (e *stepEnv) mode(t *testing.T) *Mode {
	t.Helper()
	m, err := New(e.getenv, &e.annotations)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// outputs parses the GITHUB_OUTPUT file (name<<DELIM blocks, as
// go-githubactions writes them); later values win.
func (e *stepEnv) outputs(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(e.output)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		name, delim, ok := strings.Cut(sc.Text(), "<<")
		if !ok {
			t.Fatalf("output line %q is not a heredoc", sc.Text())
		}
		var val []string
		for sc.Scan() && sc.Text() != delim {
			val = append(val, sc.Text())
		}
		out[name] = strings.Join(val, "\n")
	}
	return out
}

func finding(level checker.Level, sig checker.Signal, path string, line int, msg string) checker.Finding {
	return checker.Finding{Signal: sig, RuleID: sig.RuleID(), Level: level, SessionID: "s1", Path: path, Line: line, Message: msg, Fingerprint: "0123456789abcdef"}
}

var elapsed = 2000.0

// report is a two-session report gated on error and pending.
func report(ws string, findings ...checker.Finding) *checker.Report {
	s1 := &checker.SessionReport{
		ID: "s1", Label: "srv", Transport: "stdio",
		Source:        checker.Source{Path: filepath.Join(ws, "logs/a.jsonl"), Name: "logs/a.jsonl", FirstLine: 1},
		Counters:      checker.Counters{Errors: 2, Warnings: 3, Pending: 1, Deprecated: 4},
		FailedSignals: []checker.Signal{checker.SignalError, checker.SignalPending},
		Findings:      checker.FindingCounts{Gated: 3, Notes: 7},
		Parties:       []checker.PartyCount{{Party: checker.PartyServer, Total: 6, Gated: 3}, {Party: checker.PartyClient, Total: 4}},
		Tools: []checker.ToolStats{
			{Name: "fast", Calls: 3, P50Ms: 1, P95Ms: 2, P99Ms: 2, RoundTrips: 3},
			{Name: "slow", Calls: 1, Errors: 1, P50Ms: 1500, P95Ms: 38234.5, P99Ms: 38234.5, RoundTrips: 3},
		},
		Assertions: []checker.AssertionResult{
			{Name: "expect-tool", Passed: true, Message: "ok"},
			{Name: "max-duration", Message: `1 tool call exceeded the 5s budget (worst: tool "slow" took 38.2s)`},
		},
		Interactions: []checker.Interaction{{Method: "tools/call", Name: "slow", RoundTrips: 3, Outcome: "completed", DurationMs: 38234.5, ServerTimeMs: 1200, ClientTurnaroundMs: 37034.5}},
		Elicitations: []checker.Elicitation{
			{Method: "tools/call", Name: "slow", Mode: "form", Message: "Pick | one", Fields: []checker.ElicitField{{Name: "x", Type: "string"}}, Action: "accept", ElapsedMs: &elapsed},
			{Method: "tools/call", Name: "slow", Mode: "url", Message: strings.Repeat("é", 130), Host: "example.com", Pending: true},
		},
	}
	s2 := &checker.SessionReport{ID: "s2", Label: "srv", Counters: checker.Counters{Errors: 1, Warnings: 1}, FailedSignals: []checker.Signal{checker.SignalError},
		Findings: checker.FindingCounts{Gated: 1, Notes: 1}}
	return &checker.Report{
		Verdict: checker.Failed, FailOn: []checker.Signal{checker.SignalError, checker.SignalPending},
		Sessions: []*checker.SessionReport{s1, s2}, Findings: findings, FindingsTotal: len(findings),
	}
}

func TestNewNeedsTheStepFiles(t *testing.T) {
	for _, vars := range []map[string]string{
		{},
		{EnvOutput: "/tmp/o"},
		{EnvSummary: "/tmp/s"},
		{EnvOutput: "", EnvSummary: "/tmp/s", EnvWorkspace: "/w"},
	} {
		if _, err := New(func(k string) string { return vars[k] }, &bytes.Buffer{}); !errors.Is(err, ErrNotGitHub) {
			t.Errorf("%v: err %v, want ErrNotGitHub", vars, err)
		}
	}
}

func TestPublish(t *testing.T) {
	e := newStepEnv(t)
	rep := report(e.workspace,
		finding(checker.LevelNote, checker.SignalDeprecated, filepath.Join(e.workspace, "logs/a.jsonl"), 4, "session s1 frame 4: deprecated"),
		finding(checker.LevelError, checker.SignalError, filepath.Join(e.workspace, "logs/a.jsonl"), 7, "session s1 frame 7: boom"),
	)
	rep.Findings[0].Party, rep.Findings[1].Party = checker.PartyClient, checker.PartyServer
	rep.Blame = []checker.Party{checker.PartyServer, checker.PartyTransport}
	err := e.mode(t).Publish(rep, Options{SARIF: "/r/a.sarif", JUnit: "/r/j.xml", Summary: true, Annotations: MaxAnnotations})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"outcome": "findings", "exit-code": "1", "sarif": "/r/a.sarif", "junit": "/r/j.xml",
		"errors": "3", "warnings": "4", "findings": "4"} // findings: those at level error, 3 of s1 and 1 of s2
	got := e.outputs(t)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("outputs = %v, want %v", got, want)
	}
	ann := strings.Split(strings.TrimSpace(e.lines()), "\n")
	wantAnn := []string{
		"::error file=logs/a.jsonl,line=7,title=mcpsnoop/error [server]::session s1 frame 7: boom",
		"::notice file=logs/a.jsonl,line=4,title=mcpsnoop/deprecated [client]::session s1 frame 4: deprecated",
	}
	if fmt.Sprint(ann) != fmt.Sprint(wantAnn) {
		t.Errorf("annotations:\n%s\nwant:\n%s", strings.Join(ann, "\n"), strings.Join(wantAnn, "\n"))
	}
	sum, err := os.ReadFile(e.summary)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"## ❌ mcpsnoop check: findings\n",
		"2 sessions checked · gate `--fail-on error,pending --blame server,transport` · 3 errors · 4 warnings · 4 findings on gated signals",
		"### ❌ session s1\n\nserver srv · stdio · logs/a\\.jsonl\n",
		"| **2** | 0 | 3 | 0 | **1** | 0 | 0 | 4 | 0 | 0 |",
		"**Failed signals:** error, pending\n\nFindings that fail the gate (1 of 3):\n\n    " + filepath.Join(e.workspace, "logs/a.jsonl") + ":7: error [server]: session s1 frame 7: boom\n\n" +
			"2 more findings not listed. A --sarif, --junit or --json report would list them all.\n",
		"**Findings by party:** server 6 (3 gated) · client 4 (not gated)",
		"**Failed assertions:**\n\n- 1 tool call exceeded the 5s budget (worst\\: tool \"slow\" took 38\\.2s)\n",
		"| slow | 1 | 1 | 0 | 1.5 s | 38.2 s | 38.2 s | 3 |\n| fast | 3 | 0 | 0 | 1 ms | 2 ms | 2 ms | 3 |",
		"| tools/call slow | 3 | completed | 38.2 s | 1.2 s | 37 s |",
		"| tools/call slow | form | Pick \\| one | x (string) | accept | 2 s |",
		"| tools/call slow | url | " + strings.Repeat("é", 120) + "… | example\\.com | pending |  |",
		"### ❌ session s2",
	} {
		if !strings.Contains(string(sum), want) {
			t.Errorf("summary lacks %q:\n%s", want, sum)
		}
	}
	if strings.Contains(string(sum), "expect-tool") || strings.Contains(string(sum), "| ok") {
		t.Errorf("a passed assertion is in the summary")
	}
}

func TestPublishSwitches(t *testing.T) {
	e := newStepEnv(t)
	rep := report(e.workspace, finding(checker.LevelError, checker.SignalError, "x.jsonl", 1, "m"))
	if err := e.mode(t).Publish(rep, Options{}); err != nil {
		t.Fatal(err)
	}
	if e.annotations.Len() != 0 {
		t.Errorf("annotations 0 annotated: %s", e.annotations.String())
	}
	if _, err := os.Stat(e.summary); !os.IsNotExist(err) {
		t.Errorf("summary off wrote the summary file (%v)", err)
	}
	if got := e.outputs(t); got["sarif"] != "" || got["junit"] != "" || got["outcome"] != "findings" {
		t.Errorf("outputs = %v", got)
	}
}

func TestPublishPassed(t *testing.T) {
	e := newStepEnv(t)
	rep := &checker.Report{Verdict: checker.Passed, FailOn: checker.DefaultFailOn,
		Sessions: []*checker.SessionReport{{ID: "demo", Counters: checker.Counters{Deprecated: 2}}}}
	if err := e.mode(t).Publish(rep, Options{Summary: true, Annotations: 50}); err != nil {
		t.Fatal(err)
	}
	got := e.outputs(t)
	if got["outcome"] != "passed" || got["exit-code"] != "0" || got["findings"] != "0" || got["errors"] != "0" {
		t.Errorf("outputs = %v", got)
	}
	sum, _ := os.ReadFile(e.summary)
	if !strings.HasPrefix(string(sum), "## ✅ mcpsnoop check: passed") || !strings.Contains(string(sum), "### ✅ session demo") {
		t.Errorf("summary:\n%s", sum)
	}
}

func TestPublishError(t *testing.T) {
	e := newStepEnv(t)
	if err := e.mode(t).PublishError(`session log "logs/*|x.jsonl" not found`, true); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"outcome": "error", "exit-code": "2", "sarif": "", "junit": "", "errors": "", "warnings": "", "findings": ""}
	if got := e.outputs(t); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("outputs = %v, want %v", got, want)
	}
	sum, _ := os.ReadFile(e.summary)
	if !strings.Contains(string(sum), `Nothing was checked: session log "logs/\*\|x\.jsonl" not found`) {
		t.Errorf("summary:\n%s", sum)
	}
}

// TestPublishNeverPanics: go-githubactions panics on a file it cannot
// write; Publish reports an error instead.
func TestPublishNeverPanics(t *testing.T) {
	e := newStepEnv(t)
	e.vars[EnvOutput] = filepath.Join(e.other, "missing-dir", "output")
	err := e.mode(t).Publish(report(e.workspace), Options{Summary: true})
	if err == nil || !strings.Contains(err.Error(), "github mode") {
		t.Errorf("err = %v", err)
	}
	err = e.mode(t).PublishError("x", true)
	if err == nil {
		t.Errorf("PublishError into a missing folder: no error")
	}
}

func TestPublishRefuses(t *testing.T) {
	e := newStepEnv(t)
	for _, o := range []Options{
		{SARIF: "a\nfindings<<_GitHubActionsFileCommandDelimeter_"},
		{JUnit: "a\rb"},
		{Annotations: MaxAnnotations + 1},
		{Annotations: -1},
	} {
		if err := e.mode(t).Publish(report(e.workspace), o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	if _, err := os.Stat(e.output); !os.IsNotExist(err) {
		t.Errorf("a refused publish wrote outputs")
	}
}

func TestAnnotationsCapOrderAndPaths(t *testing.T) {
	ws := t.TempDir()
	var fs []checker.Finding
	for i := range 30 {
		fs = append(fs, finding(checker.LevelNote, checker.SignalPending, filepath.Join(ws, "n.jsonl"), i+1, fmt.Sprintf("note %d", i)))
	}
	for i := range 30 {
		fs = append(fs, finding(checker.LevelError, checker.SignalError, filepath.Join(ws, "e.jsonl"), i+1, fmt.Sprintf("error %d", i)))
	}
	rep := report(ws, fs...)
	got := Annotations(rep, MaxAnnotations, ws, []string{"SARIF", "JSON"})
	if len(got) != MaxAnnotations {
		t.Fatalf("%d annotations, want %d", len(got), MaxAnnotations)
	}
	for i, a := range got[:30] {
		if a.Level != "error" || a.Message != fmt.Sprintf("error %d", i) || a.File != "e.jsonl" || a.Line != i+1 {
			t.Fatalf("annotation %d = %+v, want error %d first", i, a, i)
		}
	}
	for i, a := range got[30:49] {
		if a.Level != "notice" || a.Message != fmt.Sprintf("note %d", i) {
			t.Fatalf("annotation %d = %+v", 30+i, a)
		}
	}
	if last := got[49]; last.Level != "notice" || last.File != "" ||
		last.Message != "11 more findings are not annotated (at most 50 annotations per check); the job summary counts them and the SARIF and JSON reports list them" {
		t.Errorf("last = %+v", last)
	}
	// The notice names only the reports that were written.
	for _, tc := range []struct {
		listed []string
		end    string
	}{
		{nil, "the job summary counts them, and a --sarif or --json report would list them"},
		{[]string{"JUnit"}, "the job summary counts them and the JUnit report lists them"},
		{[]string{"SARIF", "JUnit", "JSON"}, "the job summary counts them and the SARIF, JUnit and JSON reports list them"},
	} {
		if last := Annotations(rep, MaxAnnotations, ws, tc.listed)[49]; !strings.HasSuffix(last.Message, tc.end) {
			t.Errorf("%v: %q", tc.listed, last.Message)
		}
	}
	if got := Annotations(rep, 0, ws, nil); len(got) != 0 {
		t.Errorf("limit 0 gave %d", len(got))
	}

	// A log outside the workspace, stdin, a session-wide finding.
	rep = report(ws,
		finding(checker.LevelError, checker.SignalError, filepath.Join(filepath.Dir(ws), "outside.jsonl"), 3, "outside"),
		finding(checker.LevelError, checker.SignalError, "", 3, "stdin"),
		finding(checker.LevelNote, checker.SignalIncomplete, filepath.Join(ws, "sub", "a b,c.jsonl"), 0, "whole session"),
	)
	got = Annotations(rep, MaxAnnotations, ws, nil)
	want := []Annotation{
		{Level: "error", Title: "mcpsnoop/error", Message: "outside"},
		{Level: "error", Title: "mcpsnoop/error", Message: "stdin"},
		{Level: "notice", File: "sub/a b,c.jsonl", Title: "mcpsnoop/incomplete", Message: "whole session"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("annotations = %+v\nwant %+v", got, want)
	}
}

// TestAnnotationsLeaveOutSchemaNotes: a schema note is never annotated
// (nor counted among the findings left out); a gated schema finding is,
// and gated findings still come first.
func TestAnnotationsLeaveOutSchemaNotes(t *testing.T) {
	ws := t.TempDir()
	log := filepath.Join(ws, "a.jsonl")
	var fs []checker.Finding
	for i := range 5 {
		fs = append(fs, finding(checker.LevelNote, checker.SignalSchema, log, 2, fmt.Sprintf("dialect note %d", i)))
	}
	fs = append(fs,
		finding(checker.LevelNote, checker.SignalPending, log, 3, "pending"),
		finding(checker.LevelError, checker.SignalSchema, log, 2, "gated schema"),
		finding(checker.LevelError, checker.SignalError, log, 4, "boom"))
	rep := report(ws, fs...)
	got := Annotations(rep, MaxAnnotations, ws, nil)
	var msgs []string
	for _, a := range got {
		msgs = append(msgs, a.Level+" "+a.Message)
	}
	want := []string{"error gated schema", "error boom", "notice pending"}
	if fmt.Sprint(msgs) != fmt.Sprint(want) {
		t.Errorf("annotations %q, want %q", msgs, want)
	}
	// With room for two, the one left out is the pending note, counted
	// alone: the schema notes are not findings the annotations owe.
	got = Annotations(rep, 2, ws, nil)
	if len(got) != 2 || got[0].Message != "gated schema" || !strings.HasPrefix(got[1].Message, "2 more findings are not annotated") {
		t.Errorf("with two slots: %+v", got)
	}
}

// TestAnnotationsCannotInject: text from a log cannot end the command,
// start a new one, or add properties.
func TestAnnotationsCannotInject(t *testing.T) {
	e := newStepEnv(t)
	hostile := "x\n::add-mask::secret\r\n::error file=evil::%0A 100% ::"
	rep := report(e.workspace, finding(checker.LevelError, checker.SignalError, filepath.Join(e.workspace, "a,line=1::b.jsonl"), 2, hostile))
	if err := e.mode(t).Publish(rep, Options{Annotations: 5}); err != nil {
		t.Fatal(err)
	}
	out := strings.TrimSuffix(e.lines(), "\n")
	if strings.Count(out, "\n") != 0 {
		t.Fatalf("one finding became several lines:\n%s", out)
	}
	want := `::error file=a%2Cline=1%3A%3Ab.jsonl,line=2,title=mcpsnoop/error::x\n::add-mask::secret\r\n::error file=evil::%250A 100%25 ::`
	if out != want {
		t.Errorf("annotation\n got %s\nwant %s", out, want)
	}
}

// TestAnnotationsShowControls: the CI log shows an escape sequence or a
// bidirectional override in a message or a title as text (termsafe), not
// as colours or reordered characters.
func TestAnnotationsShowControls(t *testing.T) {
	e := newStepEnv(t)
	f := finding(checker.LevelError, checker.SignalError, filepath.Join(e.workspace, "a.jsonl"), 2,
		"tool \"\x1b[31mred\x1b[0m\" said \u202eevil\u202c\x07")
	f.RuleID = "rule\x1b]0;title\x07"
	if err := e.mode(t).Publish(report(e.workspace, f), Options{Annotations: 5}); err != nil {
		t.Fatal(err)
	}
	want := `::error file=a.jsonl,line=2,title=rule\x1b]0;title\a::tool "\x1b[31mred\x1b[0m" said \u202eevil\u202c\a` + "\n"
	if out := e.lines(); out != want {
		t.Errorf("annotation\n got %q\nwant %q", out, want)
	}
}

func TestSummaryEscapes(t *testing.T) {
	rep := report("/ws")
	rep.Sessions[0].ID = "a|b`c` <img src=x> [l](http://x) *e* _u_\nnext"
	rep.Sessions[0].Label = "srv\n### ✅ session forged\x1b[2J <b>x</b>\u202e"
	rep.Sessions[0].Tools[0].Name = "t|x"
	got := Summary(rep, Options{})
	for _, want := range []string{
		// A line break is shown as \n (termsafe), then Markdown-escaped.
		"### ❌ session a\\|b\\`c\\` \\<img src=x\\> \\[l\\](http\\://x) \\*e\\* \\_u\\_\\\\nnext\n",
		"server srv\\\\n\\#\\#\\# ✅ session forged\\\\x1b\\[2J \\<b\\>x\\</b\\>\\\\u202e · stdio",
		"| t\\|x | 3 |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
}

// The summary lists the findings that fail the gate as the text report's
// lines, in an indented code block (never Markdown, never HTML; a line
// break in a message stays visible on the line), at most MaxFindingLines
// a session, the rest counted and pointed to.
func TestSummaryFindingLines(t *testing.T) {
	rep := report("/ws")
	rep.Sessions[0].Findings.Gated = 25
	for i := range 25 {
		msg := fmt.Sprintf("finding %d", i)
		if i == 0 {
			msg = "boom <img src=x> **b** [l](http://x)\n### ✅ forged\x1b[2J"
		}
		f := finding(checker.LevelError, checker.SignalError, "logs/a.jsonl", 10+i, msg)
		f.Party = checker.PartyServer
		rep.Findings = append(rep.Findings, f)
	}
	rep.Findings = append(rep.Findings, finding(checker.LevelNote, checker.SignalDeprecated, "logs/a.jsonl", 99, "not gated"))
	stdin := finding(checker.LevelError, checker.SignalError, "", 3, "from stdin")
	stdin.SessionID = "s2"
	rep.Findings = append(rep.Findings, stdin)
	got := Summary(rep, Options{Listed: []string{"SARIF"}, LogName: "piped.jsonl"})
	want := "Findings that fail the gate (20 of 25):\n\n" +
		"    logs/a.jsonl:10: error [server]: boom <img src=x> **b** [l](http://x)\\n### ✅ forged\\x1b[2J\n" +
		"    logs/a.jsonl:11: error [server]: finding 1\n"
	if !strings.Contains(got, want) {
		t.Errorf("summary lacks\n%s\nin:\n%s", want, got)
	}
	if !strings.Contains(got, "    logs/a.jsonl:29: error [server]: finding 19\n\n5 more findings not listed. The SARIF report lists them all.\n") ||
		strings.Contains(got, "finding 20") || strings.Contains(got, ":99: ") {
		t.Errorf("the cap:\n%s", got)
	}
	if !strings.Contains(got, "### ❌ session s2") || !strings.Contains(got, "Findings that fail the gate (1 of 1):\n\n    piped.jsonl:3: error: from stdin\n") {
		t.Errorf("session s2's line:\n%s", got)
	}
	for _, line := range strings.Split(got, "\n") {
		if strings.HasPrefix(line, "### ✅") {
			t.Errorf("a message forged a heading: %q", line)
		}
	}
}

func TestSummaryCap(t *testing.T) {
	rep := &checker.Report{Verdict: checker.Failed, FailOn: checker.DefaultFailOn}
	for i := range 5000 {
		s := &checker.SessionReport{ID: fmt.Sprintf("session-%04d-%s", i, strings.Repeat("x", 60)), Label: "srv", Transport: "stdio"}
		for j := range 8 {
			s.Tools = append(s.Tools, checker.ToolStats{Name: fmt.Sprintf("tool_%d", j), Calls: 1, P95Ms: float64(j)})
		}
		rep.Sessions = append(rep.Sessions, s)
	}
	got := Summary(rep, Options{Listed: []string{"SARIF", "JUnit"}})
	if len(got) > MaxSummaryBytes || len(got) < MaxSummaryBytes-10*1024 {
		t.Errorf("summary is %d bytes, want just under %d", len(got), MaxSummaryBytes)
	}
	if !strings.HasSuffix(got, " more sessions not shown: the summary is capped at 900 KiB. The SARIF and JUnit reports cover every session.\n") {
		t.Errorf("summary ends %q", got[len(got)-200:])
	}
	if n := strings.Count(got, "| tool\\_"); n != 5*strings.Count(got, "### ") {
		t.Errorf("%d tool rows for %d sessions; want the 5 slowest each", n, strings.Count(got, "### "))
	}
}
