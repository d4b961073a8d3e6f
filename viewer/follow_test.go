package viewer

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// collect applies the batches the follower sends to a store, on the test's
// goroutine, until want reports true.
func collect(t *testing.T, batches <-chan Batch, st *Store, what string, want func() bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for !want() {
		select {
		case b := <-batches:
			st.Apply(b.Changes)
		case <-deadline:
			t.Fatalf("timed out waiting for %s", what)
		}
	}
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

// TestFollowerPicksUpLogs: the history limit keeps the newest logs; a log
// created while following shows up; a growing log is read from where it
// was left, a partial last line only once its newline arrives; a call
// spanning two reads is matched.
func TestFollowerPicksUpLogs(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.jsonl")
	appendFile(t, old, frameLine("old", 1, "c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	newer := filepath.Join(dir, "newer.jsonl")
	appendFile(t, newer, frameLine("newer", 1, "c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	past := time.Now().Add(-time.Hour)
	os.Chtimes(old, past, past)

	fol := NewFollower([]string{dir}, 1)
	if err := fol.Start(); err != nil {
		t.Fatal(err)
	}
	defer fol.Close()
	st := NewStore(LiveLimits)
	if err := fol.History(func(b Batch) { st.Apply(b.Changes) }); err != nil {
		t.Fatal(err)
	}
	if len(st.Sessions) != 1 || st.Sessions[0].ID != "newer" {
		t.Fatalf("history limit 1 loads the newest log only, got %d sessions", len(st.Sessions))
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	batches := make(chan Batch, 64)
	go fol.Run(ctx, func(b Batch) { batches <- b })

	live := filepath.Join(dir, "live-1-aaaaaaaaaaaa.jsonl")
	req := frameLine("live", 1, "c2s", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`)
	appendFile(t, live, req)
	collect(t, batches, st, "the new log", func() bool { s := st.Session("live"); return s != nil && len(s.Rows) == 1 })
	s := st.Session("live")
	if s.Rows[0].Status() != "pending" || s.Path != live {
		t.Fatalf("new log: status %q, path %q", s.Rows[0].Status(), s.Path)
	}

	resp := frameLine("live", 2, "s2c", `{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`)
	appendFile(t, live, resp[:20]) // a partial line: nothing yet
	time.Sleep(300 * time.Millisecond)
	for len(batches) > 0 {
		st.Apply((<-batches).Changes)
	}
	if len(s.Rows) != 1 {
		t.Fatalf("a partial line was read as a frame: %d rows", len(s.Rows))
	}
	appendFile(t, live, resp[20:])
	collect(t, batches, st, "the answer", func() bool { return len(s.Rows) == 2 })
	if s.Rows[0].Status() != "ok" || s.Rows[1].Line != 2 {
		t.Errorf("after the answer: status %q, line %d", s.Rows[0].Status(), s.Rows[1].Line)
	}
}

// TestFollowerRemovedLog: a log deleted while followed is let go without
// a complaint, and its rows stay.
func TestFollowerRemovedLog(t *testing.T) {
	dir := t.TempDir()
	fol := NewFollower([]string{dir}, 0)
	if err := fol.Start(); err != nil {
		t.Fatal(err)
	}
	defer fol.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	batches := make(chan Batch, 64)
	go fol.Run(ctx, func(b Batch) { batches <- b })
	st := NewStore(LiveLimits)
	p := filepath.Join(dir, "gone.jsonl")
	appendFile(t, p, frameLine("gone", 1, "c2s", `{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	collect(t, batches, st, "the log", func() bool { return st.Session("gone") != nil })
	os.Remove(p)
	time.Sleep(1200 * time.Millisecond)
	for len(batches) > 0 {
		if b := <-batches; len(b.Notices) > 0 {
			t.Errorf("notice for a removed log: %v", b.Notices)
		}
	}
	if len(st.Session("gone").Rows) != 1 {
		t.Error("the rows of a removed log stay")
	}
}
