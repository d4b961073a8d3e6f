package stdio

import (
	"encoding/json"
	"os"
	"testing"
	"time"
)

func TestStatStartTicks(t *testing.T) {
	stat := []byte("4242 (my (odd) name) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10 18446744073709551615")
	if n, ok := statStartTicks(stat); !ok || n != 987654 {
		t.Errorf("got %d %v", n, ok)
	}
	if _, ok := statStartTicks([]byte("4242 (cut")); ok {
		t.Error("a cut line parsed")
	}
}

// The meta frame names the process that started us and when it started:
// before now, and not long ago for a test binary's parent... or at least
// after boot.
func TestNewMetaReadsTheParent(t *testing.T) {
	self, ok := processStart(os.Getpid())
	if !ok || self.After(time.Now()) || time.Since(self) > 24*time.Hour {
		t.Fatalf("own start %v %v", self, ok)
	}
	m := NewMeta([]string{"srv", "a&b"})
	if m.PPID != os.Getppid() || m.PPIDStart == "" || m.Cwd == "" {
		t.Fatalf("meta %+v", m)
	}
	start, err := time.Parse(time.RFC3339Nano, m.PPIDStart)
	if err != nil || start.After(self.Add(time.Second)) {
		t.Errorf("parent start %v (%v), own start %v", start, err, self)
	}
	var back map[string]any
	if err := json.Unmarshal(m.JSON(), &back); err != nil || back["ppid"] != float64(os.Getppid()) {
		t.Errorf("meta JSON %s", m.JSON())
	}
	if string(m.JSON()[:30]) != `{"command":["srv","a&b"],"cwd"` {
		t.Errorf("meta JSON %s", m.JSON())
	}
	if _, ok := processStart(1 << 30); ok {
		t.Error("a process that does not exist has a start time")
	}
}
