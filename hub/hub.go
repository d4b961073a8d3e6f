package hub

import (
	"context"
	"io"
	"net/http"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Hub is a headless watcher of session logs that serves what it counts
// for Prometheus: Metrics fed by a Follower.
type Hub struct {
	Follower *Follower
	Metrics  *Metrics
}

// New returns a hub following dirs that loads the newest historyLimit logs
// at start (0 for all).
func New(dirs []string, historyLimit int) *Hub {
	m := NewMetrics()
	f := NewFollower(dirs, historyLimit, m.Config)
	f.Backlog, f.Forget = m.Backlog, m.Forget
	return &Hub{Follower: f, Metrics: m}
}

// Start begins watching the folders, then loads the history (which is
// not counted as new traffic, though the servers it names get their zero
// samples) and starts counting. notice gets one-line remarks.
func (h *Hub) Start(notice func(string)) error {
	if err := h.Follower.Start(); err != nil {
		return err
	}
	err := h.Follower.History(func(r Read) { say(r, notice) })
	h.Metrics.Count()
	return err
}

// Run follows the folders until ctx ends.
func (h *Hub) Run(ctx context.Context, notice func(string)) {
	h.Follower.Run(ctx, func(r Read) { say(r, notice) })
}

// Close stops watching.
func (h *Hub) Close() error { return h.Follower.Close() }

func say(r Read, notice func(string)) {
	for _, n := range r.Notices {
		notice(n)
	}
}

// Handler serves /metrics (the Prometheus text format, gzip when asked
// for) and a short page at / naming it.
func (h *Hub) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(h.Metrics.Registry(), promhttp.HandlerOpts{
		ErrorHandling: promhttp.ContinueOnError,
	}))
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, "mcpsnoop metrics hub: scrape /metrics\n")
	})
	return mux
}
