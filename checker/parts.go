package checker

import (
	"fmt"
	"sort"
)

// A check of many inputs can read them in parallel: each part (an engine
// made by NewPart) reads some of the inputs, and Merge joins the parts
// into one engine whose Report is the one a single engine reading every
// input in order would give, byte for byte. That holds because sessions
// are independent while frames are ingested (runs, tool assertions,
// baselines and known findings are judged by Report, over all sessions),
// so what a session becomes depends only on its own frames, in their
// order. What the serial order decides besides is put back by Merge:
//
//   - the order of sessions: by the input of a session's first frame, then
//     by where it first appears in that input;
//   - the findings kept under MaxFindings: the most deserving by a total
//     order that does not depend on the order they were made in (findings
//     order by their session's first input before its index, so that a
//     part's order agrees with the merged one whatever inputs it read);
//   - a torn line: one lost frame of the session read last, which may be
//     a session of an earlier input, read by another part.
//
// The reader must read each input whole in one part, and all the inputs
// a session spans in one part, in increasing order (InputSessions tells
// which sessions each input held, to check it); Merge refuses parts that
// share a session or an input.

// partState is what a part records beyond an engine's state.
type partState struct {
	input  int          // the input being read (BeginInput)
	inputs []inputTrace // one per input read, in the order read
}

// inputTrace is what one input left: the sessions it held, the session of
// its last frame, and the torn lines met before its first frame (they
// belong to the session an earlier input read last).
type inputTrace struct {
	n     int
	ids   []string
	last  *session
	early int
}

// InputSessions is the sessions one input held, as a part saw them.
type InputSessions struct {
	Input    int
	Sessions []string // in the order first seen in the input
}

// NewPart returns an engine that reads some of a check's inputs while other
// parts read the rest; Merge joins them. Call BeginInput before each input.
// Config.OnCall and OnFrame are not for parts: they would be called from
// several goroutines, in no useful order. parts is how many parts read at
// once: they share the cores that validate frames (--wire), so that the
// batches in flight stay those of one engine, not one engine's per part.
func NewPart(cfg Config, parts int) *Engine {
	e := New(cfg)
	e.part = &partState{input: -1}
	if e.pool != nil {
		e.pool.maxInFlight = max(1, e.pool.maxInFlight/max(1, parts))
	}
	return e
}

// BeginInput says that the frames that follow come from input n, numbered
// in the order a single engine would read the inputs.
func (e *Engine) BeginInput(n int) {
	if e.part == nil {
		panic("checker: BeginInput on an engine that is not a part")
	}
	for _, in := range e.part.inputs {
		if in.n == n {
			panic(fmt.Sprintf("checker: a part reads input %d twice", n))
		}
	}
	e.part.input = n
	e.part.inputs = append(e.part.inputs, inputTrace{n: n})
}

// InputSessions lists, for each input the part has read, the sessions it
// held.
func (e *Engine) InputSessions() []InputSessions {
	if e.part == nil {
		return nil
	}
	out := make([]InputSessions, len(e.part.inputs))
	for i, in := range e.part.inputs {
		out[i] = InputSessions{Input: in.n, Sessions: in.ids}
	}
	return out
}

func (p *partState) current() *inputTrace {
	if len(p.inputs) == 0 {
		panic("checker: a part was given a frame before BeginInput")
	}
	return &p.inputs[len(p.inputs)-1]
}

// saw notes a frame of s in the current input.
func (p *partState) saw(s *session) {
	in := p.current()
	in.last = s
	if s.seenIn != len(p.inputs) {
		s.seenIn = len(p.inputs)
		in.ids = append(in.ids, s.id)
	}
}

// tornTail is TornTail in a part: the lost frame goes to the session this
// input read last or, when it has read none yet, to the one an earlier
// input read last, which only Merge knows.
func (p *partState) tornTail() {
	in := p.current()
	if in.last != nil {
		in.last.counters.MissingFrames++
		return
	}
	in.early++
}

// Merge joins parts into an engine whose Report is what one engine given
// every input in order would report. cfg is the parts' configuration. The
// parts must not be used afterwards.
func Merge(cfg Config, parts []*Engine) (*Engine, error) {
	e := New(cfg)
	type entry struct {
		s     *session
		part  int
		local int
	}
	var all []entry
	var traces []inputTrace
	readBy := map[int]int{}
	for pi, p := range parts {
		if p.part == nil {
			return nil, fmt.Errorf("checker: merging an engine that is not a part")
		}
		if p.pool != nil {
			p.pool.flush() // every wire outcome applied, to the part's findings
		}
		for _, in := range p.part.inputs {
			if other, ok := readBy[in.n]; ok {
				return nil, fmt.Errorf("checker: input %d was read by parts %d and %d", in.n, other, pi)
			}
			readBy[in.n] = pi
			traces = append(traces, in)
		}
		for i, s := range p.order {
			all = append(all, entry{s, pi, i})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.s.input != b.s.input {
			return a.s.input < b.s.input
		}
		return a.local < b.local // one input is read by one part
	})
	index := make([][]int, len(parts)) // part, local index -> merged index
	for pi, p := range parts {
		index[pi] = make([]int, len(p.order))
	}
	for g, en := range all {
		s := en.s
		if _, dup := e.sessions[s.id]; dup {
			return nil, fmt.Errorf("checker: session %q was read by two parts", s.id)
		}
		index[en.part][en.local] = g
		s.index, s.e = g, e
		e.sessions[s.id] = s
		e.order = append(e.order, s)
	}
	for pi, p := range parts {
		for _, k := range p.findings.items {
			k.session = index[pi][k.session]
			e.findings.keep(k)
		}
		// Findings made when the report is closed come after every one
		// made while reading, as in one engine: their serials start here.
		e.findings.total += p.findings.total
	}
	// Torn lines that came before their input's first frame, in input
	// order, with the session read last before them.
	sort.Slice(traces, func(i, j int) bool { return traces[i].n < traces[j].n })
	for _, in := range traces {
		if in.early > 0 && e.last != nil {
			e.last.counters.MissingFrames += in.early
		}
		if in.last != nil {
			e.last = in.last
		}
	}
	return e, nil
}
