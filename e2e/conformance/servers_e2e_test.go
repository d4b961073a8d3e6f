//go:build e2e && unix

package conformance

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
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

		// BRIDGE: once `mcpsnoop bridge` lands, server-everything's stdio
		// mode joins here as a peer named "everything-bridge" whose record
		// starts `mcpsnoop bridge` (listening on 127.0.0.1:0, writing to
		// log) in front of `node $MCPSNOOP_E2E_EVERYTHING stdio` (with
		// h.node, MCPSNOOP_E2E_NODE22) and returns the bridge's URL: the
		// bridge records what it carries, so no proxy goes in front. Its
		// rows then join agreement.tsv through -update.
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
			t.Fatalf("%s did not start", name)
		}
		p, err := startProxy(h.mcpsnoop, h.home, target, log)
		if err != nil {
			t.Fatal(err)
		}
		return p.url, func() {
			if err := p.stop(); err != nil {
				t.Error(err)
			}
		}
	}}
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
		t.Fatal(err)
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
			t.Fatalf("%s: nothing listens on %s after a minute: %v", name, addr, err)
		}
		time.Sleep(delay)
	}
}

// runServerScenarios runs every server scenario of suite s against peer,
// recorded, and checks each scenario's share of the recording with
// --blame server.
func (h *harness) runServerScenarios(t *testing.T, s suite, peer serverPeer) []Row {
	what := fmt.Sprintf("server-%s-%s", s.version, peer.name)
	dir := filepath.Join(h.dir, what)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(dir, "recording.jsonl")
	url, stop := peer.record(t, log)
	h.runSuite(t, s, what, nil, "server", "--url", url, "--suite", "all", "-o", filepath.Join(dir, "suite"))
	stop()
	output, err := os.ReadFile(filepath.Join(h.dir, what+".suite.log"))
	if err != nil {
		t.Fatal(err)
	}
	results, err := ReadResults(filepath.Join(dir, "suite"), "server-", RunOrder(output))
	if err != nil {
		t.Fatal(err)
	}
	if len(results) == 0 {
		t.Fatalf("%s: the suite ran no scenario", what)
	}
	pieces, err := Split(log, results, filepath.Join(dir, "scenarios"))
	if err != nil {
		t.Fatal(err)
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
