package ingest

import (
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

// Workers is how many inputs Check reads at once when asked for jobs (0:
// choose). Without jobs it is one per core, at most one per input, and no
// more than the memory budget holds for the largest input; with jobs it
// is jobs, at most one per input. Either way it leaves the open-file limit
// room. Inputs that are not all regular files are read one at a time.
func Workers(inputs []capture.Input, jobs int) int {
	w := jobs
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
		if live := liveBudget(); live > 0 {
			w = min(w, max(1, int(live/maxNeed(inputs))))
		}
	}
	if files, ok := sysmem.OpenFiles(); ok {
		w = min(w, max(1, int(files)-reservedFiles))
	}
	return max(1, min(w, len(inputs)))
}

// maxNeed is the largest logNeed of the inputs.
func maxNeed(inputs []capture.Input) int64 {
	need := logNeed(0)
	for _, in := range inputs {
		need = max(need, logNeed(inputSize(in)))
	}
	return need
}

// inputSize is a file input's size, or MaxEnvelope when it cannot be told
// (standard input, a pipe: assume the worst).
func inputSize(in capture.Input) int64 {
	if in.Stdin {
		return capture.MaxEnvelope
	}
	info, err := os.Stat(in.Path)
	if err != nil || !info.Mode().IsRegular() {
		return capture.MaxEnvelope
	}
	return info.Size()
}

// liveBudget is what the workers may hold live at once: half the memory
// budget (0 when it cannot be told: no bound).
func liveBudget() int64 { return int64(sysmem.Budget() / 2) }

// memBudget is the bytes the workers share: each takes what its log may
// need, waiting while they are taken, and gives them back when done.
type memBudget struct {
	mu    sync.Mutex
	freed sync.Cond
	total int64
	free  int64
}

func newMemBudget(total int64) *memBudget {
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
