package checker

import (
	"time"
)

// callState is where a call stands (capture-store-export.md 6.4).
type callState uint8

const (
	statePending callState = iota
	stateCompleted
	stateFailed
	stateSuperseded
	stateCancelled
	stateStreaming
)

// callKey identifies a call: the request's direction, the raw JSON text of
// its id and the HTTP connection. A null id also carries the request's seq so
// that nothing can answer it.
type callKey struct {
	dir     string
	id      string
	conn    string
	nullSeq uint64
}

// call is one request and whatever settled it. Strings are cloned from the
// frame so a call never pins a whole envelope in memory.
type call struct {
	key         callKey
	aliases     []callKey // keys of linked MRTR retries, answered as this call
	method      string
	tool        string // params.name of a tools/call
	isTool      bool
	start       time.Time
	end         time.Time
	cancelledAt time.Time
	state       callState
	// Where the request sits, for the pending finding.
	seq     uint64
	ordinal int // frame position within the session
	path    string
	line    int

	cursored bool // a tools/list request for a later page (it extends the inventory)
	wireTask bool // the request asked to run as a task (params.task): its answer is a CreateTaskResult
	// What rules about the answer need to know of the request.
	revision      string // declared protocol revision ("" for a legacy request)
	rev           string // the revision its exchange is judged under (frame revision of the request)
	clientRev     string // for a server's request: the revision the client's side set (W41, W42)
	metaCaps      string // raw _meta clientCapabilities ("" when absent)
	hasMetaCaps   bool
	retryRequest  bool   // carried a non-null inputResponses or requestState
	cursor        string // params.cursor as given ("" when none)
	progressToken string // raw JSON of params._meta.progressToken ("" when none)
	answered      bool   // got its first real answer, or a task handle
	errored       bool
	lateResult    bool
	taskID        string
	roundTrips    int
	park          *parking // set while waiting on an input_required answer
	it            interactionState
	elicits       []*Elicitation // questions of the current round, not yet answered
	index         int            // position among the session's calls
	args          []byte         // params.arguments, kept only for Config.OnCall
	taskCancelled bool

	// Who is at fault for a refusal of the request (blame.go).
	faulty         bool    // the request broke a catalogue rule
	headerMismatch bool    // its routing headers disagreed with its body
	mustRefuse     refusal // what a 2026-07-28 server must refuse it for (stateless.go)
	foreignOrigin  bool    // its Origin named another site than the loopback (W50)
	foreignHost    bool    // and so did its Host
	blameRaw       []byte  // a copy of a small request, while the call is open
	blameRev       string  // the revision it is judged under

	// Kept for exports (Config.KeepBodies), cloned from their frames.
	params, result, errRaw []byte
	toolError              bool   // a result marked isError was seen
	taskStatus             string // the task's last reported status
	cancelReason           string
}

// open reports whether the call can still take its first answer.
func (c *call) open() bool {
	return c.state == statePending || c.state == stateStreaming
}

// subject names the call in messages: "<method> <tool> (id <id>)".
func (c *call) subject() string {
	s := c.method
	if s == "" {
		s = "call"
	}
	if c.isTool && c.tool != "" {
		s += " " + c.tool
	}
	if c.key.id != "" {
		s += " (id " + c.key.id + ")"
	}
	return s
}

// settledWindow bounds how many answered calls a session remembers for
// spotting duplicate and late responses. Older ones are forgotten, so a
// duplicate arriving after this many other calls settled reads as unmatched.
// It keeps check's memory flat however long the log is.
const settledWindow = 1 << 15

// callTable holds a session's calls: open ones until they settle, then a
// bounded window of settled ones. A settled entry keeps the call itself only
// while a late answer can still come (it was cancelled); otherwise just what
// a duplicate-response warning names.
type callTable struct {
	open    map[callKey]*call
	pending map[*call]struct{} // calls still waiting for their answer
	settled map[callKey]settledCall
	ring    []callKey
	next    int
}

type settledCall struct {
	index        int
	method, tool string
	revision     string
	cancelled    *call // set while a late answer is still possible
}

func newCallTable() callTable {
	return callTable{open: map[callKey]*call{}, pending: map[*call]struct{}{}, settled: map[callKey]settledCall{}}
}

// retire moves a call and its aliases from the open set to the window.
func (t *callTable) retire(c *call) {
	delete(t.pending, c)
	t.retireKey(c.key, c)
	for _, k := range c.aliases {
		t.retireKey(k, c)
	}
}

func (t *callTable) retireKey(k callKey, c *call) {
	if t.open[k] != c {
		return // the key was taken over by a newer call
	}
	delete(t.open, k)
	if k.nullSeq != 0 {
		return // nothing can ever answer it
	}
	entry := settledCall{index: c.index, method: c.method, tool: c.tool, revision: c.revision}
	if c.state == stateCancelled && !c.answered {
		entry.cancelled = c
	}
	if _, known := t.settled[k]; !known {
		if len(t.ring) < settledWindow {
			t.ring = append(t.ring, k)
		} else {
			delete(t.settled, t.ring[t.next])
			t.ring[t.next] = k
			t.next = (t.next + 1) % settledWindow
		}
	}
	t.settled[k] = entry
}

// answeredLate records that a cancelled call got its late answer: later
// answers are duplicates.
func (t *callTable) answeredLate(k callKey) {
	if e, ok := t.settled[k]; ok {
		e.cancelled = nil
		t.settled[k] = e
	}
}

// internDir returns a direction that does not alias the frame's buffer.
func internDir(dir string) string {
	switch dir {
	case "c2s":
		return "c2s"
	case "s2c":
		return "s2c"
	}
	return clone(dir)
}
