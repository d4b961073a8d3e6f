package checker

import (
	"runtime"
	"sync"

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

// wireBatchSize is how many frames one goroutine validates.
const wireBatchSize = 64

// wireJob is one frame to validate and, once done, what came of it.
type wireJob struct {
	s   *session
	msg wire.Message // Raw is buf's bytes
	buf *[]byte
	// Where the frame sits, for its finding.
	seq          uint64
	ordinal      int
	path         string
	line         int
	method, tool string
	// The outcome.
	finding *wire.Finding
	err     error
}

type wireBatch struct {
	jobs []wireJob
	done chan struct{}
}

// wirePool validates frames in batches, off the engine's goroutine.
type wirePool struct {
	cur         *wireBatch
	inFlight    []*wireBatch // oldest first
	maxInFlight int
}

func newWirePool() *wirePool {
	return &wirePool{maxInFlight: max(1, runtime.GOMAXPROCS(0))}
}

// rawBuffers holds frame copies for reuse.
var rawBuffers = sync.Pool{New: func() any { return new([]byte) }}

// submit queues a frame. The frame's bytes are copied; j.msg.Raw may be
// reused by the caller once submit returns.
func (p *wirePool) submit(j wireJob) {
	buf := rawBuffers.Get().(*[]byte)
	*buf = append((*buf)[:0], j.msg.Raw...)
	j.msg.Raw, j.buf = *buf, buf
	if p.cur == nil {
		p.cur = &wireBatch{jobs: make([]wireJob, 0, wireBatchSize), done: make(chan struct{})}
	}
	p.cur.jobs = append(p.cur.jobs, j)
	if len(p.cur.jobs) < wireBatchSize {
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
	}
}

func validateBatch(b *wireBatch) {
	for i := range b.jobs {
		j := &b.jobs[i]
		j.finding, j.err = wire.Validate(j.msg)
		j.msg.Raw = nil
		rawBuffers.Put(j.buf)
		j.buf = nil
	}
	close(b.done)
}
