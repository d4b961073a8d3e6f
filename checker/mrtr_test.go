package checker_test

import (
	"strings"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// TestMRTR covers multi round-trip linking (check.md 1.3, W26-W28 in 3.3 C;
// capture-store-export.md 6.9): exact state echo, the fallback link and its
// warnings, ambiguity refusal, unlinked retries, chains, pending chains, and
// how linked retries show in tool statistics and assertions.
func TestMRTR(t *testing.T) {
	const (
		ok      = `{"content":[]}` // 14 bytes
		okBytes = len(ok)
	)
	tests := []struct {
		name       string
		cfg        checker.Config
		frames     []string // "dir ms raw", numbered from seq 1
		counters   checker.Counters
		findings   []string
		tools      []checker.ToolStats
		assertions []string
	}{
		{
			name: "exact state echo links regardless of method, name and keys",
			frames: []string{
				"c2s 0 " + toolCall("1", "echo", ""),
				"s2c 10 " + rpcResult("1", inputRequired(`"S1"`, "q")),
				"c2s 20 " + rpcRequest("2", "prompts/get", `{"name":"other",`+retryParams(`"S1"`, "zz")+`}`),
				"s2c 50 " + rpcResult("2", ok),
			},
			tools: []checker.ToolStats{{Name: "echo", Calls: 1, RoundTrips: 2, P50Ms: 50, P95Ms: 50, P99Ms: 50, ResultBytes: okBytes, MaxResultBytes: okBytes}},
		},
		{
			name: "exact echo from a tools/call of another tool is no call of that tool",
			frames: []string{
				"c2s 0 " + toolCall("1", "echo", ""),
				"s2c 10 " + rpcResult("1", inputRequired(`"S1"`)),
				"c2s 20 " + toolCall("2", "other", retryParams(`"S1"`)),
				"s2c 30 " + rpcResult("2", ok),
			},
			tools: []checker.ToolStats{{Name: "echo", Calls: 1, RoundTrips: 2, P50Ms: 30, P95Ms: 30, P99Ms: 30, ResultBytes: okBytes, MaxResultBytes: okBytes}},
		},
		{
			name: "W26 fallback link, retry omits the issued state",
			frames: []string{
				"c2s 0 " + toolCall("1", "echo", ""),
				"s2c 10 " + rpcResult("1", inputRequired(`"S1"`, "q", "r")),
				"c2s 20 " + toolCall("2", "echo", retryParams("", "r", "q")),
				"s2c 40 " + rpcResult("2", ok),
			},
			counters: checker.Counters{Warnings: 1},
			findings: []string{"error mcpsnoop/warn session s line 3: MRTR retry is missing requestState"},
			tools:    []checker.ToolStats{{Name: "echo", Calls: 1, RoundTrips: 2, P50Ms: 40, P95Ms: 40, P99Ms: 40, ResultBytes: okBytes, MaxResultBytes: okBytes}},
		},
		{
			name: "W27 fallback link, retry invents a state the server never issued",
			frames: []string{
				"c2s 0 " + toolCall("1", "echo", ""),
				"s2c 10 " + rpcResult("1", inputRequired("", "q")),
				"c2s 20 " + toolCall("2", "echo", retryParams(`"made-up"`, "q")),
				"s2c 40 " + rpcResult("2", ok),
			},
			counters: checker.Counters{Warnings: 1},
			findings: []string{"error mcpsnoop/warn session s line 3: MRTR retry invented requestState"},
			tools:    []checker.ToolStats{{Name: "echo", Calls: 1, RoundTrips: 2, P50Ms: 40, P95Ms: 40, P99Ms: 40, ResultBytes: okBytes, MaxResultBytes: okBytes}},
		},
		{
			name: "W28 fallback link, retry changes the state",
			frames: []string{
				"c2s 0 " + toolCall("1", "echo", ""),
				"s2c 10 " + rpcResult("1", inputRequired(`"S1"`, "q")),
				"c2s 20 " + toolCall("2", "echo", retryParams(`"S2"`, "q")),
				"s2c 40 " + rpcResult("2", ok),
			},
			counters: checker.Counters{Warnings: 1},
			findings: []string{"error mcpsnoop/warn session s line 3: MRTR retry changed requestState"},
			tools:    []checker.ToolStats{{Name: "echo", Calls: 1, RoundTrips: 2, P50Ms: 40, P95Ms: 40, P99Ms: 40, ResultBytes: okBytes, MaxResultBytes: okBytes}},
		},
		{
			name: "fallback with no state on either side links silently",
			frames: []string{
				"c2s 0 " + toolCall("1", "echo", ""),
				"s2c 10 " + rpcResult("1", inputRequired("", "q")),
				"c2s 20 " + toolCall("2", "echo", retryParams("", "q")),
				"s2c 40 " + rpcResult("2", ok),
			},
			tools: []checker.ToolStats{{Name: "echo", Calls: 1, RoundTrips: 2, P50Ms: 40, P95Ms: 40, P99Ms: 40, ResultBytes: okBytes, MaxResultBytes: okBytes}},
		},
		{
			name: "fallback needs the same operation name: a new call",
			frames: []string{
				"c2s 0 " + toolCall("1", "echo", ""),
				"s2c 10 " + rpcResult("1", inputRequired("", "q")),
				"c2s 20 " + toolCall("2", "other", retryParams("", "q")),
				"s2c 50 " + rpcResult("2", ok),
			},
			counters: checker.Counters{Pending: 1},
			findings: []string{"note mcpsnoop/pending session s line 1: tools/call echo (id 1) never got a response"},
			tools: []checker.ToolStats{
				{Name: "echo", Calls: 1, Pending: 1, RoundTrips: 1},
				{Name: "other", Calls: 1, RoundTrips: 1, P50Ms: 30, P95Ms: 30, P99Ms: 30, ResultBytes: okBytes, MaxResultBytes: okBytes},
			},
		},
		{
			name: "fallback needs the same method: a new call",
			frames: []string{
				"c2s 0 " + rpcRequest("1", "prompts/get", `{"name":"p"}`),
				"s2c 10 " + rpcResult("1", inputRequired("", "q")),
				"c2s 20 " + toolCall("2", "p", retryParams("", "q")),
				"s2c 50 " + rpcResult("2", ok),
			},
			counters: checker.Counters{Pending: 1},
			findings: []string{"note mcpsnoop/pending session s line 1: prompts/get (id 1) never got a response"},
			tools:    []checker.ToolStats{{Name: "p", Calls: 1, RoundTrips: 1, P50Ms: 30, P95Ms: 30, P99Ms: 30, ResultBytes: okBytes, MaxResultBytes: okBytes}},
		},
		{
			name: "fallback needs the same inputResponses key set: a new call",
			frames: []string{
				"c2s 0 " + toolCall("1", "echo", ""),
				"s2c 10 " + rpcResult("1", inputRequired(`"S1"`, "q")),
				"c2s 20 " + toolCall("2", "echo", retryParams("", "q", "r")),
				"s2c 50 " + rpcResult("2", ok),
			},
			counters: checker.Counters{Pending: 1},
			findings: []string{"note mcpsnoop/pending session s line 1: tools/call echo (id 1) never got a response"},
			tools:    []checker.ToolStats{{Name: "echo", Calls: 2, Pending: 1, RoundTrips: 2, P50Ms: 30, P95Ms: 30, P99Ms: 30, ResultBytes: okBytes, MaxResultBytes: okBytes}},
		},
		{
			name: "two parked candidates: no link, the retry is a new independent call",
			frames: []string{
				"c2s 0 " + toolCall("1", "echo", ""),
				"c2s 1 " + toolCall("2", "echo", ""),
				"s2c 10 " + rpcResult("1", inputRequired("", "q")),
				"s2c 11 " + rpcResult("2", inputRequired("", "q")),
				"c2s 20 " + toolCall("3", "echo", retryParams("", "q")),
				"s2c 45 " + rpcResult("3", ok),
			},
			counters: checker.Counters{Pending: 2},
			findings: []string{
				"note mcpsnoop/pending session s line 1: tools/call echo (id 1) never got a response",
				"note mcpsnoop/pending session s line 2: tools/call echo (id 2) never got a response",
			},
			tools: []checker.ToolStats{{Name: "echo", Calls: 3, Pending: 2, RoundTrips: 3, P50Ms: 25, P95Ms: 25, P99Ms: 25, ResultBytes: okBytes, MaxResultBytes: okBytes}},
		},
		{
			name: "two parked candidates with distinct states: an exact echo still links, without warning",
			frames: []string{
				"c2s 0 " + toolCall("1", "echo", ""),
				"c2s 1 " + toolCall("2", "echo", ""),
				"s2c 10 " + rpcResult("1", inputRequired(`"SA"`, "q")),
				"s2c 11 " + rpcResult("2", inputRequired(`"SB"`, "q")),
				"c2s 20 " + toolCall("3", "echo", retryParams(`"SB"`, "q")),
				"s2c 41 " + rpcResult("3", ok),
			},
			counters: checker.Counters{Pending: 1},
			findings: []string{"note mcpsnoop/pending session s line 1: tools/call echo (id 1) never got a response"},
			tools:    []checker.ToolStats{{Name: "echo", Calls: 2, Pending: 1, RoundTrips: 3, P50Ms: 40, P95Ms: 40, P99Ms: 40, ResultBytes: okBytes, MaxResultBytes: okBytes}},
		},
		{
			name: "a parked call of another tool is no candidate: the fallback is unique",
			frames: []string{
				"c2s 0 " + toolCall("1", "echo", ""),
				"c2s 1 " + toolCall("2", "other", ""),
				"s2c 10 " + rpcResult("1", inputRequired("", "q")),
				"s2c 11 " + rpcResult("2", inputRequired("", "q")),
				"c2s 20 " + toolCall("3", "echo", retryParams("", "q")),
				"s2c 60 " + rpcResult("3", ok),
			},
			counters: checker.Counters{Pending: 1},
			findings: []string{"note mcpsnoop/pending session s line 2: tools/call other (id 2) never got a response"},
			tools: []checker.ToolStats{
				{Name: "echo", Calls: 1, RoundTrips: 2, P50Ms: 60, P95Ms: 60, P99Ms: 60, ResultBytes: okBytes, MaxResultBytes: okBytes},
				{Name: "other", Calls: 1, Pending: 1, RoundTrips: 1},
			},
		},
		{
			name: "a retry matching nothing (tampered state, no keys) is a new call",
			frames: []string{
				"c2s 0 " + toolCall("1", "echo", ""),
				"s2c 10 " + rpcResult("1", inputRequired(`"S1"`)),
				"c2s 20 " + toolCall("2", "echo", retryParams(`"tampered"`)),
				"s2c 35 " + rpcResult("2", ok),
			},
			counters: checker.Counters{Pending: 1},
			findings: []string{"note mcpsnoop/pending session s line 1: tools/call echo (id 1) never got a response"},
			tools:    []checker.ToolStats{{Name: "echo", Calls: 2, Pending: 1, RoundTrips: 2, P50Ms: 15, P95Ms: 15, P99Ms: 15, ResultBytes: okBytes, MaxResultBytes: okBytes}},
		},
		{
			name: "a cancelled call is no longer parked: its echo is a new call",
			frames: []string{
				"c2s 0 " + toolCall("1", "echo", ""),
				"s2c 10 " + rpcResult("1", inputRequired(`"S1"`)),
				"c2s 15 " + cancelNote("1"),
				"c2s 20 " + toolCall("2", "echo", retryParams(`"S1"`)),
				"s2c 35 " + rpcResult("2", ok),
			},
			tools: []checker.ToolStats{{Name: "echo", Calls: 2, RoundTrips: 2, P50Ms: 15, P95Ms: 15, P99Ms: 15, ResultBytes: okBytes, MaxResultBytes: okBytes}},
		},
		{
			name: "a linked retry that reuses the root's id is no id reuse",
			frames: []string{
				"c2s 0 " + toolCall("1", "echo", ""),
				"s2c 10 " + rpcResult("1", inputRequired(`"S1"`, "q")),
				"c2s 20 " + toolCall("1", "echo", retryParams(`"S1"`, "q")),
				"s2c 30 " + rpcResult("1", ok),
			},
			tools: []checker.ToolStats{{Name: "echo", Calls: 1, RoundTrips: 2, P50Ms: 30, P95Ms: 30, P99Ms: 30, ResultBytes: okBytes, MaxResultBytes: okBytes}},
		},
		{
			name: "a chain of 3 rounds completes the original call, duration spanning every round",
			cfg:  checker.Config{MaxDuration: 500 * time.Millisecond},
			frames: []string{
				"c2s 0 " + toolCall("1", "echo", ""),
				"s2c 100 " + rpcResult("1", inputRequired(`"S1"`, "q")),
				"c2s 200 " + toolCall("2", "echo", retryParams(`"S1"`, "q")),
				"s2c 300 " + rpcResult("2", inputRequired(`"S2"`, "r")),
				"c2s 400 " + toolCall("3", "echo", retryParams(`"S2"`, "r")),
				"s2c 1000 " + rpcResult("3", ok),
			},
			findings:   []string{`error mcpsnoop/assertion session s: 1 tool call exceeded the 500ms budget (worst: tool "echo" took 1s)`},
			tools:      []checker.ToolStats{{Name: "echo", Calls: 1, RoundTrips: 3, P50Ms: 1000, P95Ms: 1000, P99Ms: 1000, ResultBytes: okBytes, MaxResultBytes: okBytes}},
			assertions: []string{`FAIL max-duration: 1 tool call exceeded the 500ms budget (worst: tool "echo" took 1s)`},
		},
		{
			name: "a chain mixing an exact and a fallback link; the late rounds' ids answer the root",
			cfg:  checker.Config{MaxDuration: 2 * time.Second},
			frames: []string{
				"c2s 0 " + toolCall(`"a"`, "echo", ""),
				"s2c 100 " + rpcResult(`"a"`, inputRequired(`"S1"`, "q")),
				"c2s 200 " + toolCall(`"b"`, "echo", retryParams(`"S1"`, "q")),
				"s2c 300 " + rpcResult(`"b"`, inputRequired(`"S2"`, "r")),
				"c2s 400 " + toolCall(`"c"`, "echo", retryParams("", "r")),
				"s2c 1250 " + rpcResult(`"c"`, ok),
			},
			counters:   checker.Counters{Warnings: 1},
			findings:   []string{"error mcpsnoop/warn session s line 5: MRTR retry is missing requestState"},
			tools:      []checker.ToolStats{{Name: "echo", Calls: 1, RoundTrips: 3, P50Ms: 1250, P95Ms: 1250, P99Ms: 1250, ResultBytes: okBytes, MaxResultBytes: okBytes}},
			assertions: []string{"pass max-duration: every tool call finished within the 2s budget"},
		},
		{
			name: "a chain left on input_required is pending at the original request",
			frames: []string{
				"c2s 0 " + toolCall("1", "echo", ""),
				"s2c 100 " + rpcResult("1", inputRequired(`"S1"`, "q")),
				"c2s 200 " + toolCall("2", "echo", retryParams(`"S1"`, "q")),
				"s2c 300 " + rpcResult("2", inputRequired(`"S2"`, "q")),
			},
			counters: checker.Counters{Pending: 1},
			findings: []string{"note mcpsnoop/pending session s line 1: tools/call echo (id 1) never got a response"},
			tools:    []checker.ToolStats{{Name: "echo", Calls: 1, Pending: 1, RoundTrips: 2}},
		},
		{
			name: "the final answer of a chain is an error of the original call",
			frames: []string{
				"c2s 0 " + toolCall("1", "echo", ""),
				"s2c 10 " + rpcResult("1", inputRequired(`"S1"`, "q")),
				"c2s 20 " + toolCall("2", "echo", retryParams(`"S1"`, "q")),
				"s2c 70 " + rpcError("2", -32000, "denied"),
			},
			counters: checker.Counters{Errors: 1},
			findings: []string{"error mcpsnoop/error session s line 4: tools/call echo (id 1) ended in an error: denied (code -32000)"},
			tools:    []checker.ToolStats{{Name: "echo", Calls: 1, Errors: 1, RoundTrips: 2, P50Ms: 70, P95Ms: 70, P99Ms: 70}},
		},
		{
			name: "expect-tool and forbid-tool see the root only",
			cfg:  checker.Config{ExpectTools: []string{"other", "echo"}, ForbidTools: []string{"other"}},
			frames: []string{
				"c2s 0 " + toolCall("1", "echo", ""),
				"s2c 10 " + rpcResult("1", inputRequired(`"S1"`)),
				"c2s 20 " + toolCall("2", "other", retryParams(`"S1"`)),
				"s2c 30 " + rpcResult("2", ok),
			},
			findings: []string{`error mcpsnoop/assertion session s: expected tool "other" was never called`},
			tools:    []checker.ToolStats{{Name: "echo", Calls: 1, RoundTrips: 2, P50Ms: 30, P95Ms: 30, P99Ms: 30, ResultBytes: okBytes, MaxResultBytes: okBytes}},
			assertions: []string{
				`FAIL expect-tool: expected tool "other" was never called`,
				`pass expect-tool: expected tool "echo" was called`,
				`pass forbid-tool: forbidden tool "other" was not called`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := check(t, tt.cfg, logOf("s", numbered(tt.frames...)...))
			sr := onlySession(t, rep)
			if sr.Counters != tt.counters {
				t.Errorf("counters = %+v\nwant       %+v", sr.Counters, tt.counters)
			}
			sameLines(t, "findings", messages(rep), tt.findings)
			sameTools(t, sr, tt.tools)
			sameLines(t, "assertions", assertionLines(sr), tt.assertions)
		})
	}
}

// TestMRTRPendingFindingLocation checks that a chain left waiting is reported
// at the original request's frame and log line, with the root's method and
// tool (check.md 8.2 pending; 3.5).
func TestMRTRPendingFindingLocation(t *testing.T) {
	log := logOf("s", numbered(
		"s2c 0 "+rpcResult("99", `{}`), // an unrelated unmatched response on line 1
		"c2s 5 "+toolCall("7", "echo", ""),
		"s2c 10 "+rpcResult("7", inputRequired(`"S1"`, "q")),
		"c2s 20 "+toolCall("8", "echo", retryParams(`"S1"`, "q")),
		"s2c 30 "+rpcResult("8", inputRequired(`"S2"`, "q")),
	)...)
	rep := check(t, checker.Config{}, log)
	var pending []checker.Finding
	for _, f := range rep.Findings {
		if f.Signal == checker.SignalPending {
			pending = append(pending, f)
		}
	}
	if len(pending) != 1 {
		t.Fatalf("pending findings = %d, want 1: %q", len(pending), messages(rep))
	}
	f := pending[0]
	if f.Seq != 2 || f.Line != 2 || f.Path != "test.jsonl" || f.Method != "tools/call" || f.Tool != "echo" {
		t.Errorf("pending finding at seq %d line %d path %q method %q tool %q; want seq 2 line 2 path test.jsonl, tools/call echo",
			f.Seq, f.Line, f.Path, f.Method, f.Tool)
	}
	if sr := onlySession(t, rep); sr.Counters.Pending != 1 {
		t.Errorf("pending = %d, want 1", sr.Counters.Pending)
	}
}

// TestMRTRStateComparedAsString: requestState is an opaque string (MCP
// 2026-07-28: "the client MUST echo back exactly that value"), and the
// store parks "the issued requestState (string, ...)" and links a retry whose
// requestState is byte-equal to it (capture-store-export.md 6.9). A client
// whose JSON encoder escapes differently (Go writes "<" as \u003c) echoes
// the same string in different raw JSON text.
func TestMRTRStateComparedAsString(t *testing.T) {
	tests := []struct {
		name string
		keys []string
	}{
		{name: "with inputRequests", keys: []string{"q"}},
		{name: "state only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := logOf("s", numbered(
				"c2s 0 "+toolCall("1", "echo", ""),
				"s2c 10 "+rpcResult("1", inputRequired(`"a<b"`, tt.keys...)),
				"c2s 20 "+toolCall("2", "echo", retryParams(`"a\u003cb"`, tt.keys...)),
				"s2c 30 "+rpcResult("2", `{}`),
			)...)
			rep := check(t, checker.Config{}, log)
			sr := onlySession(t, rep)
			sameLines(t, "findings", messages(rep), nil)
			sameTools(t, sr, []checker.ToolStats{{Name: "echo", Calls: 1, RoundTrips: 2, P50Ms: 30, P95Ms: 30, P99Ms: 30, ResultBytes: 2, MaxResultBytes: 2}})
		})
	}
}

