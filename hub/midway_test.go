package hub

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// A session the hub meets midway (its first frames went by before the
// hub knew it, or were forgotten: past maxSessions sessions in one log)
// is not counted as one that began, however it is met again.
func TestHubSessionMetMidwayNotBegun(t *testing.T) {
	m := NewMetrics()
	m.Count()
	long := newLog("long-1-aaaa", "files", "stdio").meta("/srv/files", "/home/me").init()
	eng := checker.New(m.Config("long.jsonl"))
	feedEngine(t, eng, long.take())
	var others strings.Builder
	for i := 0; i < maxSessions+100; i++ {
		others.WriteString(newLog("other-"+strconv.Itoa(i), "other", "stdio").frame("c2s", 0, `"raw":{"jsonrpc":"2.0","method":"notifications/initialized"}`).String())
	}
	feedEngine(t, eng, others.String())
	// The hub has forgotten long's server by now; its next frames are the
	// middle of a session.
	feedEngine(t, eng, long.toolCall(1, "read").result(1, time.Millisecond, `{"content":[]}`).take())
	fams, _ := scrape(t, (&Hub{Metrics: m}).Handler())
	// Met again, it may read as another server (its meta frame is long
	// gone): every series of the label counts.
	begun := 0.0
	for _, s := range fams[MetricSessions].GetMetric() {
		for _, lp := range s.GetLabel() {
			if lp.GetName() == "server" && lp.GetValue() == "files" {
				begun += s.GetCounter().GetValue()
			}
		}
	}
	if begun != 1 {
		t.Errorf("sessions of files: %v, want 1 (begun once, met again midway)", begun)
	}
	if got := counter(fams, MetricSessions, labels("server", "other")); got != maxSessions+100 {
		t.Errorf("sessions of other: %v, want %d", got, maxSessions+100)
	}
}
