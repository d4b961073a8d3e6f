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
	"maps"
	"math/rand/v2"
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
// with Config when the log has lines to read, so calls that span two
// reads are matched like in one pass. A log that read nothing new for
// IdleRelease and has no call open gives its engine back, and at most
// MaxEngines logs hold one (past it the least recently read gives its
// back, one with no call open first): a hub following thousands of
// finished logs keeps what it needs to go on reading each (where it
// stopped, the file it read) and no engine. A log read again after that
// gets a new engine that goes on from where the last one stopped; the call
// indexes and frame ordinals it reports go on from the last engine's, so
// consumers see one numbering per session. Logs that hold an engine are
// looked at every Poll; the others every DormantPoll (file-system events
// say when they are written in any case).
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
	Poll         time.Duration // how often logs with an engine are looked at without an event (default 1s)
	// DormantPoll is how often a log without an engine is looked at
	// without an event (default DefaultDormantPoll).
	DormantPoll time.Duration
	// IdleRelease is how long a log with no call open may read nothing new
	// before its engine is released (default DefaultIdleRelease; negative:
	// never).
	IdleRelease time.Duration
	// MaxEngines is how many logs hold an engine at once (default
	// DefaultMaxEngines).
	MaxEngines int
	// Config returns the configuration of a new engine for path (its
	// callbacks get what the log's frames come to).
	Config func(path string) checker.Config
	// Backlog, when set, is told (reading true) before the follower reads
	// the part of a log that was written before History ran but not loaded
	// as history (the history limit left the log out), and (false) after:
	// that part is read only when the log is written again, for the state
	// of its sessions, and is not new traffic.
	Backlog func(path string, reading bool)
	// Forget, when set, is told when a log is no longer followed (removed
	// or renamed): nothing more will be read from path until a log is
	// created there again.
	Forget func(path string)
	// HistoryProgress, when set, is told after each read History makes
	// how many bytes of the logs it loads were read so far, of how many
	// (their sizes when it began): a viewer says how far loading has got.
	HistoryProgress func(read, total int64)

	watcher *fsnotify.Watcher
	tails   map[string]*tail
	marks   *seqMarks
	engines int                               // tails holding an engine
	stat    func(string) (os.FileInfo, error) // os.Stat; a test counts the calls
}

// Defaults of the Follower's bounds.
const (
	DefaultIdleRelease = 5 * time.Minute
	DefaultMaxEngines  = 256
	DefaultDormantPoll = time.Minute
)

type tail struct {
	path     string
	off      int64 // bytes consumed: always just after a newline
	lines    int   // lines consumed
	size     int64 // the log's size when last looked at
	file     os.FileInfo
	backlog  int64           // the bytes before it are not new traffic (see Follower.Backlog)
	eng      *checker.Engine // nil while released
	read     time.Time       // when lines were last read
	nextLook time.Time       // when a tail without an engine is looked at next
	// next is, per session, the call index and frame ordinal the next
	// engine of this log starts from.
	next   map[string]numbering
	broken bool
	// lastSession is the session of the log's last frame read, which a
	// line that cannot be read is counted against.
	lastSession string
}

type numbering struct{ calls, frames int }

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
			forgetOldest(s.m, func(mk *seqMark) uint64 { return mk.touched })
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
// of each is said to each. The logs it leaves out are followed from their
// present end: what they held already is backlog (see Follower.Backlog).
func (f *Follower) History(each func(Read)) error {
	type logFile struct {
		path string
		info os.FileInfo
	}
	var logs []logFile
	seen := map[string]bool{}
	for _, dir := range f.Dirs {
		entries, err := os.ReadDir(dir)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		for _, e := range entries {
			if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".jsonl") {
				continue // a folder, a link, a device
			}
			p := filepath.Join(dir, e.Name())
			if seen[p] {
				continue // a folder given twice
			}
			info, err := f.statFn()(p)
			if err != nil || !info.Mode().IsRegular() || info.Size() == 0 {
				continue
			}
			seen[p] = true
			logs = append(logs, logFile{p, info})
		}
	}
	sort.Slice(logs, func(i, j int) bool {
		if mi, mj := logs[i].info.ModTime(), logs[j].info.ModTime(); !mi.Equal(mj) {
			return mi.Before(mj)
		}
		return logs[i].path < logs[j].path
	})
	if f.HistoryLimit > 0 && len(logs) > f.HistoryLimit {
		now := time.Now()
		skipped := logs[:len(logs)-f.HistoryLimit]
		for i, l := range skipped {
			if f.tails[l.path] != nil {
				continue
			}
			f.tails[l.path] = &tail{
				path: l.path, size: l.info.Size(), file: l.info, backlog: l.info.Size(),
				// Spread over the poll period, not all at once.
				nextLook: now.Add(f.dormantPoll() * time.Duration(i+1) / time.Duration(len(skipped))),
			}
		}
		logs = logs[len(logs)-f.HistoryLimit:]
	}
	var total, done int64
	for _, l := range logs {
		total += l.info.Size()
	}
	for _, l := range logs {
		t := f.follow(l.path)
		from := t.off
		f.drain(t, func(r Read) {
			each(r)
			if f.HistoryProgress != nil {
				f.HistoryProgress(done+t.off-from, total)
			}
		})
		done += t.off - from
	}
	return nil
}

