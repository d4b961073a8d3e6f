package checker_test

import (
	"sort"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// TestAssertions covers --max-duration, --expect-tool and --forbid-tool
// (check.md 5): which calls the budget considers, the failure message, ties,
// task and MRTR spans, evaluation order, and what counts as "called".
func TestAssertions(t *testing.T) {
	const ok = `{"content":[]}`
	sec := time.Second
	tests := []struct {
		name       string
		cfg        checker.Config
		frames     []string
		assertions []string
		verdict    checker.Verdict // "" means Failed exactly when an assertion failed
	}{
		{
			name:       "no assertion asked, none evaluated",
			frames:     []string{"c2s 0 " + toolCall("1", "a", ""), "s2c 5000 " + rpcResult("1", ok)},
			assertions: nil,
		},
		{
			name:       "within budget; a duration equal to the budget does not exceed it",
			cfg:        checker.Config{MaxDuration: sec},
			frames:     []string{"c2s 0 " + toolCall("1", "a", ""), "s2c 1000 " + rpcResult("1", ok)},
			assertions: []string{"pass max-duration: every tool call finished within the 1s budget"},
		},
		{
			name: "an errored call counts",
			cfg:  checker.Config{MaxDuration: sec},
			frames: []string{
				"c2s 0 " + toolCall("1", "a", ""),
				"s2c 1500 " + rpcError("1", -32603, "slow and broken"),
			},
			assertions: []string{`FAIL max-duration: 1 tool call exceeded the 1s budget (worst: tool "a" took 1.5s)`},
		},
		{
			name: "an isError result counts",
			cfg:  checker.Config{MaxDuration: sec},
			frames: []string{
				"c2s 0 " + toolCall("1", "a", ""),
				"s2c 1200 " + rpcResult("1", `{"isError":true}`),
			},
			assertions: []string{`FAIL max-duration: 1 tool call exceeded the 1s budget (worst: tool "a" took 1.2s)`},
		},
		{
			name: "a late-answered call counts, up to its late answer",
			cfg:  checker.Config{MaxDuration: sec},
			frames: []string{
				"c2s 0 " + toolCall("1", "a", ""),
				"c2s 100 " + cancelNote("1"),
				"s2c 2345 " + rpcResult("1", ok),
			},
			assertions: []string{`FAIL max-duration: 1 tool call exceeded the 1s budget (worst: tool "a" took 2.345s)`},
		},
		{
			name: "pending, superseded and cancelled-without-answer calls are ignored",
			cfg:  checker.Config{MaxDuration: sec, FailOn: []checker.Signal{checker.SignalError}},
			frames: []string{
				"c2s 0 " + toolCall("1", "pending", ""),
				"c2s 0 " + toolCall("2", "superseded", ""),
				"c2s 0 " + toolCall("3", "cancelled", ""),
				"c2s 0 " + toolCall("4", "parked", ""),
				"s2c 10 " + rpcResult("4", inputRequired(`"S"`)),
				"c2s 0 " + toolCall("5", "task", ""),
				"s2c 10 " + rpcResult("5", `{"resultType":"task","taskId":"t5","status":"working"}`),
				"c2s 5000 " + cancelNote("3"),
				"c2s 6000 " + toolCall("2", "superseded", ""),
				"s2c 6010 " + rpcResult("2", ok),
				"c2s 9000 " + rpcRequest("9", "ping", `{}`),
			},
			assertions: []string{"pass max-duration: every tool call finished within the 1s budget"},
		},
		{
			name: "only tools/call calls are timed",
			cfg:  checker.Config{MaxDuration: sec},
			frames: []string{
				"c2s 0 " + rpcRequest("1", "resources/read", `{"uri":"file:///big"}`),
				"s2c 9000 " + rpcResult("1", `{"contents":[]}`),
				"s2c 9000 " + rpcRequest("2", "roots/list", `{}`),
				"c2s 19000 " + rpcResult("2", `{"roots":[]}`),
			},
			assertions: []string{"pass max-duration: every tool call finished within the 1s budget"},
		},
		{
			name: "several exceed: plural, the worst named",
			cfg:  checker.Config{MaxDuration: 250 * time.Millisecond},
			frames: []string{
				"c2s 0 " + toolCall("1", "a", ""),
				"s2c 300 " + rpcResult("1", ok),
				"c2s 1000 " + toolCall("2", "b", ""),
				"s2c 1900 " + rpcResult("2", ok),
				"c2s 2000 " + toolCall("3", "c", ""),
				"s2c 2400 " + rpcResult("3", ok),
				"c2s 3000 " + toolCall("4", "d", ""),
				"s2c 3100 " + rpcResult("4", ok),
			},
			assertions: []string{`FAIL max-duration: 3 tool calls exceeded the 250ms budget (worst: tool "b" took 900ms)`},
		},
		{
			name: "ties keep the earliest call",
			cfg:  checker.Config{MaxDuration: sec},
			frames: []string{
				"c2s 0 " + toolCall("1", "first", ""),
				"c2s 100 " + toolCall("2", "second", ""),
				"s2c 2000 " + rpcResult("1", ok),
				"s2c 2100 " + rpcResult("2", ok),
				"c2s 3000 " + toolCall("3", "third", ""),
				"s2c 4500 " + rpcResult("3", ok),
			},
			assertions: []string{`FAIL max-duration: 3 tool calls exceeded the 1s budget (worst: tool "first" took 2s)`},
		},
		{
			name: "ties keep the earliest call even when it settles last",
			cfg:  checker.Config{MaxDuration: sec},
			// "Earliest" is request order in the log (calls are kept in
			// request order, capture-store-export.md 6.12), not start time.
			frames: []string{
				"c2s 500 " + toolCall("1", "early", ""),
				"c2s 0 " + toolCall("2", "late", ""),
				"s2c 2000 " + rpcResult("2", ok),
				"s2c 2500 " + rpcResult("1", ok),
			},
			assertions: []string{`FAIL max-duration: 2 tool calls exceeded the 1s budget (worst: tool "early" took 2s)`},
		},
		{
			name: "a task call ends at its terminal notification",
			cfg:  checker.Config{MaxDuration: sec},
			frames: []string{
				"c2s 0 " + toolCall("1", "job", ""),
				"s2c 5 " + rpcResult("1", `{"resultType":"task","taskId":"t1","status":"working"}`),
				"s2c 800 " + `{"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"t1","status":"working"}}`,
				"s2c 3000 " + `{"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"t1","status":"completed","result":{"content":[]}}}`,
			},
			assertions: []string{`FAIL max-duration: 1 tool call exceeded the 1s budget (worst: tool "job" took 3s)`},
		},
		{
			name: "a task call ends at the tasks/get response reporting it terminal",
			cfg:  checker.Config{MaxDuration: sec},
			frames: []string{
				"c2s 0 " + toolCall("1", "job", ""),
				"s2c 5 " + rpcResult("1", `{"resultType":"task","taskId":"t1","status":"working"}`),
				"c2s 1000 " + rpcRequest("2", "tasks/get", `{"taskId":"t1"}`),
				"s2c 1750 " + rpcResult("2", `{"taskId":"t1","status":"failed","error":{"code":-1,"message":"x"}}`),
			},
			assertions: []string{`FAIL max-duration: 1 tool call exceeded the 1s budget (worst: tool "job" took 1.75s)`},
		},
		{
			name: "an MRTR exchange is one call spanning every round",
			cfg:  checker.Config{MaxDuration: sec},
			frames: []string{
				"c2s 0 " + toolCall("1", "ask", ""),
				"s2c 600 " + rpcResult("1", inputRequired(`"S"`, "q")),
				"c2s 700 " + toolCall("2", "ask", retryParams(`"S"`, "q")),
				"s2c 1100 " + rpcResult("2", ok),
			},
			assertions: []string{`FAIL max-duration: 1 tool call exceeded the 1s budget (worst: tool "ask" took 1.1s)`},
		},
		{
			// A call that cannot be timed fails the budget it cannot be held
			// to, and the message says which ts was missing.
			name: "a request without ts fails both budgets, naming the missing ts",
			cfg:  checker.Config{MaxDuration: sec, MaxServerDuration: sec},
			frames: []string{
				"c2s - " + toolCall("1", "untimed", ""),
				"s2c 100 " + rpcResult("1", ok),
				"c2s 200 " + toolCall("2", "timed", ""),
				"s2c 300 " + rpcResult("2", ok),
			},
			assertions: []string{
				`FAIL max-duration: 1 tool call could not be timed against the 1s budget (first: tool "untimed" at line 1: its request has no ts)`,
				`FAIL max-server-duration: 1 tool call could not be timed against the 1s server-time budget (first: tool "untimed" at line 1: its request has no ts)`,
			},
		},
		{
			name: "an answer without ts, beside a call over the budget",
			cfg:  checker.Config{MaxDuration: sec},
			frames: []string{
				"c2s 0 " + toolCall("1", "slow", ""),
				"s2c 2000 " + rpcResult("1", ok),
				"c2s 2100 " + toolCall("2", "late-untimed", ""),
				"c2s 2200 " + toolCall("3", "untimed", ""),
				"s2c - " + rpcResult("3", ok),
				"s2c - " + rpcResult("2", ok),
			},
			assertions: []string{`FAIL max-duration: 1 tool call exceeded the 1s budget (worst: tool "slow" took 2s); ` +
				`2 tool calls could not be timed against the 1s budget (first: tool "late-untimed" at line 3: the frame that ended it has no ts)`},
		},
		{
			name: "a pending call without ts is not judged",
			cfg:  checker.Config{MaxDuration: sec, MaxServerDuration: sec, FailOn: []checker.Signal{checker.SignalError}},
			frames: []string{
				"c2s - " + toolCall("1", "open", ""),
			},
			assertions: []string{
				"pass max-duration: every tool call finished within the 1s budget",
				"pass max-server-duration: every tool call's server time stayed within the 1s budget",
			},
		},
		{
			// 400ms + 600ms in the server, 12s with the user: the server
			// budget judges the server's 1s, and a time equal to the budget
			// is within it.
			name: "server time equal to the budget passes, whatever the wall clock",
			cfg:  checker.Config{MaxServerDuration: sec},
			frames: []string{
				"c2s 0 " + toolCall("1", "ask", ""),
				"s2c 400 " + rpcResult("1", inputRequired(`"S"`, "q")),
				"c2s 12400 " + toolCall("2", "ask", retryParams(`"S"`, "q")),
				"s2c 13000 " + rpcResult("2", ok),
			},
			assertions: []string{"pass max-server-duration: every tool call's server time stayed within the 1s budget"},
		},
		{
			name: "server time one millisecond over the budget fails",
			cfg:  checker.Config{MaxServerDuration: 999 * time.Millisecond},
			frames: []string{
				"c2s 0 " + toolCall("1", "ask", ""),
				"s2c 400 " + rpcResult("1", inputRequired(`"S"`, "q")),
				"c2s 12400 " + toolCall("2", "ask", retryParams(`"S"`, "q")),
				"s2c 13000 " + rpcResult("2", ok),
			},
			assertions: []string{`FAIL max-server-duration: 1 tool call exceeded the 999ms server-time budget (worst: tool "ask" spent 1s in the server)`},
		},
		{
			name: "a retry without ts leaves the chain's server time unknown",
			cfg:  checker.Config{MaxServerDuration: sec},
			frames: []string{
				"c2s 0 " + toolCall("1", "ask", ""),
				"s2c 400 " + rpcResult("1", inputRequired(`"S"`, "q")),
				"c2s - " + toolCall("2", "ask", retryParams(`"S"`, "q")),
				"s2c 13000 " + rpcResult("2", ok),
			},
			assertions: []string{`FAIL max-server-duration: 1 tool call could not be timed against the 1s server-time budget (first: tool "ask" at line 1: the request of its hop 2 has no ts)`},
		},
		{
			name: "expect and forbid are evaluated in the order given, after max-duration",
			cfg: checker.Config{
				MaxDuration: sec,
				ExpectTools: []string{"zeta", "alpha", "never"},
				ForbidTools: []string{"rm", "alpha"},
			},
			frames: []string{
				"c2s 0 " + toolCall("1", "alpha", ""),
				"s2c 5 " + rpcResult("1", ok),
				"c2s 10 " + toolCall("2", "zeta", ""),
				"s2c 15 " + rpcError("2", -1, "failed calls are still calls"),
			},
			assertions: []string{
				"pass max-duration: every tool call finished within the 1s budget",
				`pass expect-tool: expected tool "zeta" was called`,
				`pass expect-tool: expected tool "alpha" was called`,
				`FAIL expect-tool: expected tool "never" was never called`,
				`pass forbid-tool: forbidden tool "rm" was not called`,
				`FAIL forbid-tool: forbidden tool "alpha" was called`,
			},
		},
		{
			name: "a forbidden tool called only as a pending call still counts",
			cfg:  checker.Config{ForbidTools: []string{"rm"}},
			frames: []string{
				"c2s 0 " + toolCall("1", "rm", ""),
			},
			assertions: []string{`FAIL forbid-tool: forbidden tool "rm" was called`},
		},
		{
			name: "cancelled, superseded and null-id calls count as called",
			cfg:  checker.Config{ForbidTools: []string{"cancelled", "superseded", "nullid"}, ExpectTools: []string{"cancelled"}},
			frames: []string{
				"c2s 0 " + toolCall("1", "cancelled", ""),
				"c2s 1 " + cancelNote("1"),
				"c2s 2 " + toolCall("2", "superseded", ""),
				"c2s 3 " + toolCall("2", "other", ""),
				"s2c 4 " + rpcResult("2", ok),
				"c2s 5 " + toolCall("null", "nullid", ""),
			},
			assertions: []string{
				`pass expect-tool: expected tool "cancelled" was called`,
				`FAIL forbid-tool: forbidden tool "cancelled" was called`,
				`FAIL forbid-tool: forbidden tool "superseded" was called`,
				`FAIL forbid-tool: forbidden tool "nullid" was called`,
			},
		},
		{
			name: "a tools/call in either direction counts",
			cfg:  checker.Config{ForbidTools: []string{"srv-side"}},
			frames: []string{
				"s2c 0 " + toolCall("1", "srv-side", ""),
				"c2s 5 " + rpcResult("1", ok),
			},
			assertions: []string{`FAIL forbid-tool: forbidden tool "srv-side" was called`},
		},
		{
			name: "the tool name must match exactly; other methods naming it do not count",
			cfg:  checker.Config{ExpectTools: []string{"echo"}},
			frames: []string{
				"c2s 0 " + toolCall("1", "Echo", ""),
				"c2s 1 " + rpcRequest("2", "prompts/get", `{"name":"echo"}`),
				"c2s 2 " + `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo"}}`,
			},
			assertions: []string{`FAIL expect-tool: expected tool "echo" was never called`},
		},
		{
			name:       "assertions fail the run whatever the gate",
			cfg:        checker.Config{FailOn: []checker.Signal{checker.SignalSchema}, ExpectTools: []string{"x"}},
			frames:     []string{"c2s 0 " + rpcRequest("1", "ping", `{}`)},
			assertions: []string{`FAIL expect-tool: expected tool "x" was never called`},
			verdict:    checker.Failed,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := check(t, tt.cfg, logOf("s", numbered(tt.frames...)...))
			sr := onlySession(t, rep)
			sameLines(t, "assertions", assertionLines(sr), tt.assertions)

			// Every failed assertion is an error finding at the session's end.
			var wantFindings, gotFindings []string
			for _, a := range sr.FailedAssertions() {
				wantFindings = append(wantFindings, "error mcpsnoop/assertion session s: "+a.Message)
			}
			for _, f := range rep.Findings {
				if f.RuleID == checker.RuleAssertion {
					gotFindings = append(gotFindings, string(f.Level)+" "+f.RuleID+" "+f.Message)
					switch {
					case f.Seq != 0 || f.Line != 0:
						t.Errorf("assertion finding %q has a frame location", f.Message)
					case f.Kind != checker.AssertionMaxDuration && f.Kind != checker.AssertionMaxServerDuration &&
						f.Kind != checker.AssertionExpectTool && f.Kind != checker.AssertionForbidTool:
						t.Errorf("assertion finding %q has kind %q", f.Message, f.Kind)
					}
				}
			}
			// Compared as sets here: their order is TestAssertionFindingsOrder's.
			sort.Strings(gotFindings)
			sort.Strings(wantFindings)
			sameLines(t, "assertion findings", gotFindings, wantFindings)
			if len(rep.Findings) > 0 && len(gotFindings) > 0 {
				last := rep.Findings[len(rep.Findings)-len(gotFindings):]
				for _, f := range last {
					if f.RuleID != checker.RuleAssertion {
						t.Errorf("assertion findings are not last: %q", messages(rep))
						break
					}
				}
			}
			failed := len(sr.FailedAssertions()) > 0
			if sr.Failed() != (failed || len(sr.FailedSignals) > 0) {
				t.Errorf("session Failed() = %v", sr.Failed())
			}
			if tt.verdict != "" && rep.Verdict != tt.verdict {
				t.Errorf("verdict = %s, want %s", rep.Verdict, tt.verdict)
			}
			if failed && rep.Verdict != checker.Failed {
				t.Errorf("verdict = %s with a failed assertion", rep.Verdict)
			}
		})
	}
}
