//go:build unix

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/internal/testbin"
)

// The shim's tests run the real mcpsnoop binary in front of a real server
// process (testdata/sdkserver, a go-sdk server), both built here once.
func TestShim(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	t.Setenv("MCPSNOOP_HOME", t.TempDir()) // for the in-process check runs
	bins := buildShimBinaries(t)
	tests := []struct {
		name string
		fn   func(*testing.T, shimBins)
	}{
		{"sdk-2025-11-25-byte-exact", testShimSDKByteExact},
		{"sdk-2026-07-28-mrtr", testShimSDKMRTR},
		{"pipelined-1000", testShimPipelined},
		{"config-file", testShimConfigFile},
		{"config-file-otlp", testShimConfigOTLP},
		{"full-stderr-otlp", testShimFullStderrOTLP},
		{"bad-config", testShimBadConfig},
		{"not-found", testShimNotFound},
		{"run-of-three", testShimRunOfThree},
	}
	tests = append(tests, shimFaultTests...)
	tests = append(tests, shimLifetimeTests...)
	tests = append(tests, shimLogDirTests...)
	tests = append(tests, shimLogDirEnvTests...)
	tests = append(tests, shimTrustTests...)
	// Both programs that run the shim run every scenario: mcpsnoop, and
	// mcpsnoop-shim, the binary wrap writes into client configs.
	own := bins
	own.shim = testbin.Build(t, "../mcpsnoop-shim")
	for _, b := range []struct {
		name string
		bins shimBins
	}{{"mcpsnoop", bins}, {"mcpsnoop-shim", own}} {
		t.Run(b.name, func(t *testing.T) {
			t.Logf("%s in front of the SDK test server: %d scenarios", b.name, len(tests))
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) { tt.fn(t, b.bins) })
			}
		})
	}
}

// shimBins are the programs the shim tests run: shim runs the shim
// (mcpsnoop or mcpsnoop-shim), mcpsnoop its other commands.
type shimBins struct {
	shim, mcpsnoop, server, client string
}

func buildShimBinaries(t *testing.T) shimBins {
	t.Helper()
	bin := mcpsnoopBinary(t)
	return shimBins{shim: bin, mcpsnoop: bin, server: testbin.Build(t, "./testdata/sdkserver"), client: testbin.Build(t, "./testdata/sdkclient")}
}

// shimProc is a running shim driven over raw pipes.
type shimProc struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *os.File
	out    *bufio.Reader
	stderr *lockedBuffer
	done   chan struct{}
	code   int
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startShim runs the shim with args in dir (the test's temp dir if empty),
// with the state directory home.
func startShim(t *testing.T, bins shimBins, dir, home string, args ...string) *shimProc {
	t.Helper()
	cmd := exec.Command(bins.shim, args...)
	if dir == "" {
		dir = t.TempDir()
	}
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "MCPSNOOP_HOME="+home)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout = pw
	p := &shimProc{t: t, cmd: cmd, stdin: stdin, stdout: pr, out: bufio.NewReaderSize(pr, 1<<20), stderr: &lockedBuffer{}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	go func() {
		err := cmd.Wait()
		p.code = 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			p.code = ee.ExitCode()
		} else if err != nil {
			p.code = -1
		}
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = cmd.Process.Kill()
			<-p.done
		}
		pr.Close()
	})
	return p
}

func (p *shimProc) send(s string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, s); err != nil {
		p.t.Fatalf("write to the shim: %v\nstderr:\n%s", err, p.stderr.String())
	}
}

// readLine reads one line of the shim's stdout, failing after 20s.
func (p *shimProc) readLine() string {
	p.t.Helper()
	_ = p.stdout.SetReadDeadline(time.Now().Add(20 * time.Second))
	line, err := p.out.ReadString('\n')
	if err != nil {
		p.t.Fatalf("read from the shim: %v (got %q)\nstderr:\n%s", err, line, p.stderr.String())
	}
	return line
}

// wait returns the shim's exit code, failing after 20s.
func (p *shimProc) wait() int {
	p.t.Helper()
	select {
	case <-p.done:
		return p.code
	case <-time.After(20 * time.Second):
		p.t.Fatalf("the shim did not exit\nstderr:\n%s", p.stderr.String())
	}
	return 0
}

