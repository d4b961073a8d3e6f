//go:build unix

package main

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
)

// The server never outlives its client: these run the real client (a
// go-sdk program, or a shell), the built shim and a real server process,
// kill or cut off the client, and wait, for at most the kill grace plus 5
// seconds, for the shim and the server to be gone.
var shimLifetimeTests = []struct {
	name string
	fn   func(*testing.T, shimBins)
}{
	{"client-killed", testShimClientKilled},
	{"client-stops-reading", testShimClientStopsReading},
	{"client-parent-gone", testShimParentGone},
	{"shim-killed", testShimKilled},
	{"shim-killed-behind-a-wrapper", testShimKilledBehindWrapper},
}

const lifetimeGrace = time.Second

// gone reports whether process pid has ended: it no longer exists, or it
// is a zombie nobody has reaped yet (a container's pid 1 may never reap).
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) state ...: the state follows the last ')'.
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && i+2 < len(s) && s[i+2] == 'Z'
}

// waitGone waits until every pid has ended, for at most the grace plus 5s.
func waitGone(t *testing.T, what string, pids ...int) {
	t.Helper()
	deadline := time.Now().Add(lifetimeGrace + 5*time.Second)
	for _, pid := range pids {
		for !gone(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: process %d still runs", what, pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// killAtEnd kills pids the test left running.
func killAtEnd(t *testing.T, pids ...*int) {
	t.Cleanup(func() {
		for _, p := range pids {
			if *p > 0 && !gone(*p) {
				_ = syscall.Kill(*p, syscall.SIGKILL)
			}
		}
	})
}

// readPID waits for a pid file.
func readPID(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		data, err := os.ReadFile(path)
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && perr == nil && pid > 0 {
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s", path)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// readUntil reads lines from r until one starts with prefix, for at most
// 30s, and returns it.
func readUntil(t *testing.T, lines <-chan string, prefix string) string {
	t.Helper()
	timeout := time.After(30 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("output ended before a line starting %q", prefix)
			}
			if strings.HasPrefix(l, prefix) {
				return l
			}
		case <-timeout:
			t.Fatalf("no line starting %q", prefix)
		}
	}
}

func linesOf(r io.Reader) <-chan string {
	c := make(chan string, 16)
	go func() {
		defer close(c)
		s := bufio.NewScanner(r)
		for s.Scan() {
			c <- s.Text()
		}
	}()
	return c
}

// goneFrame finds the stderr frame in which the shim said why it ended
// the server.
func goneFrame(t *testing.T, dir string) string {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(logs) != 1 {
		t.Fatalf("logs in %s: %v", dir, logs)
	}
	for _, f := range readFrames(t, logs[0]) {
		if f.Direction == capture.Stderr && strings.HasPrefix(f.Text, "mcpsnoop: the client is gone") {
			return f.Text
		}
	}
	data, _ := os.ReadFile(logs[0])
	t.Fatalf("no stderr frame says the client is gone:\n%s", data)
	return ""
}

// A go-sdk client calls a tool that reports progress forever and is
// killed mid-call. The server never notices (it keeps writing after its
// stdin ends, -linger): the shim's next write to the client fails, so the
// shim ends the server (SIGTERM) and exits, and says why in the log.
func testShimClientKilled(t *testing.T, bins shimBins) {
	logDir, pidFile := t.TempDir(), filepath.Join(t.TempDir(), "server.pid")
	client := exec.Command(bins.client, bins.shim, "--kill-grace", lifetimeGrace.String(), "--log-dir", logDir, "--", bins.server, "-linger", "-pid-file", pidFile)
	out, err := client.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	client.Stderr = &stderr
	if err := client.Start(); err != nil {
		t.Fatal(err)
	}
	var shimPID, serverPID int
	clientPID := client.Process.Pid
	killAtEnd(t, &clientPID, &shimPID, &serverPID)
	lines := linesOf(out)
	shimPID, _ = strconv.Atoi(strings.TrimPrefix(readUntil(t, lines, "server "), "server "))
	readUntil(t, lines, "progress")
	serverPID = readPID(t, pidFile)

	if err := client.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_, _ = client.Process.Wait() // not Wait: the shim and the server hold its output pipes
	waitGone(t, "after the client was killed", shimPID, serverPID)
	if why := goneFrame(t, logDir); !strings.Contains(why, "(writing to it failed: broken pipe); ending the server") {
		t.Errorf("the log says %q", why)
	}
}

// A client that stops reading (`mcpsnoop -- spew | head -c 1000`): the
// shim's write fails once the pipe is closed, and it ends the server
// instead of logging its output forever.
func testShimClientStopsReading(t *testing.T, bins shimBins) {
	logDir, pidFile := t.TempDir(), filepath.Join(t.TempDir(), "server.pid")
	cmd := exec.Command(bins.shim, "--kill-grace", lifetimeGrace.String(), "--log-dir", logDir, "--", bins.server, "-mode", "spew", "-pid-file", pidFile)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	shimPID, serverPID := cmd.Process.Pid, 0
	killAtEnd(t, &shimPID, &serverPID)
	if _, err := io.ReadFull(out, make([]byte, 1000)); err != nil {
		t.Fatal(err)
	}
	out.Close() // head -c 1000 exits
	serverPID = readPID(t, pidFile)
	waitGone(t, "after the client stopped reading", serverPID, shimPID)
	if err := cmd.Wait(); err == nil || cmd.ProcessState.ExitCode() != 128+int(syscall.SIGTERM) {
		t.Errorf("shim: %v; want the server's 128+15\n%s", err, stderr.String())
	}
	if s := stderr.String(); !strings.Contains(s, "mcpsnoop: the client is gone (writing to it failed: broken pipe); ending the server") {
		t.Errorf("stderr:\n%s", s)
	}
	goneFrame(t, logDir)
	logs, _ := filepath.Glob(filepath.Join(logDir, "*.jsonl"))
	if info, err := os.Stat(logs[0]); err != nil || info.Size() > 8<<20 {
		t.Errorf("the log kept growing after the client was gone: %v %d bytes", err, info.Size())
	}
}

// The client dies but nothing it held tells the shim: the server writes
// nothing and the shim's stdin is not its own. The shim notices that the
// process that started it has exited, and ends the server.
func testShimParentGone(t *testing.T, bins shimBins) {
	logDir, pidFile := t.TempDir(), filepath.Join(t.TempDir(), "server.pid")
	// sh is the client: it starts the shim in the background, says its pid
	// and waits. The test holds the shim's stdout open.
	client := exec.Command("sh", "-c", `"$@" & echo "shim $!"; wait`, "sh",
		bins.shim, "--kill-grace", lifetimeGrace.String(), "--log-dir", logDir, "--", bins.server, "-mode", "hold", "-pid-file", pidFile)
	out, err := client.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := client.Start(); err != nil {
		t.Fatal(err)
	}
	var shimPID, serverPID int
	clientPID := client.Process.Pid
	killAtEnd(t, &clientPID, &shimPID, &serverPID)
	lines := linesOf(out)
	shimPID, _ = strconv.Atoi(strings.TrimPrefix(readUntil(t, lines, "shim "), "shim "))
	serverPID = readPID(t, pidFile)
	if err := client.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_, _ = client.Process.Wait() // not Wait: the shim and the server hold its output pipes
	waitGone(t, "after the client's process exited", shimPID, serverPID)
	if why := goneFrame(t, logDir); !strings.Contains(why, "(its process (pid "+strconv.Itoa(clientPID)+") has exited); ending the server") {
		t.Errorf("the log says %q", why)
	}
}

// SIGKILL to the shim's whole process group leaves the shim no time to do
// anything, and the server is in a group of its own: on Linux the kernel
// ends it (parent-death signal). The server here ignores the end of its
// stdin, so nothing else would.
func testShimKilled(t *testing.T, bins shimBins) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux has a parent-death signal")
	}
	pidFile := filepath.Join(t.TempDir(), "server.pid")
	cmd := exec.Command(bins.shim, "--no-trace", "--", bins.server, "-mode", "hold", "-pid-file", pidFile)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe() // held open: no end of input
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	shimPID, serverPID := cmd.Process.Pid, 0
	killAtEnd(t, &shimPID, &serverPID)
	serverPID = readPID(t, pidFile)
	time.Sleep(100 * time.Millisecond) // the server stays up while the shim runs
	if gone(serverPID) {
		t.Fatal("the server ended while the shim was running")
	}
	if err := syscall.Kill(-shimPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_, _ = cmd.Process.Wait()
	waitGone(t, "after the shim's group was killed", serverPID)
}

// SIGKILL to the shim alone, with the server behind a wrapper (sh -c, as
// npx, uvx or the npm launcher put one): the kernel's parent-death signal
// would reach the wrapper only, and the real server, a grandchild, lived
// on. The shim's supervisor ends the whole group within 2 seconds.
func testShimKilledBehindWrapper(t *testing.T, bins shimBins) {
	if runtime.GOOS != "linux" {
		t.Skip("the 2-second guarantee is Linux's; macOS is best effort")
	}
	dir := t.TempDir()
	pidFile, wrapperFile := filepath.Join(dir, "server.pid"), filepath.Join(dir, "wrapper.pid")
	script := "echo $$ > " + shellQuote(wrapperFile) + "; " + shellQuote(bins.server) + " -mode hold -pid-file " + shellQuote(pidFile) + " & wait"
	cmd := exec.Command(bins.shim, "--no-trace", "--", "sh", "-c", script)
	stdin, err := cmd.StdinPipe() // held open: no end of input
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	shimPID, wrapperPID, serverPID := cmd.Process.Pid, 0, 0
	killAtEnd(t, &shimPID, &wrapperPID, &serverPID)
	serverPID, wrapperPID = readPID(t, pidFile), readPID(t, wrapperFile)
	if gone(serverPID) || gone(wrapperPID) {
		t.Fatal("the server ended while the shim was running")
	}
	if err := syscall.Kill(shimPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_, _ = cmd.Process.Wait()
	deadline := time.Now().Add(2 * time.Second)
	for _, pid := range []int{wrapperPID, serverPID} {
		for !gone(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("2s after the shim was killed, process %d still runs", pid)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}
