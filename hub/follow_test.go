package hub

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/checker"
)

const pingRaw = `{"jsonrpc":"2.0","method":"notifications/progress"}`

// frameLine is one envelope of session sid.
func frameLine(sid string, seq int, dir, raw string) string {
	ts := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC).Add(time.Duration(seq) * 10 * time.Millisecond)
	return `{"session_id":"` + sid + `","server_label":"live","seq":` + strconv.Itoa(seq) + `,"ts":"` + ts.Format(time.RFC3339Nano) +
		`","direction":"` + dir + `","transport":"stdio","raw":` + raw + "}\n"
}

// seen records the seqs the engines were given, per session.
type seen struct {
	mu   sync.Mutex
	seqs map[string][]string
}

func (s *seen) config(string) checker.Config {
	return checker.Config{OnFrame: func(ev *checker.FrameEvent) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.seqs == nil {
			s.seqs = map[string][]string{}
		}
		s.seqs[ev.SessionID] = append(s.seqs[ev.SessionID], strconv.FormatUint(ev.Frame.Seq, 10))
	}}
}

func (s *seen) of(sid string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.seqs[sid], ",")
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// TestFollowerTruncatedLog: a log truncated and written again (the same
// frames, then new ones) is read again from its start instead of being
// abandoned, and the frames passed on already are not passed twice; the
// same goes for a log removed and created again.
func TestFollowerTruncatedLog(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.jsonl")
	var log string
	for seq := 1; seq <= 3; seq++ {
		log += frameLine("tr", seq, "c2s", pingRaw)
	}
	os.WriteFile(p, []byte(log), 0o600)
	var s seen
	f := NewFollower([]string{dir}, 0, s.config)
	var notices []string
	apply := func(r Read) { notices = append(notices, r.Notices...) }
	f.History(apply)
	// Truncate, then write the same frames and one more: shorter than
	// before at first, so the follower sees it shrink.
	os.WriteFile(p, []byte(frameLine("tr", 1, "c2s", pingRaw)), 0o600)
	f.drain(f.follow(p), apply)
	appendFile(t, p, frameLine("tr", 2, "c2s", pingRaw)+frameLine("tr", 3, "c2s", pingRaw)+frameLine("tr", 4, "c2s", pingRaw))
	f.drain(f.follow(p), apply)
	if got := s.of("tr"); got != "1,2,3,4" || len(notices) > 0 || f.follow(p).broken {
		t.Errorf("after truncation: frames %s, notices %v, broken %v; want 1,2,3,4", got, notices, f.follow(p).broken)
	}
	// Removed and created again with the same content and one more frame.
	os.Remove(p)
	delete(f.tails, p) // what Run does on the Remove event
	os.WriteFile(p, []byte(log+frameLine("tr", 4, "c2s", pingRaw)+frameLine("tr", 5, "c2s", pingRaw)), 0o600)
	f.drain(f.follow(p), apply)
	if got := s.of("tr"); got != "1,2,3,4,5" {
		t.Errorf("after re-creation: frames %s; want 1,2,3,4,5", got)
	}
}

// TestSeqMarks: seq 0 passes until a seq above 0 is seen, then a seq at
// or below the mark is dropped (capture-store-export.md §5).
func TestSeqMarks(t *testing.T) {
	m := newSeqMarks()
	// In order: each call moves the mark, so the same call may answer
	// differently the second time.
	for i, step := range []struct {
		seq  uint64
		want bool
	}{{0, true}, {0, true}, {2, true}, {0, false}, {2, false}, {3, true}} {
		if got := m.accept("s", step.seq); got != step.want {
			t.Errorf("step %d: accept(seq %d) = %v, want %v (seq 0 passes until a seq above 0 is seen, then seq <= mark is dropped)", i, step.seq, got, step.want)
		}
	}
}

// TestSeqMarksEvict: the marks hold at most maxMarks sessions, forgetting
// the least recently touched quarter.
func TestSeqMarksEvict(t *testing.T) {
	m := newSeqMarks()
	for i := 0; i <= maxMarks; i++ {
		m.accept(strconv.Itoa(i), 5)
		m.accept("0", 6) // kept fresh
	}
	if len(m.m) > maxMarks || m.m["0"] == nil || m.m["1"] != nil {
		t.Errorf("%d marks; 0 kept %v, 1 evicted %v", len(m.m), m.m["0"] != nil, m.m["1"] == nil)
	}
}

