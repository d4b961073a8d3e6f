package export

import (
	"errors"
	"io"
	"sort"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
)

// Options configure an export.
type Options struct {
	// GeneratedAt is the export's time; zero means now.
	GeneratedAt time.Time
	// Version is the build's version, for formats that name their producer.
	Version string
	// Redactor, when set, is applied to every frame as it is read (the logs
	// themselves are never changed).
	Redactor *capture.Redactor
	// Run limits the export to the sessions of one run, written in the order
	// of their first frames (across logs, by timestamp).
	Run *checker.Run
	// Sessions, when set, limits the export to these session ids (frames
	// of other sessions are read and skipped).
	Sessions map[string]bool
	// TempDir is where the spill file goes when the rendered pieces outgrow
	// MemoryBudget; "" means the system's temporary folder.
	TempDir string
	// MemoryBudget is how many rendered bytes each of the two spills (events,
	// calls) keeps in memory before it moves them to a file; 0 means
	// DefaultMemoryBudget.
	MemoryBudget int
}

// DefaultMemoryBudget is the memory each spill uses before it goes to disk.
const DefaultMemoryBudget = 1 << 20

// Export runs the checker's one pass over the inputs and feeds a Format:
// each frame and call is rendered as it passes and set aside in a spill;
// once everything is read, the sessions are written one after another.
type Export struct {
	format   Format
	opts     Options
	eng      *checker.Engine
	events   *spill
	calls    *spill
	sessions map[string]*sessionState
	last     *sessionState
	err      error // the first rendering error
	written  bool
	rec      checker.CallRecord // the call being rendered (kept here, not on the heap per call)
}

// sessionState is what the export keeps per session while reading: where
// its rendered pieces are and its slowest tool calls.
type sessionState struct {
	id      string
	events  eventRecords
	calls   callRecords
	slowest []SlowCall
}

// maxSlowest is how many slowest calls a session lists.
const maxSlowest = 5

// New returns an export to f.
func New(f Format, o Options) *Export {
	if o.MemoryBudget <= 0 {
		o.MemoryBudget = DefaultMemoryBudget
	}
	if o.GeneratedAt.IsZero() {
		o.GeneratedAt = time.Now()
	}
	x := &Export{
		format: f, opts: o,
		events:   newSpill(o.TempDir, o.MemoryBudget),
		calls:    newSpill(o.TempDir, o.MemoryBudget),
		sessions: map[string]*sessionState{},
	}
	cfg := checker.Config{KeepBodies: true, OnFrame: x.onFrame, OnCall: x.onCall}
	cfg.Sessions = selectedSessions(o)

	x.eng = checker.New(cfg)
	return x
}

// selectedSessions is the set of sessions o asks for: those of its run and
// its Sessions (both, when both are set); nil for every session.
func selectedSessions(o Options) map[string]bool {
	if o.Run == nil {
		return o.Sessions
	}
	out := map[string]bool{}
	for _, id := range o.Run.SessionIDs {
		if o.Sessions == nil || o.Sessions[id] {
			out[id] = true
		}
	}
	return out
}

// Load reads every input into a new export. On error the export is closed.
func Load(f Format, inputs []capture.Input, stdin io.Reader, o Options) (*Export, error) {
	x := New(f, o)
	for _, in := range inputs {
		if err := x.Read(in, stdin); err != nil {
			x.Close()
			return nil, err
		}
	}
	return x, nil
}

// Read streams one input through the engine. Errors name the input.
func (x *Export) Read(in capture.Input, stdin io.Reader) error {
	err := in.Read(stdin, x.opts.Redactor, func(fr *capture.Frame, line int) bool {
		return x.eng.Ingest(fr, checker.Position{Path: in.Path, Name: in.Name, Line: line})
	}, x.eng.TornTail)
	if err != nil {
		return err
	}
	return x.failed()
}

// Sessions is how many sessions have been read so far.
func (x *Export) Sessions() int { return x.eng.Sessions() }

