//go:build e2e && unix

package conformance

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// serverPeer is a server the suite's server scenarios run against.
type serverPeer struct {
	name string
	// record has what the suite sends to the peer recorded into log, and
	// returns the URL to point the suite at and what stops the recording
	// (flushing log). It starts the server on its first call only: each
	// suite version gets a recording of its own from the same server.
	record func(t *testing.T, log string) (url string, stop func())
	// merged: the recording is logs Merge made one, a session per
	// 2025-11-25 MCP session (Split's bySession).
	merged bool
}

// serverPeers are the servers under test, each recorded as a user would
// record it.
func serverPeers(h *harness) []serverPeer {
	return []serverPeer{
		// The Go SDK's conformance server (go-sdk v1.8.0), in both of its
		// streamable-HTTP modes, behind mcpsnoop http.
		h.viaProxy("go-stateful", func(t *testing.T) string { return h.startGoServer(t, "go-stateful", false) }),
		h.viaProxy("go-stateless", func(t *testing.T) string { return h.startGoServer(t, "go-stateless", true) }),
		// server-everything (a TypeScript SDK server), streamable HTTP,
		// behind mcpsnoop http.
		h.viaProxy("everything-http", h.startEverythingHTTP),

		// server-everything's stdio mode through mcpsnoop bridge, which
		// records every server process it starts: no proxy in front.
		h.viaBridge("everything-bridge", h.node, h.everyth, "stdio"),
	}
}

// viaProxy is a peer recorded by `mcpsnoop http` in front of the server
// start returns the URL of (started once).
func (h *harness) viaProxy(name string, start func(t *testing.T) string) serverPeer {
	var once sync.Once
	var target string
	return serverPeer{name: name, record: func(t *testing.T, log string) (string, func()) {
		once.Do(func() { target = start(t) })
		if target == "" {
			fatalf(t, "%s did not start", name)
		}
		p, err := startProxy(h.mcpsnoop, h.home, target, log)
		if err != nil {
			fatal(t, err)
		}
		return p.url, func() {
			if err := p.stop(); err != nil {
				errorf(t, "%v", err)
			}
		}
	}}
}

// viaBridge is a stdio server behind `mcpsnoop bridge`, one bridge per
// recording. The bridge writes a log per server process it starts (one
// per 2025-11-25 session, one shared by 2026-07-28 requests) and its own
// for requests it refused itself; stopping it merges them by time into
// the recording, for Split.
func (h *harness) viaBridge(name string, server ...string) serverPeer {
	return serverPeer{name: name, merged: true, record: func(t *testing.T, log string) (string, func()) {
		logs := strings.TrimSuffix(log, ".jsonl") + "-logs"
		cmd := exec.Command(h.mcpsnoop, append([]string{"bridge", "--listen", "127.0.0.1:0", "--log-dir", logs, "--"}, server...)...)
		cmd.Env = append(os.Environ(), "MCPSNOOP_HOME="+h.home)
		cmd.Dir = h.dir
		stderr, err := cmd.StderrPipe()
		if err != nil {
			fatal(t, err)
		}
		if err := cmd.Start(); err != nil {
			fatalf(t, "start mcpsnoop bridge: %v", err)
		}
		url, said := bridgeServing(stderr)
		if url == "" {
			cmd.Process.Kill()
			cmd.Wait()
			fatalf(t, "mcpsnoop bridge did not say where it serves:\n%s", <-said)
		}
		return url, func() {
			cmd.Process.Signal(syscall.SIGTERM)
			err := cmd.Wait()
			out := <-said
			if err != nil {
				errorf(t, "mcpsnoop bridge: %v\n%s", err, out)
			}
			paths, _ := filepath.Glob(filepath.Join(logs, "*.jsonl"))
			if len(paths) == 0 {
				fatalf(t, "mcpsnoop bridge wrote no log in %s:\n%s", logs, out)
			}
			if err := Merge(paths, log); err != nil {
				fatal(t, err)
			}
		}
	}}
}