// TestMRTRRetryIdOfAnotherCall: a linked retry is no new request, so it
// supersedes nothing (W29 is for new requests, check.md 3.3 C); a call
// already in flight under the id the retry uses is still a call that never
// got an answer, so it stays pending (check.md 3.5: -1 only on an answer, a
// cancel, a supersede or a terminal task state; capture-store-export.md 6.11
// pending = open non-streaming calls).
func TestMRTRRetryIdOfAnotherCall(t *testing.T) {
	log := logOf("s", numbered(
		"c2s 0 "+toolCall("5", "a", ""),
		"c2s 1 "+toolCall("1", "echo", ""),
		"s2c 2 "+rpcResult("1", inputRequired(`"S"`, "q")),
		"c2s 3 "+toolCall("5", "echo", retryParams(`"S"`, "q")),
		"s2c 4 "+rpcResult("5", `{}`),
	)...)
	rep := check(t, checker.Config{}, log)
	sr := onlySession(t, rep)
	if sr.Counters.Pending != 1 {
		t.Errorf("pending = %d, want 1 (tools/call a, id 5)", sr.Counters.Pending)
	}
	var pending []string
	for _, m := range messages(rep) {
		if strings.Contains(m, "mcpsnoop/pending") {
			pending = append(pending, m)
		}
	}
	sameLines(t, "pending findings", pending, []string{"note mcpsnoop/pending session s line 1: tools/call a (id 5) never got a response"})
	if len(sr.Tools) != 2 || sr.Tools[0].Name != "a" || sr.Tools[0].Pending != 1 {
		t.Errorf("tools = %+v, want a with Pending 1", sr.Tools)
	}
}
