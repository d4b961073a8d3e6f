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
	f := NewFollower([]string{dir}, 0)
	st := NewStore(LiveLimits)
	f.History(func(b Batch) { st.Apply(b.Changes) })
	s := st.Session("dup")
	if got := seqs(s); got != "1,2,3,4,5,6" || s.Frames != 6 {
		t.Errorf("rows %s (%d frames); want each of 1..6 once", got, s.Frames)
	}
}

// TestFollowerSeqZero: a log whose envelopes carry no seq (0) is shown
// whole: a session that never had a seq above 0 is not deduplicated.
func TestFollowerSeqZero(t *testing.T) {
	dir := t.TempDir()
	line := strings.Replace(frameLine("zero", 0, "c2s", pingRaw), `"seq":0,`, "", 1)
	os.WriteFile(filepath.Join(dir, "z.jsonl"), []byte(line+line+frameLine("zero", 0, "c2s", pingRaw)), 0o600)
	f := NewFollower([]string{dir}, 0)
	st := NewStore(LiveLimits)
	f.History(func(b Batch) { st.Apply(b.Changes) })
	if s := st.Session("zero"); s == nil || len(s.Rows) != 3 {
		t.Fatalf("a log without seq: %v", s)
	}
}
