package viewer

import (
	"context"

	"github.com/mcpsnoop/mcpsnoop/checker"
	"github.com/mcpsnoop/mcpsnoop/hub"
)

// Batch is what the follower read in one go: a message for the UI.
type Batch struct {
	Changes []Change
	// Notices are one-line remarks for the status bar (a log it stopped
	// following, a watcher error).
	Notices []string
}

// Follower tails the session logs of some directories for the live view,
// through hub.Follower (which reads the logs, one engine each, and says
// every frame once): each log's engine reports to a Collector, and each
// read becomes a Batch of the rows and call ends it produced.
type Follower struct {
	f    *hub.Follower
	strs *Interner // shared by the rows of every log
	cols map[string]*Collector
}

// NewFollower returns a follower of the *.jsonl logs in dirs that loads
// the newest historyLimit of them at start (0 for all).
func NewFollower(dirs []string, historyLimit int) *Follower {
	v := &Follower{strs: NewInterner(), cols: map[string]*Collector{}}
	v.f = hub.NewFollower(dirs, historyLimit, func(path string) checker.Config {
		col := &Collector{Path: path, Strings: v.strs}
		v.cols[path] = col
		return col.Config(checker.Config{})
	})
	return v
}

// Start creates the directories if needed and begins watching them. Call it
// before History, so that nothing written in between is missed.
func (v *Follower) Start() error { return v.f.Start() }

// Close stops watching.
func (v *Follower) Close() error { return v.f.Close() }

// History reads the logs already in the directory: the newest HistoryLimit
// by modification time, oldest first. Each call of each hands over a
// bounded part.
func (v *Follower) History(each func(Batch)) error {
	return v.f.History(func(r hub.Read) { v.batch(r, each) })
}

// OnHistoryProgress has History tell fn, after each read, how many bytes
// of the logs it loads it has read, of how many.
func (v *Follower) OnHistoryProgress(fn func(read, total int64)) { v.f.HistoryProgress = fn }

// Run follows the directory until ctx ends or the watcher is closed,
// handing each batch read to send (from Run's goroutine).
func (v *Follower) Run(ctx context.Context, send func(Batch)) {
	v.f.Run(ctx, func(r hub.Read) { v.batch(r, send) })
}

// batch hands over what read r collected, if anything.
func (v *Follower) batch(r hub.Read, each func(Batch)) {
	b := Batch{Notices: r.Notices}
	if col := v.cols[r.Path]; col != nil {
		b.Changes = col.Take()
	}
	if len(b.Changes) > 0 || len(b.Notices) > 0 {
		each(b)
	}
}
