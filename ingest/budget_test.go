package ingest

import (
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// The worker count, decided once from the cores, the memory budget, the
// open-file limit and the logs' sizes.
func TestDecideWorkers(t *testing.T) {
	const (
		mb  = int64(1_000_000)
		gib = int64(1 << 30)
	)
	four := []int64{85 * mb, 80 * mb, 81 * mb, 85 * mb}
	six := []int64{255 << 20, 255 << 20, 255 << 20, 255 << 20, 255 << 20, 255 << 20}
	many := make([]int64, 20)
	for i := range many {
		many[i] = 4 << 20
	}
	for _, tc := range []struct {
		name  string
		m     machine
		sizes []int64
		jobs  int
		want  int
	}{
		{"four 85 MB logs, 2 cores, 12 GiB", machine{cores: 2, budget: 12 * gib, files: 1024}, four, 0, 2},
		{"four 85 MB logs, 8 cores: one per log", machine{cores: 8, budget: 12 * gib, files: 1024}, four, 0, 4},
		{"four 85 MB logs, 1 core", machine{cores: 1, budget: 12 * gib, files: 1024}, four, 0, 1},
		{"four 85 MB logs, GOMEMLIMIT 1 GiB: half of it holds one", machine{cores: 8, budget: 1 * gib, files: 1024}, four, 0, 1},
		{"four 85 MB logs, GOMEMLIMIT 2 GiB: half of it holds three", machine{cores: 8, budget: 2 * gib, files: 1024}, four, 0, 3},
		{"six 255 MiB-line logs, 16 cores, 4 GiB", machine{cores: 16, budget: 4 * gib, files: 1024}, six, 0, 2},
		{"a budget too small for one log still reads", machine{cores: 4, budget: 64 << 20, files: 1024}, six, 0, 1},
		{"no budget known: one per core", machine{cores: 4, budget: 0, files: 1024}, six, 0, 4},
		{"--jobs is taken as asked, the budget paces it", machine{cores: 2, budget: 4 * gib, files: 1024}, six, 6, 6},
		{"--jobs past the logs", machine{cores: 2, budget: 4 * gib, files: 1024}, four, 9, 4},
		{"--jobs within the open-file limit", machine{cores: 2, budget: 4 * gib, files: 40}, many, 100, 8},
		{"default within the open-file limit", machine{cores: 64, budget: 64 * gib, files: 36}, many, 0, 4},
		{"an open-file limit below what is reserved", machine{cores: 8, budget: 64 * gib, files: 10}, many, 0, 1},
		{"standard input is assumed the largest", machine{cores: 8, budget: 4 * gib, files: 1024}, []int64{10 * mb, -1, 10 * mb}, 0, 2},
		{"one log", machine{cores: 8, budget: 4 * gib, files: 1024}, []int64{10 * mb}, 0, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := decide(tc.m, tc.sizes, tc.jobs)
			if p.workers != tc.want {
				t.Errorf("decide(%+v, %d logs, jobs %d) = %d workers (%s), want %d", tc.m, len(tc.sizes), tc.jobs, p.workers, p.why, tc.want)
			}
			if p.live != tc.m.budget/2 {
				t.Errorf("live budget %d, want half of %d", p.live, tc.m.budget)
			}
			for i, s := range tc.sizes {
				if s < 0 {
					s = capture.MaxEnvelope
				}
				if p.needs[i] != logNeed(s) {
					t.Errorf("need of log %d: %d, want %d", i, p.needs[i], logNeed(s))
				}
			}
		})
	}
}
