// Package ingest reads a check's session logs into the check engine: one
// input after another, or, when there are several log files and several
// cores, in parallel across inputs, with a report that is byte for byte
// the one reading them in order gives (checker.Merge says why it can be).
//
// Which inputs share a session is only known once they are read, so the
// files are read optimistically: each worker keeps one engine part and
// takes the next unread file in input order. A session two files hold (a
// log and its copy) is right as it is when one worker happened to read
// both; when two workers read parts of it, the parts that hold such a
// split session are dropped and their files read again, every group of
// files that share sessions by one worker, in order. That second pass is
// the only cost of overlapping inputs, and inputs that do not overlap (the
// usual case: one log per session) are read once.
package ingest

import (
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
)

// Options say how inputs are read.
type Options struct {
	// Stdin is what an input "-" reads.
	Stdin io.Reader
	// Redactor is applied to every frame before the engine sees it; nil
	// for none. It is shared by the workers (it is read-only once made).
	Redactor *capture.Redactor
	// Workers bounds how many inputs are read at once; 0 chooses (see
	// Workers: a worker per core, as memory and open files allow), and 1
	// reads them in order on the caller's goroutine. However many there
	// are, they share one memory budget (budget.go).
	Workers int
	// Stats, when set, is told how the inputs were read.
	Stats *Stats
}

// Stats is how a Check read its inputs.
type Stats struct {
	// Parts is how many engine parts were merged; 0 when the inputs were
	// read in order by one engine.
	Parts int
	// Reread is how many inputs were read a second time, for sessions
	// that two workers had split.
	Reread int
}

// Check reads inputs into an engine for cfg and returns it, ready for
// Report. The first input (in order) that cannot be read is the error,
// naming it, as when they are read in order.
//
// Inputs are read in parallel only when that cannot change the result or
// its cost: several inputs, all regular files (standard input and pipes
// are read once, in order), and no per-frame callbacks in cfg (they
// expect frames in order).
func Check(cfg checker.Config, inputs []capture.Input, o Options) (*checker.Engine, error) {
	if cfg.OnCall != nil || cfg.OnFrame != nil || !allFiles(inputs) {
		return serial(cfg, inputs, o)
	}
	p := planFor(inputs, o.Workers)
	if p.workers < 2 {
		return serial(cfg, inputs, o)
	}
	return parallel(cfg, inputs, o, p)
}

// serial is the plain check: one engine, inputs in order.
func serial(cfg checker.Config, inputs []capture.Input, o Options) (*checker.Engine, error) {
	eng := checker.New(cfg)
	for _, in := range inputs {
		if err := read(eng, in, o, nil, false); err != nil {
			return nil, err
		}
	}
	return eng, nil
}

// allFiles reports whether every input is a regular file, which can be
// read a second time if need be.
func allFiles(inputs []capture.Input) bool {
	for _, in := range inputs {
		if in.Stdin {
			return false
		}
		info, err := os.Stat(in.Path)
		if err != nil || !info.Mode().IsRegular() {
			return false // a pipe, or an error that reading in order reports
		}
	}
	return true
}

// read streams one input into eng.
//
// size, when not nil, is the input's length: a first pass sets it to the
// bytes it read, and a second pass reads no more than that, so that a log
// still being written reads the same both times.
func read(eng *checker.Engine, in capture.Input, o Options, size *int64, again bool) error {
	src, err := in.Open(o.Stdin)
	if err != nil {
		return err
	}
	defer src.Close()
	var r io.Reader = src
	if size != nil {
		if again {
			r = io.LimitReader(src, *size)
		} else {
			c := &countingReader{r: src}
			r = c
			defer func() { *size = c.n }()
		}
	}
	return ReadInto(eng, r, in, o.Redactor)
}

// ReadInto streams the log src, the content of in, into eng, with red
// applied to every frame first (the log itself is never changed): torn
// lines are lost frames, and a line that cannot be read is an invalid
// frame of the session the input gave last (Engine.UnreadableLine).
func ReadInto(eng *checker.Engine, src io.Reader, in capture.Input, red *capture.Redactor) error {
	var last string // the session of the input's last frame
	return capture.ReadLogHooks(src, in.Name, func(f *capture.Frame, line int) bool {
		red.Apply(f)
		if f.SessionID != last {
			last = strings.Clone(f.SessionID)
		}
		return eng.Ingest(f, checker.Position{Path: in.Path, Name: in.Name, Line: line})
	}, capture.ReadHooks{Lost: eng.TornTail, Unreadable: func(line int, err error) {
		eng.UnreadableLine(last, checker.Position{Path: in.Path, Name: in.Name, Line: line}, err)
	}})
}

// A job is a group of inputs one part reads, in order.
type job []int

