//go:build unix

package stdio

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// runShim runs script under sh through a Shim with an in-memory log.
func runShim(t *testing.T, script string, stdin string, sigs chan os.Signal, grace time.Duration) (int, string, string, []capture.Frame) {
	t.Helper()
	out := &memLog{}
	var stdout, stderr lockedWriter
	sh := &Shim{
		Command: []string{"sh", "-c", script},
		Stdin:   strings.NewReader(stdin), Stdout: &stdout, Stderr: &stderr,
		OpenLog: func() *capture.LogWriter {
			return newTestLog(out, &stderr)
		},
		Signals: sigs, KillGrace: grace,
	}
	code, err := sh.Run()
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return code, stdout.String(), stderr.String(), out.frames(t)
}

type lockedWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func (w *lockedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

func TestShimPassesStatusAndStreams(t *testing.T) {
	code, stdout, stderr, frames := runShim(t, `cat; echo oops >&2; exit 5`, "{\"id\":1}\nraw\n", nil, 0)
	if code != 5 || stdout != "{\"id\":1}\nraw\n" || !strings.Contains(stderr, "oops") {
		t.Fatalf("exit %d stdout %q stderr %q", code, stdout, stderr)
	}
	var dirs []string
	for _, f := range frames {
		dirs = append(dirs, f.Direction)
	}
	if frames[0].Direction != capture.Meta || len(frames) != 6 || strings.Count(strings.Join(dirs, " "), "c2s") != 2 {
		t.Errorf("frames: %v", dirs)
	}
}

func TestShimSignalledServer(t *testing.T) {
	code, _, _, _ := runShim(t, `kill -TERM $$`, "", nil, 0)
	if code != 128+int(syscall.SIGTERM) {
		t.Fatalf("exit %d", code)
	}
}

// A forwarded signal reaches the server; one it ignores is followed by a
// kill once the grace period is over, and a note on stderr.
func TestShimForwardsSignalsAndKillsAfterGrace(t *testing.T) {
	sigs := make(chan os.Signal, 1)
	go func() {
		time.Sleep(200 * time.Millisecond)
		sigs <- syscall.SIGHUP
	}()
	code, stdout, _, _ := runShim(t, `trap 'echo got-hup; exit 7' HUP; while :; do sleep 0.05; done`, "", sigs, 0)
	if code != 7 || !strings.Contains(stdout, "got-hup") {
		t.Fatalf("exit %d stdout %q", code, stdout)
	}
	go func() {
		time.Sleep(200 * time.Millisecond)
		sigs <- syscall.SIGTERM
	}()
	code, _, stderr, _ := runShim(t, `trap '' TERM; while :; do sleep 0.05; done`, "", sigs, 100*time.Millisecond)
	if code != 128+int(syscall.SIGKILL) || !strings.Contains(stderr, "did not exit within 100ms of SIGTERM; killing it") {
		t.Fatalf("exit %d stderr %q", code, stderr)
	}
}

func TestShimStartErrors(t *testing.T) {
	for _, tt := range []struct {
		cmd  []string
		code int
	}{
		{[]string{"/nonexistent/server"}, 127},
		{[]string{"no-such-command-mcpsnoop"}, 127},
		{[]string{os.TempDir()}, 126},
	} {
		opened := false
		sh := &Shim{Command: tt.cmd, Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{},
			OpenLog: func() *capture.LogWriter { opened = true; return nil }}
		code, err := sh.Run()
		var se *StartError
		if code != tt.code || !errors.As(err, &se) || se.Code != tt.code || opened {
			t.Errorf("%v: exit %d err %v opened %v", tt.cmd, code, err, opened)
		}
	}
}
