package viewer

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/mcpsnoop/mcpsnoop/capture"
)

// header is the first line of the screen.
func header(m *Model) string {
	first, _, _ := strings.Cut(screen(m), "\n")
	return first
}

// open's viewer over a big log starts before the log is read: it says how
// far loading has got, then shows what was loaded as if it had been there
// from the start (one session opens on its stream).
func TestLoadingThenLoaded(t *testing.T) {
	m := sized(New(NewStore(Limits{}), Options{Loading: true}))
	if s := screen(m); !strings.Contains(s, "  loading…\n") || strings.Contains(s, "no sessions yet") {
		t.Fatalf("before anything is read:\n%s", s)
	}
	m.Update(Loading{Read: 123_000_000, Total: 417_000_000})
	if s := screen(m); !strings.Contains(s, "  loading 123 MB of 417 MB…\n") || !strings.Contains(header(m), "loading 123 MB of 417 MB… · 0 sessions") {
		t.Fatalf("while reading:\n%s", s)
	}
	if _, cmd := m.Update(Loaded{Store: loadFixture(t, "store-example.jsonl")}); cmd != nil {
		t.Error("a load that ended well quits")
	}
	if m.screen != screenStream {
		t.Errorf("one session loaded: screen %d, want its stream", m.screen)
	}
	if s := screen(m); strings.Contains(s, "loading") || !strings.Contains(s, "24 frames · 9 calls · 1 pending") {
		t.Fatalf("once loaded:\n%s", s)
	}
	// A tick sent before the end but arriving after it changes nothing.
	m.Update(Loading{Read: 400_000_000, Total: 417_000_000})
	press(t, m, "esc")
	if s := screen(m); strings.Contains(s, "loading") || !strings.Contains(header(m), "1 session") {
		t.Fatalf("a late tick:\n%s", s)
	}
}

// Several sessions loaded: the list shows them, the cursor on the first.
func TestLoadedSeveralSessions(t *testing.T) {
	m := sized(New(NewStore(Limits{}), Options{Loading: true}))
	var inputs []capture.Input
	for _, name := range []string{"store-example.jsonl", "elicit.jsonl"} {
		inputs = append(inputs, capture.Input{Path: filepath.Join("..", "fixtures", name), Name: name})
	}
	st, err := Load(inputs, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m.Update(Loaded{Store: st})
	if m.screen != screenSessions || !strings.Contains(header(m), "2 sessions") || strings.Contains(screen(m), "loading") {
		t.Fatalf("screen %d:\n%s", m.screen, screen(m))
	}
}

// A load that failed closes the viewer; the command reports the error.
func TestLoadFailedQuits(t *testing.T) {
	m := sized(New(NewStore(Limits{}), Options{Loading: true}))
	_, cmd := m.Update(Loaded{Err: errors.New("run.jsonl: line 3: invalid JSONL envelope")})
	if cmd == nil {
		t.Fatal("no command")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatalf("command gives %T, want tea.QuitMsg", cmd())
	}
}

// A viewer that did not start loading ignores Loading (and says "no
// sessions yet" in the live view, as before).
func TestNotLoading(t *testing.T) {
	m := sized(New(NewStore(LiveLimits), Options{Live: true}))
	m.Update(Loading{Read: 1, Total: 417_000_000})
	if s := screen(m); strings.Contains(s, "loading") || !strings.Contains(s, "no sessions yet") {
		t.Fatalf("not loading:\n%s", s)
	}
}

// The live view loads the state directory's history in batches: the
// sessions read so far show, the header says how far loading has got,
// and the end of the history clears it.
func TestLiveLoading(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile(filepath.Join("..", "fixtures", "store-example.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "store-example.jsonl"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	m := sized(New(NewStore(LiveLimits), Options{Live: true, Loading: true}))
	if s := screen(m); !strings.Contains(s, "  loading…\n") || strings.Contains(s, "no sessions yet") {
		t.Fatalf("before the history:\n%s", s)
	}
	fol := NewFollower([]string{dir}, 0)
	var said []Loading
	fol.OnHistoryProgress(func(read, total int64) {
		said = append(said, Loading{Read: read, Total: total})
		m.Update(said[len(said)-1])
	})
	if err := fol.History(func(b Batch) { m.Update(b) }); err != nil {
		t.Fatal(err)
	}
	size := int64(len(data))
	if len(said) == 0 || said[len(said)-1] != (Loading{Read: size, Total: size}) {
		t.Fatalf("progress said %v, want it to end at %d of %d", said, size, size)
	}
	if h := header(m); !strings.Contains(h, "loading… · live · 1 session") {
		t.Fatalf("history read, not yet ended: %q", h)
	}
	m.Update(Loaded{})
	if h := header(m); strings.Contains(h, "loading") || !strings.Contains(h, "live · 1 session") {
		t.Fatalf("history ended: %q", h)
	}
}