// failed reports a rendering or spill error met while reading.
func (x *Export) failed() error {
	if x.err != nil {
		return x.err
	}
	if x.events.err != nil {
		return x.events.err
	}
	return x.calls.err
}

func (x *Export) session(id string) *sessionState {
	if s := x.last; s != nil && s.id == id {
		return s
	}
	s := x.sessions[id]
	if s == nil {
		s = &sessionState{id: id, events: eventRecords{sp: x.events}, calls: callRecords{sp: x.calls}}
		x.sessions[id] = s
	}
	x.last = s
	return s
}

func (x *Export) onFrame(ev *checker.FrameEvent) {
	if x.err != nil {
		return
	}
	b, err := x.format.Event(ev)
	if err != nil {
		x.err = err
		return
	}
	if b != nil {
		x.session(ev.SessionID).events.add(b)
	}
}

func (x *Export) onCall(r checker.CallRecord) {
	if x.err != nil {
		return
	}
	x.rec = r
	s := x.session(r.SessionID)
	if r.IsTool && r.HasDuration {
		s.noteSlow(&x.rec)
	}
	b, err := x.format.Call(&x.rec)
	if err != nil {
		x.err = err
		return
	}
	s.calls.add(r.Index, b)
}

// noteSlow keeps r if it is among the session's slowest tool calls.
func (s *sessionState) noteSlow(r *checker.CallRecord) {
	c := SlowCall{CallIndex: r.Index, ID: r.ID, ToolName: r.Name, DurationMs: durationMs(r.Duration), IsError: r.IsError, start: r.Start}
	i := sort.Search(len(s.slowest), func(i int) bool { return slower(&c, &s.slowest[i]) })
	if i >= maxSlowest {
		return
	}
	if len(s.slowest) < maxSlowest {
		s.slowest = append(s.slowest, SlowCall{})
	}
	copy(s.slowest[i+1:], s.slowest[i:])
	s.slowest[i] = c
}

// slower orders slowest first, then by start, then by index.
func slower(a, b *SlowCall) bool {
	if a.DurationMs != b.DurationMs {
		return a.DurationMs > b.DurationMs
	}
	if !a.start.Equal(b.start) {
		return a.start.Before(b.start)
	}
	return a.CallIndex < b.CallIndex
}

// Write closes the engine's pass and writes the output: Begin, every
// session, End. It can be called once.
func (x *Export) Write(w io.Writer) error {
	if x.written {
		return errors.New("export: Write called twice")
	}
	x.written = true
	if err := x.failed(); err != nil {
		return err
	}
	rep := x.eng.Report()
	if err := x.failed(); err != nil {
		return err
	}
	reports := rep.Sessions
	if x.opts.Run != nil {
		reports = append([]*checker.SessionReport(nil), reports...)
		sort.SliceStable(reports, func(i, j int) bool { return reports[i].First.Before(reports[j].First) })
	}
	out := &Output{GeneratedAt: x.opts.GeneratedAt, Version: x.opts.Version, Sessions: len(reports), Run: x.opts.Run}
	if err := x.format.Begin(w, out); err != nil {
		return err
	}
	for i, sr := range reports {
		st := x.session(sr.ID)
		st.calls.grow(sr.Calls)
		s := &Session{
			Output: out, Report: sr, Run: runOf(rep.Runs, sr.ID),
			Calls: &st.calls, Events: &st.events, Index: i, Slowest: st.slowest,
		}
		if err := x.format.Session(w, s); err != nil {
			return err
		}
	}
	return x.format.End(w, out)
}

// runOf finds the run a session belongs to.
func runOf(runs []checker.Run, id string) *checker.Run {
	for i := range runs {
		for _, sid := range runs[i].SessionIDs {
			if sid == id {
				return &runs[i]
			}
		}
	}
	return nil
}

// Close releases the spill files.
func (x *Export) Close() error {
	err := x.events.close()
	if cerr := x.calls.close(); err == nil {
		err = cerr
	}
	return err
}
