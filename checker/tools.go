package checker

import (
	"math"
	"sort"
	"time"
)

// toolAgg accumulates one tool's calls in a session.
type toolAgg struct {
	calls, errors, pending, roundTrips int
	resultBytes, maxResultBytes        int
	durations                          []time.Duration // finished calls only
}

func (s *session) tool(name string) *toolAgg {
	t := s.tools[name]
	if t == nil {
		t = &toolAgg{}
		s.tools[clone(name)] = t
	}
	return t
}

// finished records a call that got its final answer (or a late one): it
// joins its tool's latency sample and the duration assertion.
func (s *session) finished(c *call, resultBytes int) {
	if !c.isTool {
		return
	}
	d := duration(c.start, c.end)
	t := s.tool(c.tool)
	if c.errored {
		t.errors++
	}
	t.resultBytes += resultBytes
	t.maxResultBytes = max(t.maxResultBytes, resultBytes)
	t.durations = append(t.durations, d)
	s.asserts.finished(c, d)
}

// toolStats summarises every tool, sorted by name.
func (s *session) toolStats() []ToolStats {
	out := make([]ToolStats, 0, len(s.tools))
	for name, t := range s.tools {
		sort.Slice(t.durations, func(i, j int) bool { return t.durations[i] < t.durations[j] })
		out = append(out, ToolStats{
			Name: name, Calls: t.calls, Errors: t.errors, Pending: t.pending,
			P50Ms: percentileMs(t.durations, 0.50), P95Ms: percentileMs(t.durations, 0.95),
			P99Ms:      percentileMs(t.durations, 0.99),
			RoundTrips: t.roundTrips, ResultBytes: t.resultBytes, MaxResultBytes: t.maxResultBytes,
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// percentileMs is the nearest-rank percentile of sorted, in milliseconds:
// index ceil(p*n)-1, clamped at 0; 0 without a sample.
func percentileMs(sorted []time.Duration, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	i = max(0, min(i, len(sorted)-1))
	return float64(sorted[i]) / float64(time.Millisecond)
}
