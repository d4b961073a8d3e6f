package viewer

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// writeChattyLog writes n frames of one session: tools/call requests and
// their answers, with small bodies, as a chatty server produces them.
func writeChattyLog(t testing.TB, path string, n int) {
	t.Helper()
	var b strings.Builder
	ts := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	for seq := 1; seq <= n; seq++ {
		id := (seq + 1) / 2
		dir, raw := "c2s", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"search","arguments":{"q":"term %d"}}}`, id, id)
		if seq%2 == 0 {
			dir, raw = "s2c", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"found %d"}]}}`, id, id)
		}
		fmt.Fprintf(&b, `{"session_id":"chatty-1234-abcdefabcdef","server_label":"chatty","seq":%d,"ts":%q,"direction":%q,"transport":"stdio","raw":%s}`+"\n",
			seq, ts.Add(time.Duration(seq)*time.Millisecond).Format(time.RFC3339Nano), dir, raw)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// rowOverhead loads n frames through the follower into a live store and
// returns the heap held beyond the bodies, per row: by the store alone
// (rows, calls, queues, interned strings) and with the follower's engine.
func rowOverhead(t testing.TB, n int) (store, total float64) {
	t.Helper()
	dir := t.TempDir()
	writeChattyLog(t, filepath.Join(dir, "chatty.jsonl"), n)
	heap := func() float64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return float64(ms.HeapAlloc)
	}
	before := heap()
	f := NewFollower([]string{dir}, 0)
	st := NewStore(LiveLimits)
	if err := f.History(func(b Batch) { st.Apply(b.Changes) }); err != nil {
		t.Fatal(err)
	}
	if st.Held() != n {
		t.Fatalf("held %d rows of %d", st.Held(), n)
	}
	withEngine := heap()
	runtime.KeepAlive(f)
	storeOnly := heap()
	bodies := float64(st.BodyBytes())
	runtime.KeepAlive(st)
	return (storeOnly - before - bodies) / float64(n), (withEngine - before - bodies) / float64(n)
}

// TestRowMemory: a row of the live view costs a bounded number of bytes
// beyond its body. The bound is generous; -v prints the figures. (Before
// rows were slimmed a row took about 900 bytes.)
func TestRowMemory(t *testing.T) {
	store, total := rowOverhead(t, 50_000)
	t.Logf("%.0f bytes per row beyond the bodies in the store, %.0f with the follower's engine", store, total)
	if store > 400 {
		t.Errorf("%.0f bytes per row beyond the bodies; want < 400", store)
	}
}

func BenchmarkRowMemory(b *testing.B) {
	for range b.N {
		store, total := rowOverhead(b, 200_000)
		b.ReportMetric(store, "store-bytes/row")
		b.ReportMetric(total, "total-bytes/row")
	}
}
