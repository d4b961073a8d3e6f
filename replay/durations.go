package replay

import (
	"slices"
	"time"

	"github.com/mcpsnoop/mcpsnoop/diff"
)

// judgeDurations finds the tools whose calls got notably slower or
// faster, and marks their calls. A tool is judged on the median of its
// calls timed on both sides (replayed, answered, and not server/discover,
// whose time is mostly the server starting), so that one call a busy
// machine held up does not make the tool slow; the medians are compared by
// diff's rule (at least the threshold and the ratio apart). A slower tool
// is a regression only with FailOnSlower.
func judgeDurations(calls []CallVerdict, o VerifyOptions) []ToolDuration {
	type tool struct {
		method, name  string
		before, after []float64
		calls         []int // indexes into calls
	}
	var tools []*tool
	byKey := map[string]*tool{}
	for i := range calls {
		c := &calls[i]
		if !c.Replayed() || c.BeforeMS == nil || c.AfterMS == nil || c.Method == "server/discover" {
			continue
		}
		key := c.Method + "\x00" + c.Name
		t := byKey[key]
		if t == nil {
			t = &tool{method: c.Method, name: c.Name}
			byKey[key] = t
			tools = append(tools, t)
		}
		t.before = append(t.before, *c.BeforeMS)
		t.after = append(t.after, *c.AfterMS)
		t.calls = append(t.calls, i)
	}
	var before, after diff.Side
	for _, t := range tools {
		key := t.method + "\x00" + t.name
		before.Calls = append(before.Calls, diff.Call{Tool: key, Duration: msDuration(median(t.before)), HasDuration: true})
		after.Calls = append(after.Calls, diff.Call{Tool: key, Duration: msDuration(median(t.after)), HasDuration: true})
	}
	moved := map[string]bool{}
	for _, d := range diff.Compare(before, after, o.Durations).Durations {
		moved[d.Tool] = true
	}
	out := []ToolDuration{}
	for _, t := range tools {
		if !moved[t.method+"\x00"+t.name] {
			continue
		}
		d := ToolDuration{Method: t.method, Name: t.name, Calls: len(t.calls), BeforeMS: median(t.before), AfterMS: median(t.after)}
		d.Slower = d.AfterMS > d.BeforeMS
		d.Faster = !d.Slower
		d.Regression = d.Slower && o.FailOnSlower
		for _, i := range t.calls {
			calls[i].Slower, calls[i].Faster = d.Slower, d.Faster
			calls[i].Regression = calls[i].Regression || d.Regression
		}
		out = append(out, d)
	}
	return out
}

// median is the middle value of v (not empty), or the mean of the two
// middle ones.
func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func msDuration(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }
