package otlpsink

import (
	"net/url"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/export/otlp"
)

// testSpans maps n tools/call records of one session.
func testSpans(n int) []otlp.Span {
	live := otlp.NewLive()
	so := checker.SessionSoFar{ID: "sess-1", Label: "files", Transport: "stdio"}
	start := time.Date(2026, 8, 1, 10, 0, 0, 0, time.UTC)
	out := make([]otlp.Span, n)
	for i := range out {
		r := checker.CallRecord{
			SessionID: "sess-1", Index: i, ID: itoa(i + 1), Method: "tools/call", Name: "read", IsTool: true,
			Status: "ok", State: "completed", Direction: "c2s", Start: start.Add(time.Duration(i) * time.Millisecond),
			End: start.Add(time.Duration(i)*time.Millisecond + 500*time.Microsecond), HasDuration: true, Duration: 500 * time.Microsecond,
		}
		out[i] = live.Span(so, &r)
	}
	return out
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}

// fast are options for tests: short waits, everything else default.
func fast(endpoint string) Options {
	u, err := url.Parse(endpoint)
	if err != nil {
		panic(err)
	}
	return Options{Endpoint: u, BatchDelay: 10 * time.Millisecond, MinBackoff: 5 * time.Millisecond, MaxBackoff: 50 * time.Millisecond}
}

// waitFor polls cond until it holds; past a minute the test fails, naming
// what it waited for, rather than hanging until the test binary's timeout.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