// parallel reads inputs as p says (see the package comment).
func parallel(cfg checker.Config, inputs []capture.Input, o Options, p plan) (*checker.Engine, error) {
	jobs := make([]job, len(inputs))
	for i := range inputs {
		jobs[i] = job{i}
	}
	sizes := make([]int64, len(inputs))
	budget := newMemBudget(p.live)
	parts, err := run(cfg, inputs, o, p, jobs, sizes, budget, false)
	if err != nil {
		return nil, err
	}
	if redo := split(parts, len(inputs)); redo != nil {
		var kept []*checker.Engine
		for i, p := range parts {
			if !redo.parts[i] {
				kept = append(kept, p)
			}
		}
		parts = nil // let the dropped parts go before reading again
		again, err := run(cfg, inputs, o, p, redo.jobs, sizes, budget, true)
		if err != nil {
			return nil, err
		}
		parts = append(kept, again...)
		if o.Stats != nil {
			for _, j := range redo.jobs {
				o.Stats.Reread += len(j)
			}
		}
	}
	if o.Stats != nil {
		o.Stats.Parts = len(parts)
	}
	return checker.Merge(cfg, parts)
}

// run reads jobs, in order of their first input, on p.workers goroutines,
// each with a part of its own that reads every job it takes, taking from
// budget what p says each input may need. It returns
// the parts, or the error of the first input in order that failed. A first
// pass notes in sizes the bytes it read of each input; a second (again)
// reads no more than that.
func run(cfg checker.Config, inputs []capture.Input, o Options, p plan, jobs []job, sizes []int64, budget *memBudget, again bool) ([]*checker.Engine, error) {
	workers := min(p.workers, len(jobs))
	var (
		next    atomic.Int64 // the next job to take
		mu      sync.Mutex
		errAt   = len(inputs) // the first input that failed, so far
		firstEr error
		wg      sync.WaitGroup
	)
	parts := make([]*checker.Engine, workers)
	failedBefore := func(n int) bool {
		mu.Lock()
		defer mu.Unlock()
		return errAt < n
	}
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				j := int(next.Add(1) - 1)
				if j >= len(jobs) {
					return
				}
				for _, n := range jobs[j] {
					if failedBefore(n) {
						break // reading in order would not get this far
					}
					if parts[w] == nil {
						parts[w] = checker.NewPart(cfg, workers)
					}
					parts[w].BeginInput(n)
					took := budget.take(p.needs[n])
					err := read(parts[w], inputs[n], o, &sizes[n], again)
					parts[w].EndInput() // its frames' copies go before its memory is given back
					budget.give(took)
					if err != nil {
						mu.Lock()
						if n < errAt {
							errAt, firstEr = n, err
						}
						mu.Unlock()
						break
					}
				}
			}
		}()
	}
	wg.Wait()
	if firstEr != nil {
		return nil, firstEr
	}
	out := parts[:0]
	for _, p := range parts {
		if p != nil {
			out = append(out, p)
		}
	}
	return out, nil
}

// redo is what a second pass reads: the parts to drop, and the groups of
// their inputs to read again.
type redo struct {
	parts map[int]bool
	jobs  []job
}

// split finds the sessions that more than one part holds. It returns nil
// when there are none (the parts can be merged as they are), or else the
// parts holding them and the jobs that read their inputs again: every
// group of inputs that share a session in one job, in input order.
func split(parts []*checker.Engine, inputs int) *redo {
	owner := map[string]int{} // session -> part
	var shared []int
	for pi, p := range parts {
		for _, in := range p.InputSessions() {
			for _, id := range in.Sessions {
				if o, ok := owner[id]; !ok {
					owner[id] = pi
				} else if o != pi {
					shared = append(shared, o, pi)
				}
			}
		}
	}
	if len(shared) == 0 {
		return nil
	}
	r := &redo{parts: map[int]bool{}}
	for _, pi := range shared {
		r.parts[pi] = true
	}
	// Group the dropped parts' inputs by the sessions they share.
	u := newUnion(inputs)
	first := map[string]int{} // session -> first input holding it
	var again []int
	for pi, p := range parts {
		if !r.parts[pi] {
			continue
		}
		for _, in := range p.InputSessions() {
			again = append(again, in.Input)
			for _, id := range in.Sessions {
				if f, ok := first[id]; ok {
					u.join(f, in.Input)
				} else {
					first[id] = in.Input
				}
			}
		}
	}
	sort.Ints(again)
	byRoot := map[int]int{} // group root -> its job
	for _, n := range again {
		root := u.find(n)
		j, ok := byRoot[root]
		if !ok {
			j = len(r.jobs)
			byRoot[root] = j
			r.jobs = append(r.jobs, nil)
		}
		r.jobs[j] = append(r.jobs[j], n) // in input order: again is sorted
	}
	return r
}

// union is a disjoint-set forest over input numbers.
type union []int

func newUnion(n int) union {
	u := make(union, n)
	for i := range u {
		u[i] = i
	}
	return u
}

func (u union) find(i int) int {
	for u[i] != i {
		u[i] = u[u[i]]
		i = u[i]
	}
	return i
}

func (u union) join(a, b int) {
	if ra, rb := u.find(a), u.find(b); ra != rb {
		u[max(ra, rb)] = min(ra, rb)
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
