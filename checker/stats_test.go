package checker_test

import (
	"strconv"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// TestToolStats covers the per-tool statistics (capture-store-export.md
// 6.12): which calls count, errors, pending, nearest-rank percentiles,
// result sizes, and the order of tools.
func TestToolStats(t *testing.T) {
	const (
		okRes      = `{"content":[]}`
		bigRes     = `{"content":[{"type":"text","text":"the longest answer of them all"}]}`
		isErrRes   = `{"content":[{"type":"text","text":"bad"}],"isError":true}`
		lateRes    = `{"content":[{"type":"text","text":"late"}]}`
		lateErrRes = `{"isError":true}`
	)

	// 20 calls of "t" lasting 1..20 ms, requested in a scrambled order so
	// the sample must be sorted.
	var twenty []string
	for i := 0; i < 20; i++ {
		d := (7*i)%20 + 1
		id := strconv.Itoa(i + 1)
		start := 100 * i
		twenty = append(twenty,
			"c2s "+strconv.Itoa(start)+" "+toolCall(id, "t", ""),
			"s2c "+strconv.Itoa(start+d)+" "+rpcResult(id, okRes))
	}

	tests := []struct {
		name   string
		frames []string
		tools  []checker.ToolStats
	}{
		{
			name:   "nearest-rank percentiles over 1..20 ms",
			frames: twenty,
			tools:  []checker.ToolStats{{Name: "t", Calls: 20, RoundTrips: 20, P50Ms: 10, P95Ms: 19, P99Ms: 20, ResultBytes: 20 * len(okRes), MaxResultBytes: len(okRes)}},
		},
		{
			name: "a single sample is every percentile; no sample gives zeros",
			frames: []string{
				"c2s 0 " + toolCall("1", "one", ""),
				"s2c 7 " + rpcResult("1", okRes),
				"c2s 10 " + toolCall("2", "none", ""),
			},
			tools: []checker.ToolStats{
				{Name: "none", Calls: 1, Pending: 1, RoundTrips: 1},
				{Name: "one", Calls: 1, RoundTrips: 1, P50Ms: 7, P95Ms: 7, P99Ms: 7, ResultBytes: len(okRes), MaxResultBytes: len(okRes)},
			},
		},
		{
			name: "calls include pending, superseded and cancelled; only finished calls are sampled",
			frames: []string{
				// ok, 10 ms
				"c2s 0 " + toolCall("1", "a", ""),
				"s2c 10 " + rpcResult("1", okRes),
				// JSON-RPC error, 20 ms: an error, sampled, 0 bytes
				"c2s 100 " + toolCall("2", "a", ""),
				"s2c 120 " + rpcError("2", -32603, "boom"),
				// isError result, 30 ms: an error, sampled, its bytes count
				"c2s 200 " + toolCall("3", "a", ""),
				"s2c 230 " + rpcResult("3", isErrRes),
				// pending
				"c2s 300 " + toolCall("4", "a", ""),
				// superseded at 5 s, then the new call answered 40 ms later
				"c2s 400 " + toolCall("5", "a", ""),
				"c2s 5400 " + toolCall("5", "a", ""),
				"s2c 5440 " + rpcResult("5", bigRes),
				// cancelled, never answered
				"c2s 6000 " + toolCall("6", "a", ""),
				"c2s 6005 " + cancelNote("6"),
				// cancelled, then answered late after 50 ms: sampled
				"c2s 7000 " + toolCall("7", "a", ""),
				"c2s 7010 " + cancelNote("7"),
				"s2c 7050 " + rpcResult("7", lateRes),
				// a tool whose name sorts first, and a non-tool request
				"c2s 8000 " + toolCall("8", "Z", ""),
				"s2c 8001 " + rpcResult("8", okRes),
				"c2s 8100 " + rpcRequest("9", "resources/read", `{"uri":"file:///x"}`),
				"s2c 8200 " + rpcResult("9", `{"contents":[]}`),
			},
			tools: []checker.ToolStats{
				{Name: "Z", Calls: 1, RoundTrips: 1, P50Ms: 1, P95Ms: 1, P99Ms: 1, ResultBytes: len(okRes), MaxResultBytes: len(okRes)},
				// sample: 10, 20, 30, 40, 50
				{
					Name: "a", Calls: 8, Errors: 2, Pending: 1, RoundTrips: 8,
					P50Ms: 30, P95Ms: 50, P99Ms: 50,
					ResultBytes:    len(okRes) + len(isErrRes) + len(bigRes) + len(lateRes),
					MaxResultBytes: len(bigRes),
				},
			},
		},
		{
			name: "a superseded call is not sampled; a cancelled-then-late-answered one is, errors included",
			frames: []string{
				"c2s 0 " + toolCall("1", "x", ""),
				"c2s 1000 " + toolCall("1", "x", ""),
				"s2c 1005 " + rpcResult("1", okRes),
				"c2s 2000 " + toolCall("2", "x", ""),
				"c2s 2010 " + cancelNote("2"),
				"s2c 2050 " + rpcResult("2", lateErrRes),
				"c2s 3000 " + toolCall("3", "x", ""),
				"c2s 3001 " + cancelNote("3"),
			},
			tools: []checker.ToolStats{{
				Name: "x", Calls: 4, Errors: 1, RoundTrips: 4, P50Ms: 5, P95Ms: 50, P99Ms: 50,
				ResultBytes: len(okRes) + len(lateErrRes), MaxResultBytes: len(lateErrRes),
			}},
		},
		{
			name: "a late JSON-RPC error adds an error and no bytes",
			frames: []string{
				"c2s 0 " + toolCall("1", "x", ""),
				"c2s 10 " + cancelNote("1"),
				"s2c 30 " + rpcError("1", -32800, "cancelled"),
			},
			tools: []checker.ToolStats{{Name: "x", Calls: 1, Errors: 1, RoundTrips: 1, P50Ms: 30, P95Ms: 30, P99Ms: 30}},
		},
		{
			name: "an MRTR call counts its final result only",
			frames: []string{
				"c2s 0 " + toolCall("1", "m", ""),
				"s2c 10 " + rpcResult("1", inputRequired(`"a rather long request state that must not be counted"`, "q")),
				"c2s 20 " + toolCall("2", "m", retryParams(`"a rather long request state that must not be counted"`, "q")),
				"s2c 30 " + rpcResult("2", okRes),
			},
			tools: []checker.ToolStats{{Name: "m", Calls: 1, RoundTrips: 2, P50Ms: 30, P95Ms: 30, P99Ms: 30, ResultBytes: len(okRes), MaxResultBytes: len(okRes)}},
		},
		{
			name: "a task-backed call is sampled up to its terminal notification",
			frames: []string{
				"c2s 0 " + toolCall("1", "job", ""),
				"s2c 5 " + rpcResult("1", `{"resultType":"task","taskId":"t1","status":"working"}`),
				"s2c 900 " + `{"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"t1","status":"completed","result":{"content":[]}}}`,
				"c2s 1000 " + toolCall("2", "job", ""),
				"s2c 1005 " + rpcResult("2", `{"resultType":"task","taskId":"t2","status":"working"}`),
			},
			tools: []checker.ToolStats{{Name: "job", Calls: 2, Pending: 1, RoundTrips: 2, P50Ms: 900, P95Ms: 900, P99Ms: 900, ResultBytes: len(okRes), MaxResultBytes: len(okRes)}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := check(t, checker.Config{}, logOf("s", numbered(tt.frames...)...))
			sameTools(t, onlySession(t, rep), tt.tools)
		})
	}
}

// TestToolStatsSubMillisecond checks that percentiles keep sub-millisecond
// precision (they are reported in ms as floats).
func TestToolStatsSubMillisecond(t *testing.T) {
	log := `{"session_id":"s","seq":1,"ts":"2026-07-28T12:00:00.000000Z","direction":"c2s","raw":` + toolCall("1", "f", "") + "}\n" +
		`{"session_id":"s","seq":2,"ts":"2026-07-28T12:00:00.001500Z","direction":"s2c","raw":` + rpcResult("1", `{}`) + "}\n"
	sr := onlySession(t, check(t, checker.Config{}, log))
	sameTools(t, sr, []checker.ToolStats{{Name: "f", Calls: 1, RoundTrips: 1, P50Ms: 1.5, P95Ms: 1.5, P99Ms: 1.5, ResultBytes: 2, MaxResultBytes: 2}})
}