func (f *Follower) statFn() func(string) (os.FileInfo, error) {
	if f.stat != nil {
		return f.stat
	}
	return os.Stat
}

func (f *Follower) dormantPoll() time.Duration {
	if f.DormantPoll > 0 {
		return f.DormantPoll
	}
	return DefaultDormantPoll
}

// follow returns the tail of path, starting one at offset 0 if needed.
func (f *Follower) follow(path string) *tail {
	t := f.tails[path]
	if t == nil {
		t = &tail{path: path}
		f.tails[path] = t
	}
	return t
}

// forget stops following path.
func (f *Follower) forget(path string) {
	t := f.tails[path]
	if t == nil {
		return
	}
	f.release(t, time.Now())
	delete(f.tails, path) // what it said stays said
	if f.Forget != nil {
		f.Forget(path)
	}
}

// restart reads the log again from its start with a new engine.
func (f *Follower) restart(t *tail) {
	f.release(t, time.Now())
	t.off, t.lines, t.file, t.backlog = 0, 0, nil, 0
}

// attach gives t an engine, releasing another's past MaxEngines.
func (f *Follower) attach(t *tail) {
	limit := f.MaxEngines
	if limit <= 0 {
		limit = DefaultMaxEngines
	}
	for f.engines >= limit && f.releaseOldest(t) {
	}
	cfg := checker.Config{}
	if f.Config != nil {
		cfg = f.Config(t.path)
	}
	t.eng = checker.New(t.numbered(cfg))
	f.engines++
}

// release drops t's engine; t keeps where it stopped. It is looked at
// next within DormantPoll of now, at a random point of its second half,
// so that logs released together are not all looked at together.
func (f *Follower) release(t *tail, now time.Time) {
	if t.eng != nil {
		t.eng = nil
		f.engines--
		d := f.dormantPoll()
		t.nextLook = now.Add(d - rand.N(d/2+1))
	}
}

// releaseOldest releases the engine of the least recently read log other
// than keep, one with no call open if there is one. It reports false when
// there is none to release.
func (f *Follower) releaseOldest(keep *tail) bool {
	var oldest, oldestIdle *tail
	for _, t := range f.tails {
		if t.eng == nil || t == keep {
			continue
		}
		if oldest == nil || t.read.Before(oldest.read) {
			oldest = t
		}
		if t.eng.Open() == 0 && (oldestIdle == nil || t.read.Before(oldestIdle.read)) {
			oldestIdle = t
		}
	}
	if oldestIdle != nil {
		oldest = oldestIdle
	}
	if oldest == nil {
		return false
	}
	f.release(oldest, time.Now())
	return true
}

// numbered wraps cfg's callbacks so that an engine that goes on with a
// log another engine read before numbers the calls and frames of its
// sessions on from where that one stopped.
func (t *tail) numbered(cfg checker.Config) checker.Config {
	from := maps.Clone(t.next)
	if on := cfg.OnFrame; on != nil {
		cfg.OnFrame = func(ev *checker.FrameEvent) {
			n := from[ev.SessionID]
			ev.Ordinal += n.frames
			if ev.CallIndex >= 0 {
				ev.CallIndex += n.calls
			}
			t.used(ev.SessionID, ev.CallIndex+1, ev.Ordinal+1)
			on(ev)
		}
	}
	if on := cfg.OnCall; on != nil {
		cfg.OnCall = func(r checker.CallRecord) {
			r.Index += from[r.SessionID].calls
			t.used(r.SessionID, r.Index+1, 0)
			on(r)
		}
	}
	return cfg
}

// used notes the numbers a session of t has used up.
func (t *tail) used(session string, calls, frames int) {
	n, ok := t.next[session]
	if ok && n.calls >= calls && n.frames >= frames {
		return
	}
	if t.next == nil {
		t.next = map[string]numbering{}
	}
	if !ok {
		session = strings.Clone(session)
	}
	t.next[session] = numbering{calls: max(n.calls, calls), frames: max(n.frames, frames)}
}

