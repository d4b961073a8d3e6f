package viewer

import (
	"encoding/json"
	"time"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

// Call is what the view knows of one call: pending until the engine
// reports how it ended.
type Call struct {
	Index       int
	Status      string // pending until the engine's record arrives
	Duration    time.Duration
	HasDuration bool
	Done        bool  // the record arrived
	rows        int32 // rows still held that belong to it
}

// Session is one captured session.
type Session struct {
	ID, Label, Transport string
	// Path is the log the session was read from ("" for stdin); the live
	// view re-reads it to build the panels.
	Path string
	// Command and Cwd come from the stdio shim's meta frame.
	Command []string
	Cwd     string
	// Rows holds the frames still in memory, oldest first; Dropped counts
	// the older ones let go to stay inside the frame limit.
	Rows    []*Row
	Dropped int
	// Report is the engine's summary, set when the whole log was read at
	// once (open); nil in the live view, which rebuilds it on demand.
	Report *checker.SessionReport

	First, Last time.Time
	// Counters over every frame seen, dropped ones included.
	Frames, Calls, Pending, Errors, Warnings int
	// Missing counts the frames lost to gaps in seq.
	Missing int
	lastSeq uint64

	calls map[int]*Call
	seen  time.Time // when the store first heard of it (list order)
}

// Limits bound what a store holds. Zero means unbounded.
type Limits struct {
	// BodyBytes is how many bytes of frame bodies are kept; past it the
	// oldest bodies are released (their rows stay).
	BodyBytes int64
	// MaxFrames is how many rows are kept in all; past it the oldest rows
	// are dropped (their counts stay).
	MaxFrames int
}

// LiveLimits are the live view's bounds: 64 MiB of bodies, 200,000 frames.
var LiveLimits = Limits{BodyBytes: 64 << 20, MaxFrames: 200_000}

// Store holds sessions and their rows. It is not safe for concurrent use:
// the UI owns it, and the follower hands it Changes through messages.
type Store struct {
	Limits   Limits
	Sessions []*Session
	byID     map[string]*Session

	bodyBytes int64
	bodies    fifo // rows holding a body, oldest first
	rows      fifo // every row held, oldest first (of every session)
	held      int
}

// NewStore returns an empty store with limits.
func NewStore(l Limits) *Store {
	return &Store{Limits: l, byID: map[string]*Session{}}
}

// Session returns the session with id, nil if unknown.
func (s *Store) Session(id string) *Session { return s.byID[id] }

// BodyBytes is how many body bytes the store holds.
func (s *Store) BodyBytes() int64 { return s.bodyBytes }

// Held is how many rows the store holds.
func (s *Store) Held() int { return s.held }

func (s *Store) session(id string) *Session {
	if ss := s.byID[id]; ss != nil {
		return ss
	}
	ss := &Session{ID: id, calls: map[int]*Call{}, seen: time.Now()}
	s.byID[id] = ss
	s.Sessions = append(s.Sessions, ss)
	return ss
}

// Apply adds what the engine said, in order.
func (s *Store) Apply(changes []Change) {
	for _, c := range changes {
		switch {
		case c.Row != nil:
			s.addRow(c.SessionID, c)
		case c.Call != nil:
			s.endCall(c.SessionID, c.Call)
		case c.Report != nil:
			ss := s.session(c.SessionID)
			ss.Report = c.Report
		}
	}
}

func (s *Store) addRow(sid string, c Change) {
	ss := s.session(sid)
	r := c.Row
	if ss.Label == "" || r.Label() != "" {
		ss.Label = r.Label()
	}
	if ss.Transport == "" {
		ss.Transport = r.Transport()
	}
	if ss.Path == "" {
		ss.Path = c.Path
	}
	// Seq gaps are lost frames, as the engine counts them; reordered or
	// repeated seqs add nothing.
	if r.Seq > ss.lastSeq {
		ss.Missing += int(min(r.Seq-ss.lastSeq-1, 1<<31))
		ss.lastSeq = r.Seq
	}
	if ts := r.Time(); ss.First.IsZero() {
		ss.First, ss.Last = ts, ts
	} else {
		ss.Last = ts
	}
	if r.Kind == checker.EventMeta {
		var m struct {
			Command []string `json:"command"`
			Cwd     string   `json:"cwd"`
		}
		if json.Unmarshal(r.Raw(), &m) == nil {
			ss.Command, ss.Cwd = m.Command, m.Cwd
		}
		return // the meta frame is the session's description, not traffic
	}
	ss.Frames++
	if len(r.Errors()) > 0 {
		ss.Errors++
	}
	if r.Warning() != "" {
		ss.Warnings++
	}
	if r.CallIndex >= 0 {
		r.call = ss.call(int(r.CallIndex))
		r.call.rows++
		// The engine holds a cancelled call's record back until its late
		// answer or the end of the session, which a followed log never
		// reaches; the cancellation settles the call meanwhile (a late
		// answer's record turns it into late_result).
		if r.Kind == checker.EventNotification && r.Method == "notifications/cancelled" && !r.call.Done && r.call.Status == "pending" {
			r.call.Status = "call_cancelled"
			ss.Pending--
		}
	}
	ss.Rows = append(ss.Rows, r)
	s.held++
	s.rows.push(r)
	if n := len(r.body); n > 0 {
		s.bodyBytes += int64(n)
		s.bodies.push(r)
	}
	s.enforce()
}

// MissingFrames is how many frames the session lost: the engine's count
// when the whole log was read (a torn last line included), else the seq
// gaps seen.
func (ss *Session) MissingFrames() int {
	if ss.Report != nil {
		return max(ss.Report.Counters.MissingFrames, ss.Missing)
	}
	return ss.Missing
}

func (ss *Session) call(i int) *Call {
	c := ss.calls[i]
	if c == nil {
		c = &Call{Index: i, Status: "pending"}
		ss.calls[i] = c
		ss.Calls++
		ss.Pending++
	}
	return c
}

func (s *Store) endCall(sid string, e *CallEnd) {
	ss := s.session(sid)
	c := ss.call(e.Index)
	if c.Status == "pending" && e.Status != "pending" {
		ss.Pending--
	}
	c.Status, c.Duration, c.HasDuration, c.Done = e.Status, e.Duration, e.HasDuration, true
}

// enforce releases bodies and drops rows past the limits, oldest first.
func (s *Store) enforce() {
	for s.Limits.BodyBytes > 0 && s.bodyBytes > s.Limits.BodyBytes && s.bodies.len() > 0 {
		r := s.bodies.pop()
		if r.Released() {
			continue
		}
		s.bodyBytes -= int64(len(r.body))
		r.release()
	}
	for s.Limits.MaxFrames > 0 && s.held > s.Limits.MaxFrames && s.rows.len() > 0 {
		r := s.rows.pop()
		ss := s.byID[r.SessionID()]
		// A session's rows are appended in order, so its oldest row is
		// the globally oldest one of that session.
		if ss != nil && len(ss.Rows) > 0 && ss.Rows[0] == r {
			ss.Rows[0] = nil
			ss.Rows = ss.Rows[1:]
		}
		s.held--
		if !r.Released() {
			s.bodyBytes -= int64(len(r.body))
			r.release()
		}
		if ss == nil {
			continue
		}
		ss.Dropped++
		if c := r.call; c != nil {
			c.rows--
			if c.rows == 0 && c.Done {
				delete(ss.calls, c.Index)
			}
		}
	}
}

// fifo is a queue of rows.
type fifo struct {
	items []*Row
	head  int
}

func (q *fifo) push(r *Row) { q.items = append(q.items, r) }

func (q *fifo) len() int { return len(q.items) - q.head }

func (q *fifo) pop() *Row {
	r := q.items[q.head]
	q.items[q.head] = nil
	q.head++
	if q.head > 1024 && q.head*2 > len(q.items) {
		q.items = append([]*Row(nil), q.items[q.head:]...)
		q.head = 0
	}
	return r
}
