package viewer

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
)

// Change is one thing the engine said, for Store.Apply: a frame (Row), a
// call's end (Call) or a session's final summary (Report).
type Change struct {
	SessionID string
	Path      string // the log the session is read from ("" for stdin)
	Row       *Row
	Call      *CallEnd
	Report    *checker.SessionReport
}

// CallEnd is how a call ended, as the engine's CallRecord says.
type CallEnd struct {
	Index       int
	Status      string
	Duration    time.Duration
	HasDuration bool
}

// Collector turns an engine's callbacks into Changes. Give Config's result
// to checker.New; Take hands over what was collected since the last Take.
type Collector struct {
	// Path is recorded on the sessions the collector sees first.
	Path string
	// Strings shares the strings of the rows it makes: give every
	// collector of one store the same table. Nil makes one of its own.
	Strings *Interner
	changes []Change
}

// Config returns an engine configuration that reports to c. base is kept
// for everything but the two callbacks.
func (c *Collector) Config(base checker.Config) checker.Config {
	if c.Strings == nil {
		c.Strings = NewInterner()
	}
	base.OnFrame = c.frame
	base.OnCall = c.call
	return base
}

func (c *Collector) frame(ev *checker.FrameEvent) {
	r := c.Strings.Row(ev)
	c.changes = append(c.changes, Change{SessionID: r.SessionID(), Path: c.Path, Row: r})
}

func (c *Collector) call(r checker.CallRecord) {
	c.changes = append(c.changes, Change{SessionID: c.Strings.Str(r.SessionID), Path: c.Path, Call: &CallEnd{
		Index: r.Index, Status: c.Strings.Str(r.Status), Duration: r.Duration, HasDuration: r.HasDuration,
	}})
}

// Take returns the changes collected so far and forgets them.
func (c *Collector) Take() []Change {
	out := c.changes
	c.changes = nil
	return out
}

// LoadOptions say how logs are read for the viewer.
type LoadOptions struct {
	Redactor *capture.Redactor // applied to every frame first; nil for none
	Sessions map[string]bool   // only these sessions (a --run); nil for all
	Stdin    io.Reader
}

// Load reads whole logs into a new unbounded store, with each session's
// final report attached (for `mcpsnoop open`). An input that cannot be
// read is an error naming it.
func Load(inputs []capture.Input, o LoadOptions) (*Store, error) {
	col := &Collector{Strings: NewInterner()}
	eng := checker.New(col.Config(checker.Config{KeepBodies: true, Sessions: o.Sessions}))
	st := NewStore(Limits{})
	for _, in := range inputs {
		col.Path = in.Path
		if err := readInput(eng, in, o); err != nil {
			return nil, err
		}
		st.Apply(col.Take())
	}
	rep := eng.Report()
	st.Apply(col.Take()) // the calls still open at the end
	for _, sr := range rep.Sessions {
		st.Apply([]Change{{SessionID: sr.ID, Report: sr}})
	}
	if len(st.Sessions) == 0 {
		return nil, errors.New("no session in the input matches")
	}
	return st, nil
}

func readInput(eng *checker.Engine, in capture.Input, o LoadOptions) error {
	return in.Read(o.Stdin, o.Redactor, func(f *capture.Frame, line int) bool {
		return eng.Ingest(f, checker.Position{Path: in.Path, Name: in.Name, Line: line})
	}, eng.TornTail)
}

// SessionReport re-reads the log at path and returns the summary of
// session id: how the live view builds a panel, since one engine's Report
// can be taken only once. keepBodies keeps what the tools and
// capabilities panels show (tool costs, capabilities); without it the
// engine holds no call bodies.
func SessionReport(path, id string, keepBodies bool) (*checker.SessionReport, error) {
	if path == "" {
		return nil, errors.New("the session was not read from a file")
	}
	eng := checker.New(checker.Config{KeepBodies: keepBodies, Sessions: map[string]bool{id: true}})
	if err := readInput(eng, capture.Input{Path: path, Name: path}, LoadOptions{}); err != nil {
		return nil, err
	}
	for _, sr := range eng.Report().Sessions {
		if sr.ID == id {
			return sr, nil
		}
	}
	return nil, fmt.Errorf("%s: session %s not found", path, id)
}