// drain reads t until it has nothing new, saying each read.
func (f *Follower) drain(t *tail, each func(Read)) {
	for {
		more, err := f.read(t)
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
// Idle, it wakes once per Poll to look at the logs that hold an engine (a
// fallback for writes the watcher did not report), at the others every
// DormantPoll, and reads nothing.
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
				f.forget(ev.Name)
				delete(dirty, ev.Name)
			}
		case err, ok := <-f.watcher.Errors:
			if !ok {
				return
			}
			send(Read{Notices: []string{"watching " + strings.Join(f.Dirs, ", ") + ": " + err.Error()}})
		case now := <-pollTick.C:
			f.poll(now, mark)
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

// poll releases the engines of logs idle past IdleRelease with no call
// open, and marks the logs that changed since they were last looked at:
// those holding an engine every time, the others when their turn comes.
func (f *Follower) poll(now time.Time, mark func(string)) {
	idle := f.IdleRelease
	if idle == 0 {
		idle = DefaultIdleRelease
	}
	stat := f.statFn()
	for p, t := range f.tails {
		if t.broken {
			f.release(t, now) // read no more
			continue
		}
		switch {
		case t.eng != nil && idle > 0 && now.Sub(t.read) >= idle && t.eng.Open() == 0:
			f.release(t, now)
			continue
		case t.eng != nil:
		case now.Before(t.nextLook):
			continue
		default:
			t.nextLook = now.Add(f.dormantPoll())
		}
		if info, err := stat(p); err == nil && t.changed(info) {
			mark(p)
		}
	}
}

// changed reports whether info shows the log otherwise than t last saw it.
func (t *tail) changed(info os.FileInfo) bool {
	return info.Size() != t.size || (t.file != nil && !os.SameFile(t.file, info))
}

// read reads the complete lines t has not read yet, up to readWindow
// bytes (more when one line is longer). more reports that the log holds
// more complete lines than were read.
func (f *Follower) read(t *tail) (more bool, err error) {
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
		f.restart(t)
	}
	t.file, t.size = info, size
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
		if t.eng == nil {
			f.attach(t)
		}
		t.read = time.Now()
		chunk := buf[:end+1]
		if err := f.ingestBacklog(t, chunk); err != nil {
			return false, err
		}
		t.off += int64(len(chunk))
		t.lines += bytes.Count(chunk, []byte{'\n'})
		return t.off < size, nil
	}
}

// ingestBacklog feeds chunk (read at t.off) to t's engine, telling
// Backlog about the whole lines of it that end within t.backlog.
func (f *Follower) ingestBacklog(t *tail, chunk []byte) error {
	if t.off >= t.backlog {
		return f.ingest(t, chunk, 0)
	}
	old := bytes.LastIndexByte(chunk[:min(int64(len(chunk)), t.backlog-t.off)], '\n') + 1
	if old > 0 {
		if f.Backlog != nil {
			f.Backlog(t.path, true)
		}
		err := f.ingest(t, chunk[:old], 0)
		if f.Backlog != nil {
			f.Backlog(t.path, false)
		}
		if err != nil {
			return err
		}
	}
	if old == len(chunk) {
		return nil
	}
	t.backlog = 0 // past it
	return f.ingest(t, chunk[old:], bytes.Count(chunk[:old], []byte{'\n'}))
}

// ingest feeds the envelopes of whole lines to the engine; skip is how
// many lines of the chunk were read before it.
func (f *Follower) ingest(t *tail, chunk []byte, skip int) error {
	r := capture.NewReader(bytes.NewReader(chunk), t.path)
	for {
		fr, line, err := r.Next()
		switch {
		case err == io.EOF:
			return nil
		case errors.Is(err, capture.ErrTornLine), errors.Is(err, capture.ErrTornTail):
			t.eng.TornTail()
			continue
		case errors.Is(err, capture.ErrUnreadableLine) && t.lastSession != "":
			// One bad line costs one invalid frame, not the rest of the log.
			var le *capture.LineError
			if errors.As(err, &le) {
				line = le.Line
			}
			t.eng.UnreadableLine(t.lastSession, checker.Position{Path: t.path, Name: t.path, Line: t.lines + skip + line}, err)
			continue
		case err != nil:
			return err
		}
		if fr.SessionID != t.lastSession {
			t.lastSession = strings.Clone(fr.SessionID)
		}
		if !f.marks.accept(fr.SessionID, fr.Seq) {
			continue // passed on already (§5 dedup)
		}
		t.eng.Ingest(&fr, checker.Position{Path: t.path, Name: t.path, Line: t.lines + skip + line})
	}
}
