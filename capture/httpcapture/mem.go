package httpcapture

import (
	"fmt"
	"sync"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// memBudget bounds the memory held for the log copies of the bodies and SSE
// events being observed, across all exchanges (LogOptions.MaxBodyMemory).
// A copy takes from the budget as it grows (by capacity, so what is counted
// is what is allocated) and gives it back when it is handed to the log,
// whose queue has bounds of its own (capture.QueueBytes). A copy the budget
// cannot extend stops growing: the body is still forwarded in full, and
// logged as the fragment kept so far, marked truncated. A nil budget
// grants everything.
type memBudget struct {
	mu     sync.Mutex
	limit  int
	used   int
	warn   *capture.Notices // never waited for: take runs as a body is forwarded
	warned bool
}

func newMemBudget(limit int, warn *capture.Notices) *memBudget {
	switch {
	case limit < 0:
		return nil
	case limit == 0:
		limit = DefaultBodyMemory
	}
	return &memBudget{limit: limit, warn: warn}
}

// take reserves n bytes, if they fit.
func (m *memBudget) take(n int) bool { return m.reserve(n, true) }

// reserve reserves n bytes, if they fit; when they do not, the first
// time it is asked to warn, it warns.
func (m *memBudget) reserve(n int, warnFull bool) bool {
	if m == nil || n <= 0 {
		return true
	}
	m.mu.Lock()
	if m.used+n <= m.limit {
		m.used += n
		m.mu.Unlock()
		return true
	}
	warn := warnFull && !m.warned && m.warn != nil
	m.warned = m.warned || warnFull
	m.mu.Unlock()
	if warn {
		m.warn.Say(fmt.Sprintf("mcpsnoop: warning: the log's memory budget for bodies in flight (%d MiB) is used up; bodies are logged truncated until it frees up; traffic is not affected\n", m.limit>>20))
	}
	return false
}

// give returns n bytes taken before.
func (m *memBudget) give(n int) {
	if m == nil || n <= 0 {
		return
	}
	m.mu.Lock()
	m.used -= n
	m.mu.Unlock()
}

// logCopy is the log's copy of one body or event as it is observed: at
// most capture.MaxLogLine bytes, and only what the budget grants.
type logCopy struct {
	mem       *memBudget
	buf       []byte
	held      int  // bytes taken from mem for buf
	truncated bool // some bytes observed are not in buf
}

// expect sizes an empty copy for a body of n bytes (its Content-Length;
// unknown when negative), so that a small body's copy is allocated once
// rather than grown chunk by chunk. A declared length is only a promise:
// no more than expectMax is set aside ahead of the bytes (a client that
// declares a huge body and sends nothing must not hold the budget), and
// none when the budget cannot spare it without a word (add then grows the
// copy as the body comes, and warns if it must).
func (c *logCopy) expect(n int64) {
	if n <= 0 || c.buf != nil || c.truncated {
		return
	}
	size := int(min(n, expectMax))
	if !c.mem.reserve(size, false) {
		return
	}
	c.held += size
	c.buf = make([]byte, 0, size)
}

// expectMax is the most expect sets aside for a body ahead of its bytes.
const expectMax = 64 << 10

// add appends p, as much of it as the caps allow (all of p or none of it,
// for the budget).
func (c *logCopy) add(p []byte, limit int) {
	if c.truncated {
		return
	}
	if room := limit - len(c.buf); len(p) > room {
		p = p[:max(room, 0)]
		c.truncated = true
	}
	need := len(c.buf) + len(p)
	if need > cap(c.buf) {
		size := min(max(2*cap(c.buf), need, 512), limit)
		if !c.mem.take(size - cap(c.buf)) {
			size = need
			if !c.mem.take(size - cap(c.buf)) {
				c.truncated = true
				return
			}
		}
		c.held += size - cap(c.buf)
		grown := make([]byte, len(c.buf), size)
		copy(grown, c.buf)
		c.buf = grown
	}
	c.buf = append(c.buf, p...)
}

// take hands the copy over (to the log), giving its memory back to the
// budget, and starts a new one.
func (c *logCopy) take() (data []byte, truncated bool) {
	data, truncated = c.buf, c.truncated
	c.mem.give(c.held)
	c.buf, c.held, c.truncated = nil, 0, false
	return data, truncated
}
