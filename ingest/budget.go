package ingest

import (
	"fmt"
	"os"
	"runtime"
	"sync"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/internal/sysmem"
)

// Reading logs in parallel multiplies what one read may hold: six logs
// with 255 MiB lines, read at once, ran a check out of 4 GB. So the
// workers share one memory budget (sysmem.Budget: GOMEMLIMIT, else half
// the memory the process can have), and each takes from it what the log
// it reads may need before it opens it, waiting while the budget is
// taken; by default no more workers are started than the budget holds at
// once for the largest log, and never more than the open-file limit
// leaves room for. What the workers may hold live is half the budget: the
// garbage collector lets the heap grow to twice what is live before it
// collects.
//
// How many workers and what budget are decided once per check (decide),
// from the machine's facts read once (thisMachine) and the logs' sizes.

// partBase is what reading a log holds besides its lines: an engine
// part, its sessions' state, the reader's first buffer.
const partBase = 32 << 20

// reservedFiles are the open files a check keeps for other things than
// its inputs: standard streams, report files, the binary's own.
const reservedFiles = 32

// logNeed is what reading a log of size bytes may hold at once: its
// longest line (at most capture.MaxEnvelope, never more than the log)
// three times over (the reader's buffer while it grows, a copy of an
// envelope spanning lines, the frame's copy for validation), and the
// part's own.
func logNeed(size int64) int64 {
	return 3*min(size, capture.MaxEnvelope) + partBase
}

// machine is what the worker count is decided from besides the logs.
type machine struct {
	cores  int   // Go's processors (GOMAXPROCS: the cores, or the container's CPU limit)
	budget int64 // the memory budget (sysmem.Budget); 0: it cannot be told, no bound
	files  int64 // the open-file limit; 0: it cannot be told, no bound
}

// thisMachine reads this process's facts.
func thisMachine() machine {
	m := machine{cores: runtime.GOMAXPROCS(0), budget: int64(min(sysmem.Budget(), 1<<62))}
	if files, ok := sysmem.OpenFiles(); ok {
		m.files = int64(min(files, 1<<62))
	}
	return m
}

// plan is how a check reads its inputs, decided once.
type plan struct {
	workers int
	live    int64   // what the workers may hold live at once: half the budget; 0 for no bound
	needs   []int64 // what reading each input may hold (logNeed of its size)
	// why says what bounded workers, for DescribeWorkers.
	why string
}

// decide is the worker count and the budget for inputs of the given sizes
// (-1: not a regular file, whose size cannot be told) on m, asked for
// jobs (0: choose). Without jobs it is one per core, at most one per
// input, and no more than the live budget holds at once for the largest
// input; with jobs it is jobs, at most one per input. Either way it leaves
// the open-file limit room.
func decide(m machine, sizes []int64, jobs int) plan {
	p := plan{live: m.budget / 2, needs: make([]int64, len(sizes))}
	largest := logNeed(0)
	for i, s := range sizes {
		if s < 0 {
			s = capture.MaxEnvelope // standard input, a pipe: assume the worst
		}
		p.needs[i] = logNeed(s)
		largest = max(largest, p.needs[i])
	}
	w := jobs
	p.why = "--jobs"
	if w <= 0 {
		w, p.why = max(1, m.cores), "one per core"
		if p.live > 0 {
			if fit := max(1, int(min(p.live/largest, 1<<20))); fit < w {
				w, p.why = fit, fmt.Sprintf("as many as half the %s memory budget holds for the largest log (%s)", mib(m.budget), mib(largest))
			}
		}
	}
	if m.files > 0 {
		if room := int(max(1, min(m.files-reservedFiles, 1<<20))); room < w {
			w, p.why = room, "the open-file limit"
		}
	}
	if len(sizes) < w {
		w, p.why = len(sizes), "one per log"
	}
	p.workers = max(1, w)
	return p
}

// planFor decides for inputs on this machine.
func planFor(inputs []capture.Input, jobs int) plan {
	sizes := make([]int64, len(inputs))
	for i, in := range inputs {
		sizes[i] = inputSize(in)
	}
	return decide(thisMachine(), sizes, jobs)
}

// Workers is how many inputs Check reads at once when asked for jobs (0:
// choose): see decide. Inputs that are not all regular files are read one
// at a time whatever it says.
func Workers(inputs []capture.Input, jobs int) int { return planFor(inputs, jobs).workers }

// DescribeWorkers says how many workers Check starts by default for
// inputs on this machine, and what decided it.
func DescribeWorkers(inputs []capture.Input) string {
	m := thisMachine()
	p := planFor(inputs, 0)
	return fmt.Sprintf("%d (%s; %d cores, memory budget %s, open-file limit %d, %d logs)", p.workers, p.why, m.cores, mib(m.budget), m.files, len(inputs))
}

// mib formats n bytes in MiB.
func mib(n int64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }

// inputSize is a file input's size, or -1 when it cannot be told
// (standard input, a pipe).
func inputSize(in capture.Input) int64 {
	if in.Stdin {
		return -1
	}
	info, err := os.Stat(in.Path)
	if err != nil || !info.Mode().IsRegular() {
		return -1
	}
	return info.Size()
}

// memBudget is the bytes the workers share: each takes what its log may
// need, waiting while they are taken, and gives them back when done.
type memBudget struct {
	mu    sync.Mutex
	freed sync.Cond
	total int64
	free  int64
}

// newMemBudget is a budget of total bytes; nil (no bound) when total is 0.
func newMemBudget(total int64) *memBudget {
	if total <= 0 {
		return nil
	}
	b := &memBudget{total: total, free: total}
	b.freed.L = &b.mu
	return b
}

// take waits until n bytes are free (the whole budget, for a log that
// needs more) and takes them; it returns what it took, for give.
func (b *memBudget) take(n int64) int64 {
	if b == nil {
		return 0
	}
	n = min(n, b.total)
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.free < n {
		b.freed.Wait()
	}
	b.free -= n
	return n
}

// give returns n bytes taken.
func (b *memBudget) give(n int64) {
	if b == nil || n == 0 {
		return
	}
	b.mu.Lock()
	b.free += n
	b.mu.Unlock()
	b.freed.Broadcast()
}
