//go:build e2e && unix

package conformance

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// harness runs the suite, the peers and mcpsnoop, keeping their files in
// dir.
type harness struct {
	tools
	dir  string
	home string // MCPSNOOP_HOME of every mcpsnoop it runs
}

func newHarness(t *testing.T, tl tools, dir string) *harness {
	h := &harness{tools: tl, dir: dir, home: filepath.Join(dir, "mcpsnoop-home")}
	if err := os.MkdirAll(h.home, 0o700); err != nil {
		fatal(t, err)
	}
	return h
}

// suiteTimeout bounds one run of the suite: a whole version's server
// scenarios against one peer, or all its client scenarios.
const suiteTimeout = 8 * time.Minute

// clientTimeout is the suite's --timeout for one client scenario: the
// wrapper may wait for a slot (wrapclient_e2e_test.go) before the client
// starts, so it is far above the 30s default.
const clientTimeout = 5 * time.Minute

// runSuite runs one version of the suite with args, its output in
// files named after what in h.dir. The suite exits 1 when a scenario
// failed, which is no error here: the checks it wrote are the verdict.
func (h *harness) runSuite(t *testing.T, s suite, what string, env []string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), suiteTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.node, append([]string{s.entry}, args...)...)
	cmd.Dir = h.dir // no .mcpsnoop.toml of the repository's reaches the proxies it starts
	cmd.Env = append(os.Environ(), env...)
	logPath := filepath.Join(h.dir, what+".suite.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		fatal(t, err)
	}
	defer logFile.Close()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	start := time.Now()
	err = cmd.Run()
	if ctx.Err() != nil {
		fatalf(t, "%s: the suite did not finish in %s (its output: %s)", what, suiteTimeout, logPath)
	}
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		fatalf(t, "%s: the suite: %v (its output: %s)", what, err, logPath)
	}
	t.Logf("%s: the suite ran in %s", what, time.Since(start).Round(time.Second))
}

// proc is a process the test started and ends.
type proc struct {
	cmd  *exec.Cmd
	log  string
	done chan struct{}
}

// startProc runs name until the test ends (or stop), its output in a file
// under h.dir shown when the test fails.
func (h *harness) startProc(t *testing.T, what string, env []string, name string, args ...string) *proc {
	t.Helper()
	p := &proc{log: filepath.Join(h.dir, what+".log"), done: make(chan struct{})}
	logFile, err := os.Create(p.log)
	if err != nil {
		fatal(t, err)
	}
	p.cmd = exec.Command(name, args...)
	p.cmd.Dir = h.dir
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = logFile, logFile
	if err := p.cmd.Start(); err != nil {
		fatalf(t, "start %s: %v", name, err)
	}
	go func() { p.cmd.Wait(); logFile.Close(); close(p.done) }()
	t.Cleanup(func() {
		p.stop()
		if t.Failed() {
			out, _ := os.ReadFile(p.log)
			t.Logf("%s output (last 2 KiB):\n%s", what, out[max(0, len(out)-2048):])
		}
	})
	return p
}

// stop ends the process with SIGTERM (SIGKILL 10s later) and waits.
func (p *proc) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
}

// proxy is a running `mcpsnoop http`.
type proxy struct {
	url  string       // the proxy's URL: the target's path on the proxy's address
	stop func() error // stop it, flushing its log; an error if it failed or lost frames
}

// startProxy runs `mcpsnoop http` in front of target, writing to logPath,
// and returns once it listens.
func startProxy(mcpsnoop, home, target, logPath string) (proxy, error) {
	u, err := url.Parse(target)
	if err != nil {
		return proxy{}, err
	}
	// The target without its path: the proxy replaces a request's path
	// with the target's when it has one, and a client's OAuth discovery
	// asks other paths (/.well-known/...) of the same origin.
	origin := u.Scheme + "://" + u.Host
	cmd := exec.Command(mcpsnoop, "http", "--target", origin, "--listen", "127.0.0.1:0", "--trace-file", logPath)
	cmd.Env = append(os.Environ(), "MCPSNOOP_HOME="+home)
	cmd.Dir = filepath.Dir(logPath)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return proxy{}, err
	}
	if err := cmd.Start(); err != nil {
		return proxy{}, fmt.Errorf("start mcpsnoop http: %w", err)
	}
	addr, said := listening(stderr)
	if addr == "" {
		cmd.Process.Kill()
		cmd.Wait()
		return proxy{}, fmt.Errorf("mcpsnoop http --target %s did not say where it listens:\n%s", origin, <-said)
	}
	u.Host = addr
	return proxy{url: u.String(), stop: func() error {
		cmd.Process.Signal(syscall.SIGTERM)
		err := cmd.Wait()
		out := <-said
		if err != nil || strings.Contains(out, "dropped") {
			return fmt.Errorf("mcpsnoop http --target %s: %v\n%s", origin, err, out)
		}
		return nil
	}}, nil
}

// listening reads the proxy's stderr up to the line that says where it
// listens and returns that address ("" when it ended first); the rest of
// what it says arrives on the channel once it exits.
func listening(stderr io.Reader) (string, <-chan string) {
	r := bufio.NewReader(stderr)
	var said strings.Builder
	rest := make(chan string, 1)
	addr := ""
	for {
		line, err := r.ReadString('\n')
		said.WriteString(line)
		if a, ok := strings.CutPrefix(line, "mcpsnoop http: listening on "); ok {
			addr, _, _ = strings.Cut(a, ",")
			break
		}
		if err != nil {
			rest <- said.String()
			return "", rest
		}
	}
	go func() {
		b, _ := io.ReadAll(r)
		said.Write(b)
		rest <- said.String()
	}()
	return addr, rest
}

// pieceName is a scenario's name as a file name.
func pieceName(scenario string) string { return strings.ReplaceAll(scenario, "/", "-") }
