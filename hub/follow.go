// Package hub follows session logs as captures write them: the state
// directory and any other folders, the newest logs at start and every log
// created or written later, each through a checker engine of its own. The
// live view (package viewer) shows what the engines say; the metrics hub
// (Metrics) counts it for Prometheus.
package hub

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
)

// Read is said after each bounded read of one log, so the caller can take
// what that log's engine callbacks collected.
type Read struct {
	Path string
	// Notices are one-line remarks (a log no longer followed, a watcher
	// error).
	Notices []string
}

// Follower tails the session logs of some directories: the logs there
// when it starts (the newest HistoryLimit of them all) and every log
// created or written later. The logs are the only link between captures
// and their watchers, so either can start first and no socket is needed.
//
// Each log is read up to its last complete line; a partial last line is
// read again once its newline arrives. Each log has its own engine, made
// with Config and kept for as long as the log is followed, so calls that
// span two reads are matched like in one pass.
//
// A frame is passed on once (capture-store-export.md §5): per session id
// the follower keeps the highest seq it has passed on and drops an
// envelope at or below it, so a session whose frames arrive through two
// logs, or a log deleted and written again, is read once. A session that
// never had a seq above 0 (an old or hand-made log) is not deduplicated. A
// log that shrinks or is replaced is read again from its start, with a new
// engine; the marks drop what was passed on already.
type Follower struct {
	Dirs         []string
	HistoryLimit int           // newest logs loaded at start; 0 for all
	Poll         time.Duration // how often known logs are re-read without an event (default 1s)
	// Config returns the configuration of the engine that reads path from
	// its start (its callbacks get what the log's frames come to).
	Config func(path string) checker.Config

	watcher *fsnotify.Watcher
	tails   map[string]*tail
	marks   *seqMarks
}

type tail struct {
	path   string
	off    int64 // bytes consumed: always just after a newline
	lines  int   // lines consumed
	file   os.FileInfo
	eng    *checker.Engine
	config func(path string) checker.Config
	marks  *seqMarks
	broken bool
}

// seqMarks is the dedup rule of capture-store-export.md §5: per session
// id, the highest seq passed on. The map holds at most maxMarks sessions;
// past that the least recently touched quarter is forgotten.
type seqMarks struct {
	m     map[string]*seqMark
	clock uint64
}

type seqMark struct {
	seq     uint64
	touched uint64
}

const maxMarks = 1000

func newSeqMarks() *seqMarks { return &seqMarks{m: map[string]*seqMark{}} }

// accept reports whether the envelope is new, and raises the mark.
func (s *seqMarks) accept(session string, seq uint64) bool {
	s.clock++
	mk := s.m[session]
	if mk == nil {
		if len(s.m) >= maxMarks {
			s.evict()
		}
		mk = &seqMark{}
		s.m[strings.Clone(session)] = mk
	}
	mk.touched = s.clock
	// A session that never had a seq above 0 carries none to go by.
	if mk.seq > 0 && seq <= mk.seq {
		return false
	}
	mk.seq = max(mk.seq, seq)
	return true
}

func (s *seqMarks) evict() {
	type kv struct {
		id      string
		touched uint64
	}
	all := make([]kv, 0, len(s.m))
	for id, mk := range s.m {
		all = append(all, kv{id, mk.touched})
	}
	sort.Slice(all, func(i, j int) bool { return all[i].touched < all[j].touched })
	for _, e := range all[:len(all)/4] {
		delete(s.m, e.id)
	}
}

// readWindow is how much of a log is read at a time, so that loading a
// large log hands the caller bounded reads.
const readWindow = 16 << 20

// NewFollower returns a follower of the *.jsonl logs in dirs.
func NewFollower(dirs []string, historyLimit int, config func(path string) checker.Config) *Follower {
	return &Follower{Dirs: dirs, HistoryLimit: historyLimit, Config: config, tails: map[string]*tail{}, marks: newSeqMarks()}
}

// Start creates the directories if needed and begins watching them. Call
// it before History, so that nothing written in between is missed.
func (f *Follower) Start() error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	for _, dir := range f.Dirs {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			w.Close()
			return err
		}
		if err := w.Add(dir); err != nil {
			w.Close()
			return fmt.Errorf("%s: %w", dir, err)
		}
	}
	f.watcher = w
	return nil
}

// Close stops watching.
func (f *Follower) Close() error {
	if f.watcher == nil {
		return nil
	}
	return f.watcher.Close()
}

// History reads the logs already in the directories: the newest
// HistoryLimit of them all by modification time, oldest first. Each read
// of each is said to each.
func (f *Follower) History(each func(Read)) error {
	type logFile struct {
		path string
		mod  time.Time
	}
	var logs []logFile
	seen := map[string]bool{}
	for _, dir := range f.Dirs {
		entries, err := os.ReadDir(dir)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".jsonl") {
				continue
			}
			info, err := e.Info()
			if err != nil || !info.Mode().IsRegular() || info.Size() == 0 {
				continue
			}
			p := filepath.Join(dir, e.Name())
			if seen[p] {
				continue // a folder given twice
			}
			seen[p] = true
			logs = append(logs, logFile{p, info.ModTime()})
		}
	}
	sort.Slice(logs, func(i, j int) bool {
		if !logs[i].mod.Equal(logs[j].mod) {
			return logs[i].mod.Before(logs[j].mod)
		}
		return logs[i].path < logs[j].path
	})
	if f.HistoryLimit > 0 && len(logs) > f.HistoryLimit {
		logs = logs[len(logs)-f.HistoryLimit:]
	}
	for _, l := range logs {
		f.drain(f.follow(l.path), each)
	}
	return nil
}

