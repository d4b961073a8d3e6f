package checker_test

import (
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// runAssertionLines lists every session's assertions as
// "<session>: PASS|FAIL <run> <server> <message>".
func runAssertionLines(rep *checker.Report) []string {
	var out []string
	for _, s := range rep.Sessions {
		for _, a := range s.Assertions {
			verdict := "FAIL"
			if a.Passed {
				verdict = "PASS"
			}
			out = append(out, s.ID+": "+verdict+" "+a.Run+" ["+a.Server+"] "+a.Message)
		}
	}
	return out
}

// Tool assertions are judged per run: any session of the run may have
// called the tool; SERVER:TOOL narrows it to one server label; a session
// in no run is a run of its own.
func TestToolAssertionsPerRun(t *testing.T) {
	const run = "p-97001-1785601212"
	untraced := readDir(t, "run-untraced") // files, github, search: one client process
	solo := logOf("a", "1 c2s 0 "+toolCall("1", "read_file", "")) + logOf("b", "1 c2s 0 "+toolCall("1", "other", ""))
	tests := []struct {
		name           string
		log            string
		expect, forbid []string
		want           []string
		passed         bool
	}{
		{name: "a tool one server of the run called", log: untraced, expect: []string{"read_file"}, passed: true,
			want: []string{`search-97486-95315d9dc9f8: PASS ` + run + ` [] run ` + run + `: expected tool "read_file" was called on server "files"`}},
		{name: "narrowed to a server that did not call it", log: untraced, expect: []string{"github:read_file"},
			want: []string{`search-97486-95315d9dc9f8: FAIL ` + run + ` [github] run ` + run + `: expected tool "read_file" was never called on server "github"`}},
		{name: "narrowed to the server that did", log: untraced, expect: []string{"files:read_file"}, passed: true,
			want: []string{`search-97486-95315d9dc9f8: PASS ` + run + ` [files] run ` + run + `: expected tool "read_file" was called on server "files"`}},
		{name: "a forbidden tool names the server that called it", log: untraced, forbid: []string{"web_search", "github:web_search"},
			want: []string{
				`search-97486-95315d9dc9f8: FAIL ` + run + ` [] run ` + run + `: forbidden tool "web_search" was called on server "search"`,
				`search-97486-95315d9dc9f8: PASS ` + run + ` [github] run ` + run + `: forbidden tool "web_search" was not called on server "github"`,
			}},
		{name: "a server no session has: one failure", log: untraced, expect: []string{"jira:create_issue"},
			want: []string{`search-97486-95315d9dc9f8: FAIL  [jira] expected tool "create_issue" was never called: no session of server "jira" was checked`}},
		{name: "sessions in no run are judged one by one, in the reference's words", log: solo, expect: []string{"read_file"},
			want: []string{
				`a: PASS s-a [] expected tool "read_file" was called`,
				`b: FAIL s-b [] expected tool "read_file" was never called`,
			}},
		{name: "a server qualifier skips the runs without that server", log: solo, expect: []string{"srv:read_file"},
			want: []string{
				`a: PASS s-a [srv] expected tool "read_file" was called on server "srv"`,
				`b: FAIL s-b [srv] expected tool "read_file" was never called on server "srv"`,
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Gating on nothing (--fail-on none): the github session's error
			// fails nothing, only the assertions do.
			rep := check(t, checker.Config{FailOn: []checker.Signal{}, ExpectTools: tt.expect, ForbidTools: tt.forbid}, tt.log)
			got := runAssertionLines(rep)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("assertions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if (rep.Verdict == checker.Passed) != tt.passed {
				t.Errorf("verdict %s", rep.Verdict)
			}
			// A failure is a finding of the session holding it; a run's
			// message names the run itself, not a session.
			for _, f := range rep.Findings {
				if f.RuleID == checker.RuleAssertion && strings.Contains(f.Message, "run "+run) && !strings.HasPrefix(f.Message, "run ") {
					t.Errorf("finding %q", f.Message)
				}
			}
		})
	}
}

func TestParseToolSpec(t *testing.T) {
	for _, tc := range []struct{ in, server, tool, err string }{
		{in: "read_file", tool: "read_file"},
		{in: "github:read_file", server: "github", tool: "read_file"},
		{in: "127.0.0.1:38081:read_file", server: "127.0.0.1:38081", tool: "read_file"},
		{in: ":read_file", err: `":read_file" names no server before its colon (SERVER:TOOL)`},
		{in: "github:", err: `"github:" names no tool`},
		{in: "", err: `"" names no tool`},
	} {
		got, err := checker.ParseToolSpec(tc.in)
		switch {
		case tc.err != "":
			if err == nil || err.Error() != tc.err {
				t.Errorf("%q: error %v, want %s", tc.in, err, tc.err)
			}
		case err != nil || got.Server != tc.server || got.Tool != tc.tool:
			t.Errorf("%q: %+v %v", tc.in, got, err)
		}
	}
}