const initialize2025 = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}` + "\n"

// echoRoundTrip sends one line through a cat server and reads it back.
func echoRoundTrip(t *testing.T, p *shimProc, line string) {
	t.Helper()
	p.send(line)
	if got := p.readLine(); got != line {
		t.Fatalf("read back %q, want %q", got, line)
	}
}

// sessionLog is the one log under home/sessions.
func sessionLog(t *testing.T, home string) string {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(home, "sessions", "*.jsonl"))
	if len(logs) != 1 {
		t.Fatalf("logs in %s: %v", home, logs)
	}
	return logs[0]
}

// readFrames loads a log with the package's own reader and checks its
// shape: one session, seq 1, 2, 3, ... with the meta frame first.
func readFrames(t *testing.T, path string) []capture.Frame {
	t.Helper()
	frames := readFramesLoose(t, path)
	if len(frames) == 0 || frames[0].Direction != capture.Meta {
		t.Fatalf("%s: no meta frame first: %+v", path, frames)
	}
	for i, fr := range frames {
		if fr.Seq != uint64(i+1) || fr.SessionID != frames[0].SessionID || fr.Transport != capture.TransportStdio {
			t.Fatalf("%s: frame %d: seq %d session %q transport %q", path, i, fr.Seq, fr.SessionID, fr.Transport)
		}
		if i > 0 && fr.TS.Before(frames[i-1].TS) {
			t.Errorf("%s: seq %d is timed before seq %d", path, fr.Seq, frames[i-1].Seq)
		}
	}
	return frames
}

type rpcEnvelope struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// checkWireOrder fails when an answer is logged before the request it
// answers, in either direction, or answers no request. It returns the
// number of answers seen.
func checkWireOrder(t *testing.T, frames []capture.Frame) int {
	t.Helper()
	requests := map[string]uint64{} // direction + id -> seq
	answers := 0
	for _, fr := range frames {
		if fr.Direction != capture.ClientToServer && fr.Direction != capture.ServerToClient || len(fr.Raw) == 0 {
			continue
		}
		var m rpcEnvelope
		if json.Unmarshal(fr.Raw, &m) != nil || len(m.ID) == 0 {
			continue
		}
		if m.Method != "" {
			requests[fr.Direction+string(m.ID)] = fr.Seq
			continue
		}
		other := capture.ClientToServer
		if fr.Direction == capture.ClientToServer {
			other = capture.ServerToClient
		}
		if _, ok := requests[other+string(m.ID)]; !ok {
			t.Errorf("seq %d (%s) answers id %s before any request with that id was logged", fr.Seq, fr.Direction, m.ID)
		}
		delete(requests, other+string(m.ID))
		answers++
	}
	return answers
}

// checkLog runs mcpsnoop check on a log in-process and returns its exit
// code and stdout.
func checkLog(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"check"}, args...), strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String() + stderr.String()
}

// compactLines compacts each non-empty line of a stream as the log does.
func compactLines(t *testing.T, data []byte) []string {
	t.Helper()
	var out []string
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) == 0 {
			continue
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, line); err != nil {
			t.Fatalf("not JSON: %q", line)
		}
		out = append(out, buf.String())
	}
	return out
}

// rawOf lists the raw values of the frames in one direction.
func rawOf(frames []capture.Frame, dir string) []string {
	var out []string
	for _, fr := range frames {
		if fr.Direction == dir {
			out = append(out, string(fr.Raw))
		}
	}
	return out
}

func sameLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d frames, want %d\ngot:  %q\nwant: %q", what, len(got), len(want), got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: frame %d:\ngot:  %.300s\nwant: %.300s", what, i, got[i], want[i])
		}
	}
}

// withTimeout is a context for one subtest's client work.
func withTimeout(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func testShimNotFound(t *testing.T, bins shimBins) {
	home := t.TempDir()
	p := startShim(t, bins, "", home, "--", filepath.Join(t.TempDir(), "no-such-server"))
	p.stdin.Close()
	if code := p.wait(); code != 127 {
		t.Fatalf("exit %d, want 127\n%s", code, p.stderr.String())
	}
	if !strings.Contains(p.stderr.String(), "cannot start") {
		t.Errorf("stderr: %s", p.stderr.String())
	}
	if logs, _ := filepath.Glob(filepath.Join(home, "sessions", "*")); len(logs) != 0 {
		t.Errorf("a server that never started left logs: %v", logs)
	}
}
