//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// verify lists the live server's tools before it replays a call, and a
// tool the live build now annotates destructiveHint: true is not replayed,
// though the recording said readOnlyHint: true: the replay log (what the
// shim forwarded to the server) holds no call of it.
func TestVerifyNeverReplaysWhatTheLiveServerCallsDestructive(t *testing.T) {
	v1, _ := replayServerBins(t)
	useShim(t)
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	rec := recordSession(t, t.TempDir())
	t.Setenv("REPLAYSERVER_ANNOTATE", `add={"destructiveHint":true}`)
	replayLog := filepath.Join(t.TempDir(), "replay.jsonl")
	code, stdout, stderr := verifyRun(t, "", "--yes", "--replay-log", replayLog, rec, "--", v1)
	want := fmt.Sprintf("\n  not replayed: line %d tools/call add {\"a\":2,\"b\":3}: the live server annotates tool \"add\" destructiveHint: true (readOnlyHint: false, idempotentHint: false, destructiveHint: true), whatever the recording said; --all replays it\n", lineOf(t, rec, "add"))
	// The changed annotations are a change of the listing, which fails.
	if code != 1 || !strings.Contains(stdout, want) || !strings.Contains(stdout, "\n  annotations changed: add\n") ||
		!strings.HasSuffix(stdout, "verify failed: 1 tool change\n") {
		t.Fatalf("exit %d, no line %q in\n%s%s", code, want, stdout, stderr)
	}
	data, err := os.ReadFile(replayLog)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, `"c2s"`) && strings.Contains(l, `"name":"add"`) {
			t.Errorf("add reached the server: %s", l)
		}
	}
}
