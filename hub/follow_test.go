package hub

import (
	"context"
	"os"
	"path/filepath"
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
	if !m.accept("s", 0) || !m.accept("s", 0) || !m.accept("s", 2) || m.accept("s", 0) || m.accept("s", 2) || !m.accept("s", 3) {
		t.Error("marks: seq 0 passes until a seq above 0 is seen, then seq <= mark is dropped")
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
