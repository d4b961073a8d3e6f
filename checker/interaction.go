package checker

import (
	"sort"
	"strconv"
	"time"

	"github.com/tidwall/gjson"
)

// An interaction is one logical operation: a call and the MRTR retries the
// matcher linked to it. Its timing splits as it goes into the server's share
// (each hop from request to answer) and the client's turnaround (each gap
// from an answer to the retry it led to), so the two always add up to the
// wall clock without a second pass over the log.

// maxHops bounds the per-hop breakdown kept for one interaction; the totals
// stay exact past it.
const maxHops = 64

// maxInteractions bounds how many multi-hop interactions a session report
// lists; InteractionsTruncated counts the rest.
const maxInteractions = 1000

// Interaction is a multi-round-trip operation in the check report (shape:
// spec/interfaces.md, "Interactions").
type Interaction struct {
	RootID             string  `json:"root_id"`
	Method             string  `json:"method"`
	Name               string  `json:"name"`
	RoundTrips         int     `json:"round_trips"`
	Outcome            string  `json:"outcome"` // completed, failed, pending or cancelled
	DurationMs         float64 `json:"duration_ms"`
	ServerTimeMs       float64 `json:"server_time_ms"`
	ClientTurnaroundMs float64 `json:"client_turnaround_ms"`
	HopsTruncated      bool    `json:"hops_truncated"`
	Hops               []Hop   `json:"hops"`
}

// Hop is one request of an interaction and the answer it got.
type Hop struct {
	RequestID          string   `json:"request_id"`
	RequestTS          string   `json:"request_ts"`
	ResponseTS         string   `json:"response_ts,omitempty"` // "" while unanswered
	ServerTimeMs       float64  `json:"server_time_ms"`
	ClientTurnaroundMs float64  `json:"client_turnaround_ms"`
	Asked              []string `json:"asked"` // methods an input_required answer asked for
}

// hop is the engine's record of one request of a chain.
type hop struct {
	requestID         string
	requestTS, answer time.Time
	turnaround        time.Duration
	asked             []string
}

// interactionState is kept on every call; a plain call is a one-hop
// interaction.
type interactionState struct {
	hops          []hop
	hopsTruncated bool
	serverTime    time.Duration
	turnaround    time.Duration
	lastAnswer    time.Time // when the latest hop was answered
	lastSeen      time.Time // latest frame of the chain
	answered      bool      // the latest hop has its answer
	// untimed says which frame of the chain had no ts (first found), so
	// that its server time cannot be known: "" when every one had one.
	untimed string
}

// noTS notes a frame of the chain without a ts, the first one only.
func (it *interactionState) noTS(ts time.Time, what string) {
	if ts.IsZero() && it.untimed == "" {
		it.untimed = what
	}
}

// startHop records a request of the chain: the first one, or a linked retry.
func (it *interactionState) startHop(id string, ts time.Time, first bool) {
	h := hop{requestID: id, requestTS: ts}
	if first {
		it.noTS(ts, "its request has no ts")
	} else {
		it.noTS(ts, "the request of its hop "+strconv.Itoa(len(it.hops)+1)+" has no ts")
	}
	if !first {
		h.turnaround = duration(it.lastAnswer, ts)
		it.turnaround += h.turnaround
	}
	it.answered = false
	it.lastSeen = ts
	if len(it.hops) < maxHops {
		it.hops = append(it.hops, h)
	} else {
		it.hopsTruncated = true
	}
}

// answerHop records the answer to the latest request; asked lists what an
// input_required answer asked for.
func (it *interactionState) answerHop(ts time.Time, asked []string) {
	if it.answered {
		return
	}
	it.answered = true
	if n := len(it.hops); n <= 1 {
		it.noTS(ts, "its answer has no ts")
	} else {
		it.noTS(ts, "the answer to its hop "+strconv.Itoa(n)+" has no ts")
	}
	var start time.Time
	if n := len(it.hops); n > 0 && !it.hopsTruncated {
		h := &it.hops[n-1]
		h.answer, h.asked = ts, asked
		start = h.requestTS
	} else {
		start = it.lastSeen
	}
	it.serverTime += duration(start, ts)
	it.lastAnswer, it.lastSeen = ts, ts
}

// extend adds server time after the last answer: a task works on past the
// handle it answered with until its terminal status.
func (it *interactionState) extend(ts time.Time) {
	it.noTS(ts, "its task's final status has no ts")
	it.serverTime += duration(it.lastSeen, ts)
	it.lastAnswer, it.lastSeen = ts, ts
}

// askedMethods lists the methods an input_required answer asks for, sorted.
func askedMethods(m *message) []string {
	var out []string
	m.resultField("inputRequests").ForEach(func(_, v gjson.Result) bool {
		if method := v.Get("method"); method.Type == gjson.String {
			out = append(out, clone(method.Str))
		}
		return true
	})
	sort.Strings(out)
	return out
}

type keptInteraction struct {
	ordinal int // the root request's position, for report order
	Interaction
}

// sortedInteractions returns the session's multi-hop interactions in the
// order their first requests were made.
func (s *session) sortedInteractions() []Interaction {
	sort.Slice(s.interactions, func(i, j int) bool { return s.interactions[i].ordinal < s.interactions[j].ordinal })
	out := make([]Interaction, len(s.interactions))
	for i, k := range s.interactions {
		out[i] = k.Interaction
	}
	return out
}

// interactionOf builds the report view of a multi-hop call.
func interactionOf(c *call) Interaction {
	it := &c.it
	out := Interaction{
		RootID: c.key.id, Method: c.method, Name: c.tool, RoundTrips: c.roundTrips,
		Outcome:            outcomeOf(c),
		DurationMs:         ms(it.serverTime + it.turnaround),
		ServerTimeMs:       ms(it.serverTime),
		ClientTurnaroundMs: ms(it.turnaround),
		HopsTruncated:      it.hopsTruncated,
	}
	for _, h := range it.hops {
		v := Hop{RequestID: h.requestID, RequestTS: stamp(h.requestTS), ClientTurnaroundMs: ms(h.turnaround), Asked: h.asked}
		if !h.answer.IsZero() {
			v.ResponseTS = stamp(h.answer)
			v.ServerTimeMs = ms(duration(h.requestTS, h.answer))
		}
		if v.Asked == nil {
			v.Asked = []string{}
		}
		out.Hops = append(out.Hops, v)
	}
	return out
}

func outcomeOf(c *call) string {
	switch c.state {
	case stateCompleted:
		return "completed"
	case stateFailed:
		return "failed"
	case stateCancelled:
		return "cancelled"
	}
	return "pending" // still open, or superseded: it never got its answer
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339Nano)
}

// ended is called once for every call when it leaves play: settled,
// cancelled, superseded, or still open when the session closes. Multi-hop
// calls join the report and the round-trip assertion judges every tools/call.
func (s *session) ended(c *call) {
	s.releaseRequestForBlame(c)
	s.closeElicitations(c)
	s.report(c, false)
	if c.isTool {
		s.asserts.roundTrips(c)
	}
	if c.roundTrips < 2 {
		return
	}
	if len(s.interactions) < maxInteractions {
		s.interactions = append(s.interactions, keptInteraction{c.ordinal, interactionOf(c)})
	} else {
		s.interactionsTruncated++
	}
}