// bridgeServing reads the bridge's stderr up to the line that says where
// it serves and returns that URL ("" when it ended first); the rest of
// what it says arrives on the channel once it exits.
func bridgeServing(stderr io.Reader) (string, <-chan string) {
	serving := regexp.MustCompile(`^mcpsnoop bridge: serving .* at (http://\S+)`)
	r := bufio.NewReader(stderr)
	var said strings.Builder
	rest := make(chan string, 1)
	for {
		line, err := r.ReadString('\n')
		said.WriteString(line)
		if m := serving.FindStringSubmatch(line); m != nil {
			go func() {
				b, _ := io.ReadAll(r)
				said.Write(b)
				rest <- said.String()
			}()
			return m[1], rest
		}
		if err != nil {
			rest <- said.String()
			return "", rest
		}
	}
}

// startGoServer runs the Go SDK's conformance server on a free loopback
// port and returns its MCP URL once it accepts connections.
func (h *harness) startGoServer(t *testing.T, name string, stateless bool) string {
	addr := freeAddr(t)
	h.startProc(t, name, nil, h.goServer, "-http", addr, "-stateless="+strconv.FormatBool(stateless))
	waitListening(t, name, addr)
	return "http://" + addr + "/mcp"
}

// startEverythingHTTP runs server-everything's streamable-HTTP mode on a
// free port and returns its MCP URL once it accepts connections.
func (h *harness) startEverythingHTTP(t *testing.T) string {
	addr := freeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	h.startProc(t, "everything-http", []string{"PORT=" + port}, h.node, h.everyth, "streamableHttp")
	waitListening(t, "everything-http", addr)
	return "http://" + addr + "/mcp"
}

// freeAddr is a loopback address with a port free a moment ago, for a
// server that cannot be handed a listener or report the port it took.
func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fatal(t, err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// waitListening waits until something accepts TCP connections on addr:
// these servers say they listen before they do (or not at all).
func waitListening(t *testing.T, name, addr string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for delay := 10 * time.Millisecond; ; delay = min(2*delay, 500*time.Millisecond) {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			fatalf(t, "%s: nothing listens on %s after a minute: %v", name, addr, err)
		}
		time.Sleep(delay)
	}
}

// runServerScenarios runs every server scenario of suite s against peer
// (only scenario, when given), recorded, and checks each scenario's share
// of the recording with --blame server.
func (h *harness) runServerScenarios(t *testing.T, s suite, peer serverPeer, scenario string) []Row {
	what := fmt.Sprintf("server-%s-%s", s.version, peer.name)
	which := []string{"--suite", "all"}
	if scenario != "" {
		what += "-again-" + pieceName(scenario)
		which = []string{"--scenario", scenario}
	}
	dir := filepath.Join(h.dir, what)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fatal(t, err)
	}
	log := filepath.Join(dir, "recording.jsonl")
	url, stop := peer.record(t, log)
	h.runSuite(t, s, what, nil, append([]string{"server", "--url", url, "-o", filepath.Join(dir, "suite")}, which...)...)
	stop()
	output, err := os.ReadFile(filepath.Join(h.dir, what+".suite.log"))
	if err != nil {
		fatal(t, err)
	}
	results, err := ReadResults(filepath.Join(dir, "suite"), "server-", RunOrder(output))
	if err != nil {
		fatal(t, err)
	}
	if len(results) == 0 {
		fatalf(t, "%s: the suite ran no scenario", what)
	}
	pieces, err := Split(log, results, filepath.Join(dir, "scenarios"), peer.merged)
	if err != nil {
		fatal(t, err)
	}
	logs := make([]string, len(pieces))
	for i, p := range pieces {
		logs[i] = p.Path
	}
	verdicts := h.checkAll(t, "server", logs)
	rows := make([]Row, len(results))
	for i, r := range results {
		rows[i] = row(t, s.version, "server", peer.name, r, verdicts[i])
	}
	return rows
}
