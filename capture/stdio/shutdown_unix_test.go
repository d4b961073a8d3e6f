//go:build unix

package stdio

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// Once the client's input ends, the shim closes the server's stdin and
// gives it the kill grace to exit, then ends it as MCP's stdio shutdown
// says: SIGTERM, then SIGKILL after another grace. A server that exits at
// the end of its input is never signalled; the shim says (on stderr and in
// the log) when it ends one that did not.
//
// A server that exits on its own gets a grace only a hang outlasts (a busy
// machine may take long to run it), and so does the one that exits on
// SIGTERM, for its second grace; the one that never exits, a short one.
func TestShimEndsTheServerAfterItsInputEnds(t *testing.T) {
	for _, tc := range []struct {
		name, script string
		grace        time.Duration
		code         int
		notice       bool
		killed       bool
	}{
		{"exits at the end of its input", `cat >/dev/null; exit 4`, time.Minute, 4, false, false},
		{"ignores its input, ends on SIGTERM", `trap 'exit 9' TERM; while :; do sleep 0.05; done`, 2 * time.Second, 9, true, false},
		{"ignores its input and SIGTERM", `trap '' TERM; while :; do sleep 0.05; done`, 100 * time.Millisecond, 128 + int(syscall.SIGKILL), true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			grace := tc.grace
			code, _, stderr, frames := runShim(t, tc.script, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n", nil, grace)
			if code != tc.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tc.code, stderr)
			}
			msg := fmt.Sprintf("mcpsnoop: the server did not exit within %s of the end of its input; ending it", grace)
			if strings.Contains(stderr, msg) != tc.notice {
				t.Errorf("stderr %q; want the notice: %v", stderr, tc.notice)
			}
			if strings.Contains(stderr, "killing it") != tc.killed {
				t.Errorf("stderr %q; want the kill: %v", stderr, tc.killed)
			}
			logged := false
			for _, f := range frames {
				logged = logged || f.Direction == capture.Stderr && f.Text == msg
			}
			if logged != tc.notice {
				t.Errorf("the log holds the notice: %v, want %v", logged, tc.notice)
			}
		})
	}
}

// What the server started and left behind (a background process holding
// its output) is ended when the server exits: the shim does not wait out
// its drain for it, and it does not outlive the session.
func TestShimEndsWhatTheServerLeftBehind(t *testing.T) {
	stdout := &lockedWriter{}
	code, out, _, _ := runShimOut(t, `sleep 1000 & echo "left $!"; exit 3`, "", nil, 5*time.Second, stdout)
	if code != 3 {
		t.Fatalf("exit %d", code)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(out, "left ")))
	if err != nil {
		t.Fatalf("stdout %q", out)
	}
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil && !zombie(pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the background process %d still runs", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// zombie reports whether pid is a process that ended and was not reaped,
// where that can be told (Linux); elsewhere an existing process is alive.
func zombie(pid int) bool {
	var ws syscall.WaitStatus
	_, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
	return errors.Is(err, syscall.ECHILD) && procState(pid) == 'Z'
}
