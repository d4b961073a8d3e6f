//go:build e2e && unix

package conformance

// TestCaptureFixtures recaptures fixtures/captured/conformance, on demand
// only (MCPSNOOP_E2E_CAPTURE=1; .ci/run never does): each log is what one
// `mcpsnoop http` recorded, byte for byte, while the suite or the Go SDK's
// client ran one scenario through it. The new logs' .expected then come
// from go test ./e2e/conformance/ -run TestCapturedVerdicts -update, to be
// read before they are committed.

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func TestCaptureFixtures(t *testing.T) {
	repeatFailures(t)
	if os.Getenv("MCPSNOOP_E2E_CAPTURE") != "1" {
		t.Skip("MCPSNOOP_E2E_CAPTURE=1 recaptures fixtures/captured/conformance")
	}
	tl := installed(t)
	h := newHarness(t, tl, t.TempDir())
	v0116, v020 := tl.suites[0], tl.suites[1]
	stateless := h.startGoServer(t, "go-stateless", true)
	stateful := h.startGoServer(t, "go-stateful", false)

	// The suite's TypeScript client against a server, one scenario.
	server := func(name, target string, s suite, scenario string) {
		log := capturedLog(t, name)
		p, err := startProxy(h.mcpsnoop, h.home, target, log)
		if err != nil {
			fatal(t, err)
		}
		h.runSuite(t, s, name, nil, "server", "--url", p.url, "--scenario", scenario, "-o", filepath.Join(h.dir, name))
		if err := p.stop(); err != nil {
			fatal(t, err)
		}
	}
	server("go-stateless-405-to-get", stateless, v0116, "ping")
	server("go-stateful-404-after-delete", stateful, v020, "server-session-lifecycle")

	// The Go SDK's client, which asks server/discover (2026-07-28) first,
	// against the stateful server, which answers it; the client goes on
	// to initialize a 2025-11-25 session.
	log := capturedLog(t, "go-client-discover-then-initialize")
	p, err := startProxy(h.mcpsnoop, h.home, stateful, log)
	if err != nil {
		fatal(t, err)
	}
	client := exec.Command(tl.goClient, p.url)
	client.Env = append(os.Environ(), "MCP_CONFORMANCE_SCENARIO=initialize")
	if out, err := client.CombinedOutput(); err != nil {
		fatalf(t, "everything-client: %v\n%s", err, out)
	}
	if err := p.stop(); err != nil {
		fatal(t, err)
	}

	// The Go SDK's client against the suite's mock server, one scenario,
	// recorded by the wrapper (clients_e2e_test.go).
	clientScenario := func(name string, s suite, scenario string) {
		dir := t.TempDir()
		for _, d := range []string{"recordings", "slots"} {
			if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
				fatal(t, err)
			}
		}
		self, err := os.Executable()
		if err != nil {
			fatal(t, err)
		}
		env := []string{wrapEnv + "=1", wrapMcpsnoop + "=" + h.mcpsnoop, wrapClientBin + "=" + tl.goClient,
			wrapRecordings + "=" + filepath.Join(dir, "recordings"), wrapSlots + "=" + filepath.Join(dir, "slots"), "MCPSNOOP_HOME=" + h.home}
		h.runSuite(t, s, name, env, "client", "--command", self, "--scenario", scenario, "-o", filepath.Join(dir, "suite"))
		copyFile(t, filepath.Join(dir, "recordings", pieceName(scenario)+".jsonl"), capturedLog(t, name))
	}
	clientScenario("oauth-401-then-authorized-probe-fallback", v020, "auth/2025-03-26-oauth-endpoint-fallback")
	clientScenario("mock-answers-get-with-parse-error", v020, "initialize")
}

// capturedLog is the path of a fixture's log, any older capture removed.
func capturedLog(t *testing.T, name string) string {
	t.Helper()
	log, err := filepath.Abs(filepath.Join(capturedDir, name+".jsonl"))
	if err != nil {
		fatal(t, err)
	}
	if err := os.Remove(log); err != nil && !os.IsNotExist(err) {
		fatal(t, err)
	}
	return log
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		fatal(t, err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		fatal(t, err)
	}
	if _, err := io.Copy(out, in); err != nil {
		fatal(t, err)
	}
	if err := out.Close(); err != nil {
		fatal(t, err)
	}
}