// TestFollowerSeveralDirs: the history limit counts the logs of every
// folder together (the newest win), and a log created later in any of
// them is followed.
func TestFollowerSeveralDirs(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	old := time.Now().Add(-time.Hour)
	for i, dir := range []string{a, b, a} {
		p := filepath.Join(dir, "s"+strconv.Itoa(i)+".jsonl")
		os.WriteFile(p, []byte(frameLine("s"+strconv.Itoa(i), 1, "c2s", pingRaw)), 0o600)
		os.Chtimes(p, old.Add(time.Duration(i)*time.Minute), old.Add(time.Duration(i)*time.Minute))
	}
	var s seen
	f := NewFollower([]string{a, b, a}, 2, s.config)
	if err := f.Start(); err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.History(func(Read) {}); err != nil {
		t.Fatal(err)
	}
	if s.of("s0") != "" || s.of("s1") != "1" || s.of("s2") != "1" {
		t.Errorf("history: s0 %q s1 %q s2 %q; want the newest two", s.of("s0"), s.of("s1"), s.of("s2"))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go f.Run(ctx, func(Read) {})
	appendFile(t, filepath.Join(b, "new.jsonl"), frameLine("new", 1, "c2s", pingRaw))
	appendFile(t, filepath.Join(a, "s2.jsonl"), frameLine("s2", 2, "c2s", pingRaw))
	waitFor(t, "the new log and the growing one", func() bool { return s.of("new") == "1" && s.of("s2") == "1,2" })
}

// waitFor polls cond until it holds; past a minute the test fails, naming
// what it waited for, rather than hanging until the test binary's timeout.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestFollowerMemoryBounded: a follower of thousands of finished logs
// holds what it needs to go on reading each, not an engine each: at most
// DefaultMaxEngines logs hold one.
func TestFollowerMemoryBounded(t *testing.T) {
	dir := t.TempDir()
	const logs = 2000
	for i := 0; i < logs; i++ {
		sid := "s" + strconv.Itoa(i) + "-1-aaaa"
		l := newLog(sid, "srv"+strconv.Itoa(i%7), "stdio").meta("/srv/x", "/").init()
		for c := 1; c <= 20; c++ {
			l.toolCall(c, "tool-"+strconv.Itoa(c)).result(c, time.Millisecond, `{"content":[{"type":"text","text":"ok"}]}`)
		}
		os.WriteFile(filepath.Join(dir, sid+".jsonl"), []byte(l.String()), 0o600)
	}
	heap := func() float64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return float64(ms.HeapAlloc)
	}
	before := heap()
	m := NewMetrics()
	f := NewFollower([]string{dir}, 0, m.Config)
	if err := f.History(func(Read) {}); err != nil {
		t.Fatal(err)
	}
	perLog := (heap() - before) / logs
	runtime.KeepAlive(f)
	t.Logf("%.0f bytes held per followed log", perLog)
	if f.engines > DefaultMaxEngines {
		t.Errorf("%d engines held, want at most %d", f.engines, DefaultMaxEngines)
	}
	// Measured: 13.7 KiB a log with an engine each, 3 KiB with at most
	// DefaultMaxEngines of them.
	if perLog > 6<<10 {
		t.Errorf("%.0f bytes held per finished log, want under 6 KiB", perLog)
	}
}

// record keeps what a log's engines said: per frame its session, ordinal
// and call index, and the index of each call that ended.
type record struct {
	frames []string // "seq ordinal callIndex"
	calls  []int
}

func (r *record) config(string) checker.Config {
	return checker.Config{
		OnFrame: func(ev *checker.FrameEvent) {
			r.frames = append(r.frames, strconv.FormatUint(ev.Frame.Seq, 10)+" "+strconv.Itoa(ev.Ordinal)+" "+strconv.Itoa(ev.CallIndex))
		},
		OnCall: func(c checker.CallRecord) { r.calls = append(r.calls, c.Index) },
	}
}

// TestFollowerReleasesIdleEngines: a log idle past IdleRelease gives its
// engine back unless a call is open in it; read again later, it goes on
// from where it stopped (nothing read twice) and its engine goes on
// numbering the calls and frames where the last one stopped.
func TestFollowerReleasesIdleEngines(t *testing.T) {
	dir := t.TempDir()
	done := newLog("done-1-aaaa", "a", "stdio").meta("/a", "/").toolCall(1, "read").result(1, time.Millisecond, `{"content":[]}`)
	open := newLog("open-1-bbbb", "b", "stdio").meta("/b", "/").toolCall(1, "read")
	donePath, openPath := filepath.Join(dir, "done.jsonl"), filepath.Join(dir, "open.jsonl")
	os.WriteFile(donePath, []byte(done.take()), 0o600)
	os.WriteFile(openPath, []byte(open.take()), 0o600)
	recs := map[string]*record{}
	f := NewFollower([]string{dir}, 0, func(p string) checker.Config {
		if recs[p] == nil {
			recs[p] = &record{}
		}
		return recs[p].config(p)
	})
	f.IdleRelease = time.Minute
	if err := f.History(func(Read) {}); err != nil {
		t.Fatal(err)
	}
	if f.engines != 2 {
		t.Fatalf("%d engines after history, want 2", f.engines)
	}
	var marked []string
	mark := func(p string) { marked = append(marked, p) }
	f.poll(time.Now(), mark)
	if f.engines != 2 || len(marked) > 0 {
		t.Fatalf("not idle yet: %d engines, marked %v", f.engines, marked)
	}
	f.poll(time.Now().Add(time.Hour), mark)
	if f.tails[donePath].eng != nil || f.tails[openPath].eng == nil || f.engines != 1 || len(marked) > 0 {
		t.Fatalf("idle: done released %v, open kept %v, %d engines, marked %v; want the finished log's engine released",
			f.tails[donePath].eng == nil, f.tails[openPath].eng != nil, f.engines, marked)
	}
	appendFile(t, donePath, done.toolCall(2, "read").result(2, time.Millisecond, `{"content":[]}`).take())
	f.poll(time.Now().Add(2*time.Hour), mark) // its turn to be looked at
	if len(marked) != 1 || marked[0] != donePath {
		t.Fatalf("marked %v, want the grown log", marked)
	}
	f.drain(f.tails[donePath], func(Read) {})
	if got := strings.Join(recs[donePath].frames, ", "); got != "1 0 -1, 2 1 0, 3 2 0, 4 3 1, 5 4 1" {
		t.Errorf("frames (seq ordinal call) %s; want each once, numbered on", got)
	}
	if fmt.Sprint(recs[donePath].calls) != "[0 1]" {
		t.Errorf("calls ended %v, want [0 1]", recs[donePath].calls)
	}
}

