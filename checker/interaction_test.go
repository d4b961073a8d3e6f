package checker_test

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

type event struct {
	at   time.Duration
	dir  string
	body string
}

// randomChains builds a session of interleaved operations: linked MRTR
// chains of random length (some abandoned after an input_required answer),
// plain calls, and pairs of parked calls whose state-less retries are
// ambiguous and must not link. It returns the log and, per tool name, the
// round trips a linked chain made.
func randomChains(r *rand.Rand) (string, map[string]int) {
	var events []event
	want := map[string]int{}
	id := 0
	nextID := func() int { id++; return id }
	ops := 1 + r.Intn(6)
	for op := 0; op < ops; op++ {
		t := time.Duration(r.Intn(5000)) * time.Millisecond
		tool := fmt.Sprintf("tool%d", op)
		call := func(rid int, params string) {
			events = append(events, event{t, "c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q%s}}`, rid, tool, params)})
		}
		answer := func(rid int, result string) {
			events = append(events, event{t, "s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":%s}`, rid, result)})
		}
		step := func(max int) { t += time.Duration(1+r.Intn(max)) * time.Millisecond }
		switch kind := r.Intn(3); kind {
		case 0, 1: // a linked chain, finished or abandoned
			hops := 1 + r.Intn(5)
			abandoned := kind == 1 && hops > 1
			rid := nextID()
			call(rid, "")
			for h := 1; h <= hops; h++ {
				step(400)
				if h == hops && !abandoned {
					answer(rid, `{"content":[]}`)
					break
				}
				answer(rid, fmt.Sprintf(`{"resultType":"input_required","requestState":"%s-%d","inputRequests":{"q":{"method":"elicitation/create","params":{}}}}`, tool, h))
				if h == hops {
					break // the client never came back
				}
				step(3000)
				rid = nextID()
				call(rid, fmt.Sprintf(`,"requestState":"%s-%d","inputResponses":{"q":{"action":"accept"}}`, tool, h))
			}
			want[tool] = hops
		case 2: // two parked twins, then a retry that could continue either
			a, b := nextID(), nextID()
			call(a, "")
			call(b, "")
			step(100)
			answer(a, `{"resultType":"input_required","inputRequests":{"q":{"method":"elicitation/create","params":{}}}}`)
			answer(b, `{"resultType":"input_required","inputRequests":{"q":{"method":"elicitation/create","params":{}}}}`)
			step(100)
			c := nextID()
			call(c, `,"inputResponses":{"q":{"action":"accept"}}`)
			step(100)
			answer(c, `{"content":[]}`)
		}
	}
	sort.SliceStable(events, func(i, j int) bool { return events[i].at < events[j].at })
	frames := make([]string, len(events))
	for i, e := range events {
		frames[i] = fmt.Sprintf("%d %s %d %s", i+1, e.dir, e.at/time.Millisecond, e.body)
	}
	return logOf("s", frames...), want
}

// Property: every interaction's server time and client turnaround add up
// to its duration, linked chains keep their round trips, and a retry the
// matcher refused is never folded into another operation.
func TestInteractionProperties(t *testing.T) {
	for seed := int64(1); seed <= 300; seed++ {
		r := rand.New(rand.NewSource(seed))
		log, want := randomChains(r)
		rep := check(t, checker.Config{}, log)
		got := map[string]int{}
		for _, it := range rep.Sessions[0].Interactions {
			if d := it.ServerTimeMs + it.ClientTurnaroundMs - it.DurationMs; d > 1e-6 || d < -1e-6 {
				t.Fatalf("seed %d: %s: server %v + client %v != duration %v", seed, it.Name, it.ServerTimeMs, it.ClientTurnaroundMs, it.DurationMs)
			}
			if len(it.Hops) != it.RoundTrips {
				t.Fatalf("seed %d: %s: %d hops for %d round trips", seed, it.Name, len(it.Hops), it.RoundTrips)
			}
			got[it.Name] = it.RoundTrips
		}
		for tool, hops := range want {
			if hops >= 2 && got[tool] != hops {
				t.Fatalf("seed %d: %s: %d round trips, want %d\n%s", seed, tool, got[tool], hops, log)
			}
		}
		for tool := range got {
			if want[tool] < 2 {
				t.Fatalf("seed %d: %s folded an unlinked retry into an interaction\n%s", seed, tool, log)
			}
		}
		for _, ts := range rep.Sessions[0].Tools {
			if hops, chained := want[ts.Name]; chained && ts.Calls != 1 {
				t.Fatalf("seed %d: %s counted %d calls for one chain of %d", seed, ts.Name, ts.Calls, hops)
			}
		}
	}
}

// An abandoned chain reports the hops it made, pending, with no invented
// final hop; its duration ends at the last answer seen.
func TestAbandonedChain(t *testing.T) {
	frames := strings.Split(strings.TrimSpace(logOf("demo",
		`1 c2s 0 {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"book_flight"}}`,
		`2 s2c 400 {"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"st-1","inputRequests":{"confirm":{"method":"elicitation/create","params":{}}}}}`,
		`3 c2s 12400 {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"book_flight","requestState":"st-1","inputResponses":{"confirm":{"action":"accept"}}}}`,
		`4 s2c 12700 {"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","requestState":"st-2","inputRequests":{"seat":{"method":"elicitation/create","params":{}}}}}`,
	)), "\n")
	rep := check(t, checker.Config{MaxRoundTrips: 1}, strings.Join(frames, "\n")+"\n")
	its := rep.Sessions[0].Interactions
	if len(its) != 1 || its[0].Outcome != "pending" || its[0].RoundTrips != 2 || len(its[0].Hops) != 2 {
		t.Fatalf("interactions = %+v", its)
	}
	it := its[0]
	if it.ServerTimeMs != 700 || it.ClientTurnaroundMs != 12000 || it.DurationMs != 12700 {
		t.Errorf("timing = server %v client %v duration %v", it.ServerTimeMs, it.ClientTurnaroundMs, it.DurationMs)
	}
	// Open chains count for --max-round-trips.
	if rep.Verdict != checker.Failed || !strings.Contains(rep.Sessions[0].Assertions[0].Message, `tool "book_flight" took 2`) {
		t.Errorf("assertions = %+v", rep.Sessions[0].Assertions)
	}
}

// A retry that changed its requestState is still linked (with W28), and the
// interaction keeps its hops.
func TestChainWithStateIssueKeepsHops(t *testing.T) {
	log := logOf("s",
		`1 c2s 0 {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"pay"}}`,
		`2 s2c 100 {"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"abc","inputRequests":{"ok":{"method":"elicitation/create","params":{}}}}}`,
		`3 c2s 2100 {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"pay","requestState":"tampered","inputResponses":{"ok":{"action":"accept"}}}}`,
		`4 s2c 2300 {"jsonrpc":"2.0","id":2,"result":{"content":[]}}`,
	)
	rep := check(t, checker.Config{}, log)
	its := rep.Sessions[0].Interactions
	if len(its) != 1 || its[0].RoundTrips != 2 || its[0].ServerTimeMs != 300 || its[0].ClientTurnaroundMs != 2000 {
		t.Fatalf("interactions = %+v", its)
	}
	if !strings.Contains(strings.Join(messages(rep), "\n"), "MRTR retry changed requestState") {
		t.Errorf("findings = %v", messages(rep))
	}
}
