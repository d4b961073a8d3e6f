package stdio

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

func TestLauncherClient(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	starts := map[int]time.Time{
		100: t0,                       // the client
		200: t0.Add(2 * time.Second),  // the launcher
		300: t0.Add(10 * time.Second), // a process that took a pid after the launcher started
	}
	known := func(pid int) (time.Time, bool) { s, ok := starts[pid]; return s, ok }
	blind := func(int) (time.Time, bool) { return time.Time{}, false }
	for _, tc := range []struct {
		name  string
		v     string
		ppid  int
		start func(int) (time.Time, bool)
		want  int // 0: the value is not taken
	}{
		{"the launcher is our parent", "200:100", 200, known, 100},
		{"inherited from further up", "200:100", 999, known, 0},
		{"the client pid was reused after the launcher started", "200:300", 200, known, 0},
		{"the client is gone", "200:555", 200, known, 0},
		{"start times unknown here", "200:555", 200, blind, 555},
		{"empty", "", 200, known, 0},
		{"no separator", "200", 200, known, 0},
		{"not numbers", "200:abc", 200, known, 0},
		{"negative client", "200:-1", 200, known, 0},
		{"zero launcher", "0:100", 0, known, 0},
		{"the launcher naming itself", "200:200", 200, known, 0},
		{"spaces", " 200:100", 200, known, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := launcherClient(tc.v, tc.ppid, tc.start)
			if ok != (tc.want != 0) || got != tc.want {
				t.Errorf("launcherClient(%q, %d) = %d, %v; want %d", tc.v, tc.ppid, got, ok, tc.want)
			}
		})
	}
}

// TestNewMetaNamesTheLauncherClient runs this test binary as a child, the
// way the npm launcher runs mcpsnoop: the child's meta frame names the
// process the test says started it (this test's own parent), not the test.
func TestNewMetaNamesTheLauncherClient(t *testing.T) {
	if os.Getenv("MCPSNOOP_TEST_META_CHILD") == "1" {
		m := NewMeta([]string{"srv"})
		json.NewEncoder(os.Stdout).Encode(m)
		return
	}
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" && runtime.GOOS != "windows" {
		t.Skip("no process start times here")
	}
	client := os.Getppid()
	meta := func(v string) capture.SessionMeta {
		t.Helper()
		cmd := exec.Command(os.Args[0], "-test.run=^TestNewMetaNamesTheLauncherClient$")
		cmd.Env = append(os.Environ(), "MCPSNOOP_TEST_META_CHILD=1", LauncherEnv+"="+v)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("child: %v", err)
		}
		var m capture.SessionMeta
		// The child prints the meta, then the test framework's PASS.
		if err := json.NewDecoder(bytes.NewReader(out)).Decode(&m); err != nil {
			t.Fatalf("child printed %q: %v", out, err)
		}
		return m
	}
	want, ok := processStart(client)
	if !ok {
		t.Fatalf("no start time for pid %d", client)
	}
	m := meta(strconv.Itoa(os.Getpid()) + ":" + strconv.Itoa(client))
	if m.PPID != client || m.PPIDStart != want.Format(time.RFC3339Nano) {
		t.Errorf("through the launcher: ppid %d start %q, want %d %q", m.PPID, m.PPIDStart, client, want.Format(time.RFC3339Nano))
	}
	// A value naming another launcher is someone else's: the child's parent
	// (this test) is its client.
	m = meta(strconv.Itoa(os.Getpid()+1) + ":" + strconv.Itoa(client))
	if m.PPID != os.Getpid() {
		t.Errorf("stale value: ppid %d, want this test's pid %d", m.PPID, os.Getpid())
	}
}
