//go:build e2e && unix

package packaging_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestNPMSignals sends SIGTERM to the launcher: it reaches the server
// (through mcpsnoop), whose exit code comes back; SIGUSR1 reaches the
// binary too, and never opens Node's inspector. A binary that dies of a
// signal takes the launcher with it, of the same signal, or with 128+n for
// a signal Node keeps for itself.
func TestNPMSignals(t *testing.T) {
	in := installed(t)
	marker := filepath.Join(t.TempDir(), "marker")
	cmd := in.launcher(t.TempDir(), "--label", "term", "--", "node", filepath.Join(repoRoot(t), "packaging", "testdata", "raw-server.js"), "term", marker)
	stdin, _ := cmd.StdinPipe()
	defer stdin.Close()
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "ready\n" {
		cmd.Process.Kill()
		t.Fatalf("server said %q (%v)\n%s", line, err, stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, stdout)
	// Should the signal be lost on the way, closing stdin ends the server
	// (exit 0), so that the test fails rather than hangs.
	lost := time.AfterFunc(time.Minute, func() { stdin.Close() })
	defer lost.Stop()
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 42 {
		t.Errorf("launcher exit %v, want the server's 42\n%s", err, stderr.String())
	}
	if data, _ := os.ReadFile(marker); string(data) != "SIGTERM\n" {
		t.Errorf("the server did not see SIGTERM (marker %q)", data)
	}

	// SIGUSR1 is Node's inspector signal: the launcher passes it on to
	// its binary and opens no inspector. mcpsnoop ignores it (and goes on
	// to pass the SIGTERM that follows to the server); a stand-in binary
	// that handles it shows it arrived.
	raw := filepath.Join(repoRoot(t), "packaging", "testdata", "raw-server.js")
	usr1 := filepath.Join(t.TempDir(), "usr1")
	os.WriteFile(usr1, []byte("#!/bin/sh\nexec node '"+raw+"' signal SIGUSR1 \"$1\"\n"), 0o755)
	for _, tc := range []struct {
		name, binary string
		args         []string
		then         syscall.Signal // sent after SIGUSR1, when not 0
		marker       string
	}{
		{"mcpsnoop", "", []string{"--label", "usr1", "--", "node", raw, "term", marker}, syscall.SIGTERM, "SIGTERM\n"},
		{"a stand-in", usr1, []string{marker}, 0, "SIGUSR1\n"},
	} {
		os.Remove(marker)
		cmd = in.launcher(t.TempDir(), tc.args...)
		if tc.binary != "" {
			cmd.Env = append(cmd.Env, "MCPSNOOP_BINARY="+tc.binary)
		}
		stdin, _ := cmd.StdinPipe()
		defer stdin.Close()
		stdout, _ := cmd.StdoutPipe()
		stderr.Reset()
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "ready\n" {
			cmd.Process.Kill()
			t.Fatalf("%s: server said %q (%v)\n%s", tc.name, line, err, stderr.String())
		}
		if err := cmd.Process.Signal(syscall.SIGUSR1); err != nil {
			t.Fatal(err)
		}
		if tc.then != 0 {
			// SIGUSR1 first, then the signal that ends it, with no pause:
			// pending standard signals are delivered lowest number first
			// (SIGUSR1 is 10, SIGTERM 15), to the launcher and again to
			// the binary it passes them on to, so mcpsnoop has ignored
			// SIGUSR1 before SIGTERM reaches it.
			if err := cmd.Process.Signal(tc.then); err != nil {
				t.Fatal(err)
			}
		}
		go io.Copy(io.Discard, stdout)
		lost := time.AfterFunc(time.Minute, func() { stdin.Close() })
		defer lost.Stop()
		err = cmd.Wait()
		if !errors.As(err, &ee) || ee.ExitCode() != 42 {
			t.Errorf("%s: launcher sent SIGUSR1: exit %v, want the server's 42\n%s", tc.name, err, stderr.String())
		}
		if data, _ := os.ReadFile(marker); string(data) != tc.marker {
			t.Errorf("%s: launcher sent SIGUSR1: marker %q, want %q", tc.name, data, tc.marker)
		}
		if strings.Contains(stderr.String(), "Debugger") {
			t.Errorf("%s: SIGUSR1 opened the launcher's inspector:\n%s", tc.name, stderr.String())
		}
	}

	// MCPSNOOP_BINARY: a "binary" that kills itself with a signal. The
	// launcher dies of the same one, unless Node keeps it for itself
	// (SIGUSR1 would open the inspector, SIGPIPE is ignored): then it
	// exits 128+n.
	for _, tc := range []struct {
		sig     syscall.Signal
		reraise bool
	}{
		{syscall.SIGTERM, true},
		{syscall.SIGUSR2, true},
		{syscall.SIGUSR1, false},
		{syscall.SIGPIPE, false},
	} {
		dying := filepath.Join(t.TempDir(), "dying")
		os.WriteFile(dying, []byte(fmt.Sprintf("#!/bin/sh\nkill -%d $$\nsleep 5\n", tc.sig)), 0o755)
		cmd = in.launcher(t.TempDir(), "version")
		cmd.Env = append(cmd.Env, "MCPSNOOP_BINARY="+dying)
		stderr.Reset()
		cmd.Stderr = &stderr
		err = cmd.Run()
		if !errors.As(err, &ee) {
			t.Fatalf("launcher of a binary killed by %v: %v", tc.sig, err)
		}
		ws := ee.Sys().(syscall.WaitStatus)
		switch {
		case tc.reraise && (!ws.Signaled() || ws.Signal() != tc.sig):
			t.Errorf("binary killed by %v: launcher ended %v, want killed by the same signal", tc.sig, ee)
		case !tc.reraise && (ws.Signaled() || ws.ExitStatus() != 128+int(tc.sig)):
			t.Errorf("binary killed by %v: launcher ended %v, want exit %d", tc.sig, ee, 128+int(tc.sig))
		}
		if strings.Contains(stderr.String(), "Debugger") {
			t.Errorf("binary killed by %v: the launcher opened its inspector:\n%s", tc.sig, stderr.String())
		}
	}
}
