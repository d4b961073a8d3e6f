package viewer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const pingRaw = `{"jsonrpc":"2.0","method":"notifications/progress"}`

func seqs(s *Session) string {
	var out []string
	for _, r := range s.Rows {
		out = append(out, itoa(int(r.Seq)))
	}
	return strings.Join(out, ",")
}

// TestFollowerDedupTwoLogs: one session's frames arriving through two
// logs (overlapping) are shown once each (capture-store-export.md §5).
func TestFollowerDedupTwoLogs(t *testing.T) {
	dir := t.TempDir()
	var a, b string
	for seq := 1; seq <= 4; seq++ {
		a += frameLine("dup", seq, "c2s", pingRaw)
	}
	for seq := 3; seq <= 6; seq++ {
		b += frameLine("dup", seq, "c2s", pingRaw)
	}
	os.WriteFile(filepath.Join(dir, "a.jsonl"), []byte(a), 0o600)
	os.WriteFile(filepath.Join(dir, "b.jsonl"), []byte(b), 0o600)
	f := NewFollower(dir, 0)
	st := NewStore(LiveLimits)
	f.History(func(b Batch) { st.Apply(b.Changes) })
	s := st.Session("dup")
	if got := seqs(s); got != "1,2,3,4,5,6" || s.Frames != 6 {
		t.Errorf("rows %s (%d frames); want each of 1..6 once", got, s.Frames)
	}
}

// TestFollowerTruncatedLog: a log truncated and written again (the same
// frames, then new ones) is read again from its start instead of being
// abandoned, and the frames shown already are not shown twice; the same
// goes for a log removed and created again.
func TestFollowerTruncatedLog(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "t.jsonl")
	var log string
	for seq := 1; seq <= 3; seq++ {
		log += frameLine("tr", seq, "c2s", pingRaw)
	}
	os.WriteFile(p, []byte(log), 0o600)
	f := NewFollower(dir, 0)
	st := NewStore(LiveLimits)
	var notices []string
	apply := func(b Batch) { st.Apply(b.Changes); notices = append(notices, b.Notices...) }
	f.History(apply)
	// Truncate, then write the same frames and one more: shorter than
	// before at first, so the follower sees it shrink.
	os.WriteFile(p, []byte(frameLine("tr", 1, "c2s", pingRaw)), 0o600)
	f.drain(f.follow(p), apply)
	appendFile(t, p, frameLine("tr", 2, "c2s", pingRaw)+frameLine("tr", 3, "c2s", pingRaw)+frameLine("tr", 4, "c2s", pingRaw))
	f.drain(f.follow(p), apply)
	s := st.Session("tr")
	if got := seqs(s); got != "1,2,3,4" || len(notices) > 0 || f.follow(p).broken {
		t.Errorf("after truncation: rows %s, notices %v, broken %v; want 1,2,3,4", got, notices, f.follow(p).broken)
	}
	// Removed and created again with the same content and one more frame.
	os.Remove(p)
	delete(f.tails, p) // what Run does on the Remove event
	os.WriteFile(p, []byte(log+frameLine("tr", 4, "c2s", pingRaw)+frameLine("tr", 5, "c2s", pingRaw)), 0o600)
	f.drain(f.follow(p), apply)
	if got := seqs(s); got != "1,2,3,4,5" {
		t.Errorf("after re-creation: rows %s; want 1,2,3,4,5", got)
	}
}

// TestFollowerSeqZero: a log whose envelopes carry no seq (0) is shown
// whole: a session that never had a seq above 0 is not deduplicated.
func TestFollowerSeqZero(t *testing.T) {
	dir := t.TempDir()
	line := strings.Replace(frameLine("zero", 0, "c2s", pingRaw), `"seq":0,`, "", 1)
	os.WriteFile(filepath.Join(dir, "z.jsonl"), []byte(line+line+frameLine("zero", 0, "c2s", pingRaw)), 0o600)
	f := NewFollower(dir, 0)
	st := NewStore(LiveLimits)
	f.History(func(b Batch) { st.Apply(b.Changes) })
	if s := st.Session("zero"); s == nil || len(s.Rows) != 3 {
		t.Fatalf("a log without seq: %v", s)
	}
	// Once a seq above 0 is seen, seq 0 is discarded as §5 says.
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
		m.accept(itoa(i), 5)
		m.accept("0", 6) // kept fresh
	}
	if len(m.m) > maxMarks || m.m["0"] == nil || m.m["1"] != nil {
		t.Errorf("%d marks; 0 kept %v, 1 evicted %v", len(m.m), m.m["0"] != nil, m.m["1"] == nil)
	}
}
