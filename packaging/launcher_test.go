//go:build linux || darwin

package packaging_test

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The npm launcher's watch over npx (bin/mcpsnoop.js, watchNpx), run with
// plain node under a stand-in npm: npm exec runs the launcher through
// `sh -c`, and a client's SIGTERM to npm kills that shell without passing
// it on. These need node only, not a release snapshot, so they run
// without the e2e tag (and skip without node, unless MCPSNOOP_E2E_REQUIRE
// is set).

// npxChain is a launcher started the way npx starts it: stand-in npm ->
// sh -c -> node mcpsnoop.js -> the stand-in binary.
type npxChain struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	shPid int
	out   chan string // the binary's stdout, by line; closed at its end
	errs  chan string // stderr of them all, by line; closed at its end
}

func startNPXChain(t *testing.T, preload string) *npxChain {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("MCPSNOOP_E2E_REQUIRE") == "1" {
			t.Fatal("node is not installed, and MCPSNOOP_E2E_REQUIRE=1")
		}
		t.Skip("node is not installed")
	}
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	binary := filepath.Join(t.TempDir(), "mcpsnoop")
	script := "#!/bin/sh\nexec '" + node + "' '" + abs("testdata/launcher/binary.js") + "' \"$@\"\n"
	if err := os.WriteFile(binary, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	args := []string{abs("testdata/launcher/npm-cli.js"), node}
	if preload != "" {
		args = append(args, "-r", abs(preload))
	}
	args = append(args, abs("npm/mcpsnoop/bin/mcpsnoop.js"))
	c := &npxChain{cmd: exec.Command(node, args...), out: make(chan string, 16), errs: make(chan string, 64)}
	c.cmd.Env = append(os.Environ(), "npm_command=exec", "MCPSNOOP_BINARY="+binary)
	c.stdin, _ = c.cmd.StdinPipe()
	stdout, _ := c.cmd.StdoutPipe()
	stderr, _ := c.cmd.StderrPipe()
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.stdin.Close() // the binary ends, and the launcher and the shell with it
		c.cmd.Process.Kill()
		c.cmd.Wait()
	})
	lines := func(r io.Reader, to chan string) {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			to <- sc.Text()
		}
		close(to)
	}
	go lines(stdout, c.out)
	go lines(stderr, c.errs)
	// Should the launcher lose the binary's signal, its stdin ends: the
	// test then fails on what the binary says rather than hangs.
	stop := time.AfterFunc(2*time.Minute, func() { c.stdin.Close() })
	t.Cleanup(func() { stop.Stop() })
	for c.shPid == 0 {
		line, ok := <-c.errs
		if !ok {
			t.Fatal("npm-cli.js ended before starting the shell")
		}
		if pid, found := strings.CutPrefix(line, "sh "); found {
			c.shPid, _ = strconv.Atoi(pid)
		}
	}
	for {
		select {
		case line := <-c.out:
			if line != "ready" {
				t.Fatalf("the binary said %q, want ready", line)
			}
			return c
		case line := <-c.errs:
			if strings.HasPrefix(line, "sh ended") {
				t.Fatalf("the launcher ended before its binary was ready (%s)", line)
			}
		}
	}
}

// When npx's shell dies (the launcher's parent changes) while npm lives
// on, the launcher passes the binary the SIGTERM the shell lost.
func TestNPXLauncherEndsTheBinaryWhenItsShellDies(t *testing.T) {
	c := startNPXChain(t, "")
	if err := syscall.Kill(c.shPid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if line := <-c.out; line != "got SIGTERM" {
		t.Errorf("after the shell died the binary said %q, want got SIGTERM", line)
	}
}

// A liveness probe of npm that fails with EPERM (npm runs as another
// user) means npm is alive: the binary is left running.
func TestNPXLauncherTakesEPERMForAlive(t *testing.T) {
	c := startNPXChain(t, "testdata/launcher/eperm.js")
	for probes := 0; probes < 3; {
		select {
		case line, ok := <-c.errs:
			if !ok {
				t.Fatal("stderr ended before three probes")
			}
			if strings.HasPrefix(line, "probe ") {
				probes++
			}
			if strings.HasPrefix(line, "sh ended") {
				t.Fatalf("the launcher ended after %d probes (%s); the binary should still run", probes, line)
			}
		case line := <-c.out:
			t.Fatalf("after %d probes the binary said %q; it should still run", probes, line)
		}
	}
	c.stdin.Close()
	if line := <-c.out; line != "stdin ended" {
		t.Errorf("the binary said %q, want stdin ended", line)
	}
}
