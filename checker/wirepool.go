package checker

import (
	"runtime"

	"github.com/mcpsnoop/mcpsnoop/checker/wire"
)

// Schema validation is the costly part of a check with wire on (several
// microseconds a frame in the validator, most of it allocation), so it runs
// beside the engine: frames are copied into batches, each batch is
// validated on a goroutine of its own, and the outcomes are applied on the
// engine's goroutine in frame order. What a report says does not depend on
// the timing: findings are sorted by where they sit, and outcomes reach
// the sessions in the order the frames came (the oldest batch first, when
// maxInFlight are out and another is ready, and at the end). At most
// maxInFlight batches are out at once, which bounds the memory the copies
// take.

// wireBatchSize is how many frames one goroutine validates, at most;
// wireBatchBytes is how many bytes of frames a batch collects before it is
// validated, so that huge frames (a log of 255 MiB lines after another) go
// one by one instead of piling up in one arena.
const (
	wireBatchSize  = 64
	wireBatchBytes = 16 << 20
)

// wireJob is one frame to validate and, once done, what came of it.
type wireJob struct {
	s   *session
	msg wire.Message // Raw is set from the batch's arena while validating
	// The frame's copy: arena[start:end] of its batch.
	start, end int
	// Where the frame sits, for its finding.
	seq          uint64
	ordinal      int
	path         string
	line         int
	method, tool string
	w57          bool // W57 reported the frame: leave its issues out
	// The outcome.
	finding *wire.Finding
	err     error
}

// wireBatch is frames validated together. Batches are reused: their jobs
// and the arena holding the frames' copies keep their capacity.
type wireBatch struct {
	jobs  []wireJob
	arena []byte
	done  chan struct{}
}

// wirePool validates frames in batches, off the engine's goroutine.
type wirePool struct {
	cur         *wireBatch
	inFlight    []*wireBatch // oldest first
	free        []*wireBatch // applied, ready for reuse
	maxInFlight int
}

func newWirePool() *wirePool {
	return &wirePool{maxInFlight: max(1, runtime.GOMAXPROCS(0))}
}

// submit queues a frame. The frame's bytes are copied; j.msg.Raw may be
// reused by the caller once submit returns.
func (p *wirePool) submit(j wireJob) {
	if p.cur == nil {
		if n := len(p.free); n > 0 {
			p.cur, p.free = p.free[n-1], p.free[:n-1]
		} else {
			p.cur = &wireBatch{jobs: make([]wireJob, 0, wireBatchSize)}
		}
	}
	b := p.cur
	j.start = len(b.arena)
	b.arena = append(b.arena, j.msg.Raw...)
	j.end = len(b.arena)
	j.msg.Raw = nil
	b.jobs = append(b.jobs, j)
	if len(b.jobs) < wireBatchSize && len(b.arena) < wireBatchBytes {
		return
	}
	p.dispatch()
}

// dispatch starts validating the current batch, waiting first for the
// oldest batch out when maxInFlight are.
func (p *wirePool) dispatch() {
	b := p.cur
	p.cur = nil
	if b == nil {
		return
	}
	for len(p.inFlight) >= p.maxInFlight {
		<-p.inFlight[0].done
		p.applyOldest()
	}
	b.done = make(chan struct{})
	p.inFlight = append(p.inFlight, b)
	go validateBatch(b)
}

// flush validates whatever is queued and applies every outcome.
func (p *wirePool) flush() {
	p.dispatch()
	for len(p.inFlight) > 0 {
		<-p.inFlight[0].done
		p.applyOldest()
	}
}

func (p *wirePool) applyOldest() {
	b := p.inFlight[0]
	p.inFlight[0] = nil
	p.inFlight = p.inFlight[1:]
	for i := range b.jobs {
		j := &b.jobs[i]
		j.s.applyWire(j)
		*j = wireJob{}
	}
	b.jobs, b.arena = b.jobs[:0], b.arena[:0]
	if cap(b.arena) > wireBatchBytes {
		b.arena = nil // a batch of huge frames: let it go
	}
	p.free = append(p.free, b)
}

func validateBatch(b *wireBatch) {
	for i := range b.jobs {
		j := &b.jobs[i]
		j.msg.Raw = b.arena[j.start:j.end:j.end]
		j.finding, j.err = wire.Validate(j.msg)
		j.msg.Raw = nil
	}
	close(b.done)
}
