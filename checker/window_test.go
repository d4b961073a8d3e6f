package checker_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// settledWindow mirrors checker's documented limit (call.go): a session
// remembers the last 32768 settled calls for spotting duplicate and late
// responses; a duplicate arriving after that many other calls settled reads as
// unmatched. This keeps check's memory flat on long logs.
const settledWindow = 1 << 15

// windowLog is a log whose first call (id 0, or cancelled when cancelFirst)
// is followed by others answered calls (ids 1..others), then tail frames.
func windowLog(cancelFirst bool, others int, tail ...string) string {
	var b strings.Builder
	seq := 0
	line := func(dir, raw string) {
		seq++
		b.WriteString(`{"session_id":"w","seq":` + strconv.Itoa(seq) + `,"direction":"` + dir + `","raw":` + raw + "}\n")
	}
	line("c2s", rpcRequest("0", "ping", `{}`))
	if cancelFirst {
		line("c2s", cancelNote("0"))
	} else {
		line("s2c", rpcResult("0", `{}`))
	}
	for i := 1; i <= others; i++ {
		id := strconv.Itoa(i)
		line("c2s", rpcRequest(id, "ping", `{}`))
		line("s2c", rpcResult(id, `{}`))
	}
	for _, raw := range tail {
		line("s2c", raw)
	}
	return b.String()
}

func TestSettledWindow(t *testing.T) {
	const (
		duplicate = "duplicate response for the same id"
		unmatched = "response id has no matching request"
	)
	tests := []struct {
		name        string
		cancelFirst bool
		others      int
		tail        string
		want        string // the warning on the tail frame
		lateResults int
	}{
		{name: "a duplicate within the window", others: settledWindow - 1, tail: rpcResult("0", `{}`), want: duplicate},
		{name: "a duplicate once the window has moved past it", others: settledWindow, tail: rpcResult("0", `{}`), want: unmatched},
		{name: "a duplicate long after", others: settledWindow + 7000, tail: rpcResult("0", `{}`), want: unmatched},
		{name: "a duplicate of a recent call is still one", others: settledWindow + 7000, tail: rpcResult(strconv.Itoa(settledWindow+7000), `{}`), want: duplicate},
		{name: "a late answer within the window", cancelFirst: true, others: settledWindow - 1, tail: rpcResult("0", `{}`), lateResults: 1},
		{name: "a late answer after the window is unmatched", cancelFirst: true, others: settledWindow + 1, tail: rpcResult("0", `{}`), want: unmatched},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep := check(t, checker.Config{FailOn: []checker.Signal{checker.SignalWarn}}, windowLog(tt.cancelFirst, tt.others, tt.tail))
			sr := onlySession(t, rep)
			last := uint64(2 + 2*tt.others + 1)
			var want []string
			if tt.want != "" {
				want = []string{"error mcpsnoop/warn session w line " + strconv.FormatUint(last, 10) + ": " + tt.want}
			}
			var got []string
			for _, m := range messages(rep) {
				if !strings.Contains(m, "late-result") {
					got = append(got, m)
				}
			}
			sameLines(t, "findings", got, want)
			if sr.Counters.LateResults != tt.lateResults {
				t.Errorf("late results = %d, want %d", sr.Counters.LateResults, tt.lateResults)
			}
			if sr.Counters.Pending != 0 || sr.Counters.Errors != 0 {
				t.Errorf("counters = %+v", sr.Counters)
			}
		})
	}
}