// follow returns the tail of path, starting one at offset 0 if needed.
func (f *Follower) follow(path string) *tail {
	t := f.tails[path]
	if t == nil {
		t = &tail{path: path, config: f.Config, marks: f.marks}
		t.restart()
		f.tails[path] = t
	}
	return t
}

// restart reads the log again from its start with a new engine.
func (t *tail) restart() {
	t.off, t.lines, t.file = 0, 0, nil
	cfg := checker.Config{}
	if t.config != nil {
		cfg = t.config(t.path)
	}
	t.eng = checker.New(cfg)
}

// drain reads t until it has nothing new, saying each read.
func (f *Follower) drain(t *tail, each func(Read)) {
	for {
		more, err := t.read()
		r := Read{Path: t.path}
		if err != nil {
			t.broken = true
			r.Notices = append(r.Notices, fmt.Sprintf("stopped following %s: %v", filepath.Base(t.path), err))
		}
		each(r)
		if !more || err != nil {
			return
		}
	}
}

// Run follows the directories until ctx ends or the watcher is closed,
// saying each read to send (from Run's goroutine).
//
// Idle, it wakes once per Poll to stat the logs it follows (a fallback for
// writes the watcher did not report) and reads nothing.
func (f *Follower) Run(ctx context.Context, send func(Read)) {
	poll := f.Poll
	if poll <= 0 {
		poll = time.Second
	}
	pollTick := time.NewTicker(poll)
	defer pollTick.Stop()
	// Events mark logs dirty and a short timer, armed by the first of
	// them, reads them, so a chatty log is read in batches rather than
	// once per write.
	var readC <-chan time.Time
	dirty := map[string]bool{}
	mark := func(p string) {
		dirty[p] = true
		if readC == nil {
			readC = time.After(50 * time.Millisecond)
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-f.watcher.Events:
			if !ok {
				return
			}
			if !strings.HasSuffix(ev.Name, ".jsonl") {
				continue
			}
			switch {
			case ev.Has(fsnotify.Create) || ev.Has(fsnotify.Write):
				mark(ev.Name)
			case ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename):
				delete(f.tails, ev.Name) // what it said stays said
				delete(dirty, ev.Name)
			}
		case err, ok := <-f.watcher.Errors:
			if !ok {
				return
			}
			send(Read{Notices: []string{"watching " + strings.Join(f.Dirs, ", ") + ": " + err.Error()}})
		case <-pollTick.C:
			for p, t := range f.tails {
				if info, err := os.Stat(p); err == nil && !t.broken && info.Size() != t.off {
					mark(p)
				}
			}
		case <-readC:
			readC = nil
			for p := range dirty {
				delete(dirty, p)
				t := f.follow(p)
				if t.broken {
					continue
				}
				f.drain(t, send)
				if ctx.Err() != nil {
					return
				}
			}
		}
	}
}

// read reads the complete lines t has not read yet, up to readWindow
// bytes (more when one line is longer). more reports that the log holds
// more complete lines than were read.
func (t *tail) read() (more bool, err error) {
	fh, err := os.Open(t.path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return false, nil // removed meanwhile: nothing to read
		}
		return false, err
	}
	defer fh.Close()
	info, err := fh.Stat()
	if err != nil {
		return false, err
	}
	size := info.Size()
	if size < t.off || (t.file != nil && !os.SameFile(t.file, info)) {
		// Truncated or replaced: read it again from the start; the seq
		// marks keep the frames passed on already from coming twice.
		t.restart()
	}
	t.file = info
	for window := int64(readWindow); ; window *= 2 {
		n := min(size-t.off, window)
		if n <= 0 {
			return false, nil
		}
		buf := make([]byte, n)
		if _, err := fh.ReadAt(buf, t.off); err != nil && err != io.EOF {
			return false, err
		}
		end := bytes.LastIndexByte(buf, '\n')
		if end < 0 {
			if n < size-t.off && window < capture.MaxEnvelope {
				continue // one line longer than the window
			}
			return false, nil // a partial line: wait for its newline
		}
		chunk := buf[:end+1]
		if err := t.ingest(chunk); err != nil {
			return false, err
		}
		t.off += int64(len(chunk))
		t.lines += bytes.Count(chunk, []byte{'\n'})
		return t.off < size, nil
	}
}

// ingest feeds the envelopes of whole lines to the engine.
func (t *tail) ingest(chunk []byte) error {
	r := capture.NewReader(bytes.NewReader(chunk), t.path)
	for {
		fr, line, err := r.Next()
		switch {
		case err == io.EOF:
			return nil
		case errors.Is(err, capture.ErrTornLine), errors.Is(err, capture.ErrTornTail):
			t.eng.TornTail()
			continue
		case err != nil:
			return err
		}
		if !t.marks.accept(fr.SessionID, fr.Seq) {
			continue // passed on already (§5 dedup)
		}
		t.eng.Ingest(&fr, checker.Position{Path: t.path, Name: t.path, Line: t.lines + line})
	}
}
