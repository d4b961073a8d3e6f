//go:build unix

package stdio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/capture/capturetest"
)

// runShim runs script under sh through a Shim with an in-memory log.
func runShim(t *testing.T, script string, stdin string, sigs chan os.Signal, grace time.Duration) (int, string, string, []capture.Frame) {
	t.Helper()
	return runShimOut(t, script, stdin, sigs, grace, &lockedWriter{})
}

// runShimOut is runShim with the server's stdout going to stdout.
func runShimOut(t *testing.T, script string, stdin string, sigs chan os.Signal, grace time.Duration, stdout *lockedWriter) (int, string, string, []capture.Frame) {
	t.Helper()
	return runShimFrom(t, script, strings.NewReader(stdin), sigs, grace, stdout)
}

// runShimFrom is runShimOut with the client's input read from stdin.
func runShimFrom(t *testing.T, script string, stdin io.Reader, sigs chan os.Signal, grace time.Duration, stdout *lockedWriter) (int, string, string, []capture.Frame) {
	t.Helper()
	out := &memLog{}
	var stderr lockedWriter
	sh := &Shim{
		Command: []string{"sh", "-c", script},
		Stdin:   stdin, Stdout: stdout, Stderr: &stderr,
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
	mu    sync.Mutex
	buf   bytes.Buffer
	ready chan struct{} // closed once "ready\n" was written, when set
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.buf.Write(p)
	if w.ready != nil && strings.Contains(w.buf.String(), "ready\n") {
		close(w.ready)
		w.ready = nil
	}
	return n, err
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
//
// The signal goes out once the server says its trap is set ("ready"): a
// signal sent before that would end it by the default action.
func TestShimForwardsSignalsAndKillsAfterGrace(t *testing.T) {
	for _, tt := range []struct {
		script string
		sig    syscall.Signal
		grace  time.Duration
		code   int
		out    string // in stdout, or stderr
	}{
		{`trap 'echo got-hup; exit 7' HUP; echo ready; while :; do sleep 0.05; done`, syscall.SIGHUP, 0, 7, "got-hup"},
		{`trap '' TERM; echo ready; while :; do sleep 0.05; done`, syscall.SIGTERM, 100 * time.Millisecond, 128 + int(syscall.SIGKILL),
			"did not exit within 100ms of SIGTERM; killing it"},
	} {
		t.Run(tt.sig.String(), func(t *testing.T) {
			// The client's input stays open until the signal is sent: its
			// end would start the kill grace of its own, which on a busy
			// machine could run out before the server set its trap.
			sigs := make(chan os.Signal, 1)
			stdinR, stdinW := io.Pipe()
			defer stdinW.Close()
			out := &lockedWriter{ready: make(chan struct{})}
			ready := out.ready
			go func() {
				<-ready
				sigs <- tt.sig
				stdinW.Close()
			}()
			code, stdout, stderr, _ := runShimFrom(t, tt.script, stdinR, sigs, tt.grace, out)
			if code != tt.code || !strings.Contains(stdout+stderr, tt.out) {
				t.Fatalf("exit %d stdout %q stderr %q", code, stdout, stderr)
			}
		})
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

// With the log on a disk that fills up, the shim forwards every byte and
// counts exactly the frames the log lacks: the log holds whole frames, each
// lost one is a gap in seq, and the closing frame says how many.
func TestShimLogOnFullDisk(t *testing.T) {
	disk := capturetest.NewDisk(512 << 10)
	var stdout, stderr lockedWriter
	script := `i=0; while [ $i -lt 3000 ]; do printf '{"jsonrpc":"2.0","id":%d,"result":{"pad":"%01000d"}}\n' $i 0; i=$((i+1)); done`
	sh := &Shim{
		Command: []string{"sh", "-c", script},
		Stdin:   strings.NewReader(""), Stdout: &stdout, Stderr: &stderr,
		OpenLog: func() *capture.LogWriter {
			return capture.NewLogWriter(disk.Output(), capture.LogOptions{SessionID: "full-1-aaaaaaaaaaaa", Label: "full", Path: "full.jsonl", Warn: &stderr})
		},
	}
	if code, err := sh.Run(); code != 0 || err != nil {
		t.Fatalf("exit %d: %v\n%s", code, err, stderr.String())
	}
	if n := strings.Count(stdout.String(), "\n"); n != 3000 {
		t.Fatalf("%d lines forwarded, want 3000", n)
	}
	frames := (&memLog{buf: *bytes.NewBuffer(disk.Bytes())}).frames(t)
	closing := frames[len(frames)-1]
	logged := 0
	var last uint64
	gaps := 0
	for _, f := range frames {
		if f.Direction == capture.ServerToClient {
			logged++
		}
		if f.Seq > last {
			gaps += int(f.Seq - last - 1)
			last = f.Seq
		}
	}
	// The meta frame and 3000 lines: 3001 seqs.
	if closing.Direction != capture.Meta || closing.LastSeq != 3001 || logged+int(closing.Dropped) != 3000 || gaps != int(closing.Dropped) {
		t.Errorf("%d lines logged, %d seq gaps, closing frame %+v", logged, gaps, closing)
	}
	if !strings.Contains(stderr.String(), fmt.Sprintf("mcpsnoop: %d frame(s) were dropped from the log full.jsonl", closing.Dropped)) {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

// A server that exits right after reading a request (a crashing tool): the
// request it read is in the log, with its seq, even when the shim reaches
// its end while the client's pump is between forwarding the request and
// handing it to the log. The pump is held there (testHookForwarded) until
// the shim waits for it, or, were it not to wait, until the log is closed.
func TestShimLogsTheRequestACrashingServerRead(t *testing.T) {
	out := &memLog{}
	gateWaits := make(chan struct{}, 1)
	onWait := func() {
		select {
		case gateWaits <- struct{}{}:
		default:
		}
	}
	held := make(chan struct{}, 1)
	onForwarded := func(g *logGate) {
		if g == nil {
			return // the server's side
		}
		select {
		case held <- struct{}{}:
		default:
			return // only the first chunk is held
		}
		deadline := time.After(10 * time.Second)
		for {
			select {
			case <-gateWaits:
				return
			case <-deadline:
				return
			case <-time.After(2 * time.Millisecond):
				if out.isClosed() {
					return
				}
			}
		}
	}
	testHookGateWait.Store(&onWait)
	testHookForwarded.Store(&onForwarded)
	t.Cleanup(func() { testHookGateWait.Store(nil); testHookForwarded.Store(nil) })

	var stdout, stderr lockedWriter
	req := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"crash"}}` + "\n"
	sh := &Shim{
		Command: []string{"sh", "-c", "read line; exit 3"},
		Stdin:   strings.NewReader(req), Stdout: &stdout, Stderr: &stderr,
		OpenLog: func() *capture.LogWriter { return newTestLog(out, &stderr) },
	}
	code, err := sh.Run()
	if err != nil || code != 3 {
		t.Fatalf("exit %d: %v\n%s", code, err, stderr.String())
	}
	if len(held) == 0 {
		t.Fatal("the request was never held between forwarding and logging")
	}
	frames := out.frames(t)
	var got []string
	for _, f := range frames {
		got = append(got, fmt.Sprintf("%d %s %s", f.Seq, f.Direction, f.Raw))
	}
	want := []string{"1 meta", "2 c2s " + strings.TrimSuffix(req, "\n")}
	if len(frames) != 2 || got[1] != want[1] || frames[0].Direction != capture.Meta {
		t.Errorf("frames:\n%s\nwant the meta frame and the request (seq 2)\nstderr: %s", strings.Join(got, "\n"), stderr.String())
	}
	if strings.Contains(stderr.String(), "dropped") {
		t.Errorf("stderr: %s", stderr.String())
	}
}

// fullPipe returns the writing end of a pipe nobody reads, filled up: a
// write to it blocks.
func fullPipe(t *testing.T) *os.File {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	// Closing the reading end at the end fails the writes still waiting.
	t.Cleanup(func() { r.Close(); w.Close() })
	rc, err := w.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 4096)
	// The descriptor is non-blocking (the runtime's poller owns it): write
	// until the pipe says it is full.
	werr := rc.Write(func(fd uintptr) bool {
		for {
			if _, err := syscall.Write(int(fd), chunk); err != nil {
				return true
			}
		}
	})
	if werr != nil {
		t.Fatal(werr)
	}
	return w
}

// A shim whose stderr is a pipe nobody reads (full) still ends the server
// on a forwarded SIGTERM: its notices wait, the kill after the grace does
// not. The server ignores SIGTERM, so only the kill ends it.
func TestShimKillsTheServerWhenStderrIsFull(t *testing.T) {
	const grace = 200 * time.Millisecond
	stderr := fullPipe(t)
	stdout := &lockedWriter{ready: make(chan struct{})}
	ready := stdout.ready
	sigs := make(chan os.Signal, 1)
	sh := &Shim{
		Command: []string{"sh", "-c", `trap '' TERM; echo $$; echo ready; while :; do sleep 0.05; done`},
		Stdin:   strings.NewReader(""), Stdout: stdout, Stderr: stderr,
		Signals: sigs, KillGrace: grace,
	}
	done := make(chan int, 1)
	go func() {
		code, _ := sh.Run()
		done <- code
	}()
	select {
	case <-ready:
	case <-time.After(10 * time.Second):
		t.Fatalf("the server did not start: %q", stdout.String())
	}
	var pid int
	if _, err := fmt.Sscan(stdout.String(), &pid); err != nil || pid <= 0 {
		t.Fatalf("server pid: %q %v", stdout.String(), err)
	}
	// Whatever the shim does, the server does not outlive the test.
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	sigs <- syscall.SIGTERM
	const bound = grace + 5*time.Second
	select {
	case code := <-done:
		if code != 128+int(syscall.SIGKILL) {
			t.Errorf("exit %d, want the server killed (%d)", code, 128+int(syscall.SIGKILL))
		}
	case <-time.After(bound):
		t.Fatalf("the server (pid %d) still runs %s after SIGTERM: the kill waited on the full stderr", pid, bound)
	}
}

// A log that is a FIFO nobody reads does not keep the shim from ending:
// once the server is done, closing the log waits capture.CloseTimeout at
// most, and the frames that did not get out are reported lost.
func TestShimEndsWhenTheLogStalls(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "log.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	// A reading end that never reads: the writer's open does not wait, and
	// its writes stop once the pipe is full.
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() }) // fails the stuck write
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr lockedWriter
	script := `i=0; while [ $i -lt 3000 ]; do printf '{"jsonrpc":"2.0","method":"notifications/message","params":{"n":%d,"pad":"%080d"}}\n' $i 0; i=$((i+1)); done`
	sh := &Shim{
		Command: []string{"sh", "-c", script},
		Stdin:   strings.NewReader(""), Stdout: &stdout, Stderr: &stderr,
		OpenLog: func() *capture.LogWriter {
			return capture.NewLogWriter(w, capture.LogOptions{SessionID: "fifo-1-aaaaaaaaaaaa", Label: "fifo", Path: "log.fifo", Warn: &stderr})
		},
	}
	done := make(chan int, 1)
	go func() {
		code, _ := sh.Run()
		done <- code
	}()
	const bound = drainGrace + capture.CloseTimeout + 10*time.Second
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d:\n%s", code, stderr.String())
		}
	case <-time.After(bound):
		t.Fatalf("the shim did not end within %s of a stalled log:\n%s", bound, stderr.String())
	}
	if n := strings.Count(stdout.String(), "\n"); n != 3000 {
		t.Errorf("%d lines forwarded, want 3000", n)
	}
	if m := regexp.MustCompile(`mcpsnoop: ([1-9][0-9]*) frame\(s\) were dropped from the log log.fifo`).FindStringSubmatch(stderr.String()); m == nil {
		t.Errorf("no loss reported:\n%s", stderr.String())
	}
}
