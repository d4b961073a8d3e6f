//go:build unix

package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// shimFaultTests: each is what the user sees and what the log holds when
// something goes wrong.
var shimFaultTests = []struct {
	name string
	fn   func(*testing.T, shimBins)
}{
	{"unwritable-state-dir", testShimUnwritableStateDir},
	{"disk-full", testShimDiskFull},
	{"server-crash", testShimServerCrash},
	{"server-ignores-sigterm", testShimServerIgnoresSIGTERM},
	{"client-closes-stdin", testShimClientClosesStdin},
	{"sigterm-to-shim", testShimSIGTERM},
	{"50MB-line", testShimHugeLine},
	{"invalid-utf8", testShimInvalidUTF8},
}

func testShimUnwritableStateDir(t *testing.T, bins shimBins) {
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// The state directory would have to live under a regular file.
	p := startShim(t, bins, "", filepath.Join(blocker, "home"), "--", bins.server, "-mode", "cat")
	echoRoundTrip(t, p, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
	p.stdin.Close()
	if code := p.wait(); code != 0 {
		t.Fatalf("exit %d\n%s", code, p.stderr.String())
	}
	if s := p.stderr.String(); !strings.Contains(s, "cannot write the log") || !strings.Contains(s, "forwarding without a log") {
		t.Errorf("stderr:\n%s", s)
	}
}

// A disk that fails every write (/dev/full): traffic flows, one warning
// says the log is losing frames, and the total is given at the end.
func testShimDiskFull(t *testing.T, bins shimBins) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	p := startShim(t, bins, "", t.TempDir(), "--trace-file", "/dev/full", "--", bins.server, "-mode", "cat")
	for i := range 3 {
		echoRoundTrip(t, p, `{"jsonrpc":"2.0","id":`+string(rune('1'+i))+`,"method":"ping"}`+"\n")
	}
	p.stdin.Close()
	if code := p.wait(); code != 0 {
		t.Fatalf("exit %d\n%s", code, p.stderr.String())
	}
	s := p.stderr.String()
	if strings.Count(s, "warning: frames are being dropped") != 1 || !strings.Contains(s, "no space left on device") ||
		!strings.Contains(s, "were dropped from the log") {
		t.Errorf("stderr:\n%s", s)
	}
}