// TestFollowerLooksAtDormantLogsSeldom: logs without an engine are not
// looked at every poll, only every DormantPoll, and logs released together
// are looked at spread over it, not all at once.
func TestFollowerLooksAtDormantLogsSeldom(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 100; i++ {
		os.WriteFile(filepath.Join(dir, "l"+strconv.Itoa(i)+".jsonl"), []byte(frameLine("l"+strconv.Itoa(i), 1, "c2s", pingRaw)), 0o600)
	}
	var s seen
	f := NewFollower([]string{dir}, 0, s.config)
	stats := 0
	f.stat = func(p string) (os.FileInfo, error) { stats++; return os.Stat(p) }
	if err := f.History(func(Read) {}); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	stats = 0
	f.poll(now.Add(time.Second), func(string) {})
	if stats != 100 {
		t.Errorf("%d logs looked at with their engines, want 100", stats)
	}
	released := now.Add(time.Hour)
	f.poll(released, func(string) {}) // idle: released
	if f.engines != 0 {
		t.Fatalf("%d engines left", f.engines)
	}
	stats = 0
	most := 0
	for sec := 1; sec <= 120; sec++ {
		before := stats
		f.poll(released.Add(time.Duration(sec)*time.Second), func(string) {})
		most = max(most, stats-before)
		if sec == 29 && stats != 0 {
			t.Errorf("%d looks within half a DormantPoll of the release, want none", stats)
		}
		if sec == 60 && stats != 100 {
			t.Errorf("%d looks within a DormantPoll of the release, want each log once", stats)
		}
	}
	if stats < 100 || stats > 200 || most > 25 {
		t.Errorf("%d looks in 2 minutes, at most %d in one poll; want each log once or twice, spread", stats, most)
	}
}

// TestFollowerHistoryProgress: History says after each read how much of
// the logs it loads it has read, of their total; a log the history limit
// leaves out counts in neither, and a log bigger than a read window is
// said in several steps.
func TestFollowerHistoryProgress(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-time.Hour)
	var big strings.Builder
	for seq := 1; big.Len() <= readWindow; seq++ {
		big.WriteString(frameLine("big", seq, "c2s", `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"`+strings.Repeat("x", 4000)+`"}}`))
	}
	logs := []struct{ name, data string }{
		{"left-out", frameLine("left-out", 1, "c2s", pingRaw)},
		{"small", frameLine("small", 1, "c2s", pingRaw) + frameLine("small", 2, "c2s", pingRaw)},
		{"big", big.String()},
	}
	for i, l := range logs {
		p := filepath.Join(dir, l.name+".jsonl")
		os.WriteFile(p, []byte(l.data), 0o600)
		at := old.Add(time.Duration(i) * time.Minute)
		os.Chtimes(p, at, at)
	}
	want := int64(len(logs[1].data) + len(logs[2].data))
	var s seen
	f := NewFollower([]string{dir}, 2, s.config)
	var said [][2]int64
	f.HistoryProgress = func(read, total int64) { said = append(said, [2]int64{read, total}) }
	if err := f.History(func(Read) {}); err != nil {
		t.Fatal(err)
	}
	if len(said) < 3 {
		t.Fatalf("said %v, want a step for the small log and two or more for the big one", said)
	}
	var last int64
	for _, p := range said {
		if p[1] != want || p[0] < last || p[0] > want {
			t.Fatalf("said %v: want read rising to a total of %d", said, want)
		}
		last = p[0]
	}
	if last != want {
		t.Errorf("last said %d read, want %d", last, want)
	}
}
