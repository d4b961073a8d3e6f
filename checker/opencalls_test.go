package checker_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// A session keeps at most 10,000 calls in flight: the requests past that
// are counted (untracked_requests) and said once, a note; their answers
// are not judged (no "no matching request" for them), while the calls
// kept settle as usual.
func TestOpenCallsAreBounded(t *testing.T) {
	const kept, extra = 10_000, 25
	var b strings.Builder
	seq := 0
	frame := func(dir, raw string) {
		seq++
		fmt.Fprintf(&b, `{"session_id":"s","server_label":"srv","seq":%d,"direction":%q,"transport":"stdio","raw":%s}`+"\n", seq, dir, raw)
	}
	for i := range kept + extra {
		frame("s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i))
	}
	for i := kept - 5; i < kept+extra; i++ { // answers to 5 kept calls and to every untracked one
		frame("c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{}}`, i))
	}
	rep := check(t, checker.Config{}, b.String())
	c := rep.Sessions[0].Counters
	if c.Pending != kept-5 || c.Untracked != extra || c.Warnings != 0 {
		t.Errorf("counters %+v", c)
	}
	notes := 0
	for _, f := range rep.Findings {
		if strings.Contains(f.Message, "request not tracked") {
			notes++
			if f.Level != checker.LevelNote || f.Seq != kept+1 || f.Party != checker.PartyClient {
				t.Errorf("finding %+v", f)
			}
		}
	}
	if notes != 1 {
		t.Errorf("%d notes about untracked requests, want 1", notes)
	}
}