func testShimServerCrash(t *testing.T, bins shimBins) {
	home := t.TempDir()
	p := startShim(t, bins, "", home, "--", bins.server)
	p.send(initialize2025)
	p.readLine()
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"crash","arguments":{"text":"now"}}}` + "\n")
	if code := p.wait(); code != 3 {
		t.Fatalf("exit %d, want the server's 3\n%s", code, p.stderr.String())
	}
	frames := readFrames(t, sessionLog(t, home))
	last := rawOf(frames, capture.ClientToServer)
	if !strings.Contains(last[len(last)-1], `"crash"`) {
		t.Errorf("the fatal call is not in the log: %q", last)
	}
	code, out := checkLog(t, "--fail-on", "pending", sessionLog(t, home))
	if code != 1 || !strings.Contains(out, "pending=1") {
		t.Errorf("check: exit %d\n%s", code, out)
	}
}

func testShimServerIgnoresSIGTERM(t *testing.T, bins shimBins) {
	home := t.TempDir()
	p := startShim(t, bins, "", home, "--kill-grace", "300ms", "--", bins.server, "-mode", "ignore-term")
	p.send(initialize2025)
	p.readLine()
	start := time.Now()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(); code != 128+int(syscall.SIGKILL) {
		t.Fatalf("exit %d, want %d\n%s", code, 128+int(syscall.SIGKILL), p.stderr.String())
	}
	if time.Since(start) < 300*time.Millisecond {
		t.Errorf("killed before the grace period ended")
	}
	if s := p.stderr.String(); !strings.Contains(s, "the server did not exit within 300ms of SIGTERM; killing it") {
		t.Errorf("stderr:\n%s", s)
	}
	readFrames(t, sessionLog(t, home))
}

func testShimClientClosesStdin(t *testing.T, bins shimBins) {
	home := t.TempDir()
	p := startShim(t, bins, "", home, "--", bins.server)
	p.send(initialize2025)
	p.readLine()
	p.stdin.Close()
	if code := p.wait(); code != 0 {
		t.Fatalf("exit %d\n%s", code, p.stderr.String())
	}
	frames := readFrames(t, sessionLog(t, home))
	if n := len(rawOf(frames, capture.ClientToServer)) + len(rawOf(frames, capture.ServerToClient)); n != 2 {
		t.Errorf("%d protocol frames, want 2", n)
	}
}

// SIGTERM to the shim reaches the server (a Go program, which dies of it),
// and the shim reports the server's fate as a shell would: 128+15.
func testShimSIGTERM(t *testing.T, bins shimBins) {
	home := t.TempDir()
	p := startShim(t, bins, "", home, "--", bins.server)
	p.send(initialize2025)
	p.readLine()
	if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := p.wait(); code != 128+int(syscall.SIGTERM) {
		t.Fatalf("exit %d, want %d\n%s", code, 128+int(syscall.SIGTERM), p.stderr.String())
	}
	if strings.Contains(p.stderr.String(), "killing it") {
		t.Errorf("the server was killed though it exited on SIGTERM:\n%s", p.stderr.String())
	}
	frames := readFrames(t, sessionLog(t, home))
	checkWireOrder(t, frames)
	if code, out := checkLog(t, sessionLog(t, home)); code != 0 {
		t.Errorf("check: exit %d\n%s", code, out)
	}
}

// A 50 MB line is forwarded whole, both ways; the log keeps its first 16 MiB
// as text marked truncated, and the next line is logged as usual.
func testShimHugeLine(t *testing.T, bins shimBins) {
	home := t.TempDir()
	p := startShim(t, bins, "", home, "--", bins.server, "-mode", "cat")
	huge := append([]byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"`), bytes.Repeat([]byte("x"), 50_000_000)...)
	huge = append(huge, `"}}`+"\n"+`{"jsonrpc":"2.0","id":7,"method":"ping"}`+"\n"...)
	go func() {
		_, _ = p.stdin.Write(huge)
		p.stdin.Close()
	}()
	_ = p.stdout.SetReadDeadline(time.Now().Add(60 * time.Second))
	h := sha256.New()
	n, err := io.Copy(h, p.out)
	if err != nil || n != int64(len(huge)) {
		t.Fatalf("read back %d bytes (%v), want %d", n, err, len(huge))
	}
	if want := sha256.Sum256(huge); !bytes.Equal(h.Sum(nil), want[:]) {
		t.Fatal("the bytes read back differ from those sent")
	}
	if code := p.wait(); code != 0 {
		t.Fatalf("exit %d\n%s", code, p.stderr.String())
	}
	frames := readFrames(t, sessionLog(t, home))
	for _, dir := range []string{capture.ClientToServer, capture.ServerToClient} {
		var got []capture.Frame
		for _, fr := range frames {
			if fr.Direction == dir {
				got = append(got, fr)
			}
		}
		if len(got) != 2 || !got[0].Truncated || len(got[0].Text) != capture.MaxLogLine || !bytes.HasPrefix(huge, []byte(got[0].Text)) ||
			string(got[1].Raw) != `{"jsonrpc":"2.0","id":7,"method":"ping"}` {
			t.Fatalf("%s frames: %d, first truncated=%v len=%d", dir, len(got), len(got) > 0 && got[0].Truncated, len(got[0].Text))
		}
	}
}

// Bytes that are not UTF-8 are forwarded as they are and logged as text.
func testShimInvalidUTF8(t *testing.T, bins shimBins) {
	home := t.TempDir()
	p := startShim(t, bins, "", home, "--", bins.server, "-mode", "cat")
	line := "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\xff\xfe\"}\n"
	echoRoundTrip(t, p, line)
	p.stdin.Close()
	if code := p.wait(); code != 0 {
		t.Fatalf("exit %d\n%s", code, p.stderr.String())
	}
	frames := readFrames(t, sessionLog(t, home))
	for _, fr := range frames[1:] {
		if fr.Direction == capture.Stderr {
			continue
		}
		if len(fr.Raw) != 0 || !utf8.ValidString(fr.Text) || !strings.HasPrefix(fr.Text, `{"jsonrpc":"2.0","id":1,"method":"x`) {
			data, _ := json.Marshal(fr)
			t.Errorf("frame %s", data)
		}
	}
}
