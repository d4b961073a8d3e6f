//go:build e2e && unix

package conformance

// The standing oracle (issue 39): every server scenario of both suite
// versions against the Go SDK's conformance server (stateful and
// stateless) and server-everything through `mcpsnoop http`, every client
// scenario with the Go SDK's conformance client through it against the
// suite's mock server, each scenario's recording checked, and the verdicts
// held to agreement.tsv. .ci/run installs what it needs and names it in
// the environment:
//
//	MCPSNOOP_E2E_NODE22                a Node.js 22 (the suite needs >= 22)
//	MCPSNOOP_E2E_CONFORMANCE_0116      @modelcontextprotocol/conformance 0.1.16's dist/index.js
//	MCPSNOOP_E2E_CONFORMANCE_020       @modelcontextprotocol/conformance 0.2.0-alpha.12's dist/index.js
//	MCPSNOOP_E2E_EVERYTHING            @modelcontextprotocol/server-everything 2026.8.31's dist/index.js
//	MCPSNOOP_E2E_GO_EVERYTHING_SERVER  go-sdk v1.8.0 conformance/everything-server
//	MCPSNOOP_E2E_GO_EVERYTHING_CLIENT  go-sdk v1.8.0 conformance/everything-client
//
// Without one of them the test skips, saying which; with
// MCPSNOOP_E2E_REQUIRE=1 it fails instead. MCPSNOOP_E2E_CONFORMANCE_OUT
// keeps every recording, piece, suite output and the observed table in
// that folder; -update rewrites agreement.tsv from what the run observed.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/internal/testbin"
)

func init() {
	// The suite runs the client command this test gives it: this binary,
	// which then puts mcpsnoop http between the Go SDK's client and the
	// suite's mock server (clients_e2e_test.go).
	clientWrapper = func(args []string) (int, bool) {
		if os.Getenv(wrapEnv) == "" {
			return 0, false
		}
		return wrapClient(args), true
	}
}

// A suite version and where it is installed.
type suite struct {
	version string
	entry   string // dist/index.js
}

// tools are the installs the test runs.
type tools struct {
	node     string
	suites   []suite
	goServer string
	goClient string
	everyth  string
	mcpsnoop string
}

// requireEnv set to 1 makes a missing prerequisite fail the test rather
// than skip it.
const requireEnv = "MCPSNOOP_E2E_REQUIRE"

// missing skips the test for want of a prerequisite, or fails it under
// MCPSNOOP_E2E_REQUIRE=1.
func missing(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv(requireEnv) == "1" {
		fatalf(t, format+" (%s=1: a missing prerequisite fails the test)", append(args, requireEnv)...)
	}
	t.Skipf(format, args...)
}

// installed finds the installs .ci/run made, or skips.
func installed(t *testing.T) tools {
	t.Helper()
	file := func(env, what string) string {
		p := os.Getenv(env)
		if p == "" {
			missing(t, "%s is not set: install %s (.ci/run does; docs/guides/conformance.md says how)", env, what)
		}
		if _, err := os.Stat(p); err != nil {
			missing(t, "%s=%s: %v", env, p, err)
		}
		return p
	}
	tl := tools{
		node: file("MCPSNOOP_E2E_NODE22", "a Node.js 22 runtime"),
		suites: []suite{
			{"0.1.16", file("MCPSNOOP_E2E_CONFORMANCE_0116", "@modelcontextprotocol/conformance@0.1.16")},
			{"0.2.0-alpha.12", file("MCPSNOOP_E2E_CONFORMANCE_020", "@modelcontextprotocol/conformance@0.2.0-alpha.12")},
		},
		everyth:  file("MCPSNOOP_E2E_EVERYTHING", "@modelcontextprotocol/server-everything@2026.8.31"),
		goServer: file("MCPSNOOP_E2E_GO_EVERYTHING_SERVER", "go-sdk v1.8.0 conformance/everything-server"),
		goClient: file("MCPSNOOP_E2E_GO_EVERYTHING_CLIENT", "go-sdk v1.8.0 conformance/everything-client"),
	}
	out, err := exec.Command(tl.node, "--version").Output()
	if err != nil {
		fatalf(t, "%s --version: %v", tl.node, err)
	}
	var major int
	if _, err := fmt.Sscanf(string(out), "v%d.", &major); err != nil || major < 22 {
		fatalf(t, "MCPSNOOP_E2E_NODE22=%s is Node.js %s; the suite needs 22 or newer", tl.node, strings.TrimSpace(string(out)))
	}
	for _, s := range tl.suites {
		out, err := exec.Command(tl.node, s.entry, "--version").Output()
		if got := strings.TrimSpace(string(out)); err != nil || got != s.version {
			fatalf(t, "%s --version: %q, %v; want %s", s.entry, got, err, s.version)
		}
	}
	tl.mcpsnoop = testbin.Build(t, "../../cmd/mcpsnoop")
	return tl
}

// workDir is where the run keeps its files: MCPSNOOP_E2E_CONFORMANCE_OUT,
// emptied first, or a temporary folder.
func workDir(t *testing.T) string {
	dir := os.Getenv("MCPSNOOP_E2E_CONFORMANCE_OUT")
	if dir == "" {
		return t.TempDir()
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		fatal(t, err)
	}
	if err := os.RemoveAll(dir); err != nil {
		fatal(t, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fatal(t, err)
	}
	t.Logf("keeping recordings and suite output in %s", dir)
	return dir
}

func TestConformanceAgreement(t *testing.T) {
	repeatFailures(t)
	tl := installed(t)
	h := newHarness(t, tl, workDir(t))
	var observed []Row
	peers := serverPeers(h)
	for _, peer := range peers {
		for _, s := range tl.suites {
			observed = append(observed, h.runServerScenarios(t, s, peer, "")...)
		}
	}
	for _, s := range tl.suites {
		observed = append(observed, h.runClientScenarios(t, s, "")...)
	}
	if t.Failed() {
		return
	}
	tablePath := "agreement.tsv"
	var table []Row
	if data, err := os.ReadFile(tablePath); err == nil {
		if table, err = ReadTable(bytes.NewReader(data), tablePath); err != nil {
			fatal(t, err)
		}
	} else if !*update {
		fatal(t, err)
	}
	if !*update {
		observed = RunFlippedAgain(observed, table, func(r Row) (Row, bool) { return h.runOne(t, peers, r) }, t.Logf)
	}
	var buf bytes.Buffer
	if err := WriteTable(&buf, observed); err != nil {
		fatal(t, err)
	}
	os.WriteFile(filepath.Join(h.dir, "observed.tsv"), buf.Bytes(), 0o644)
	if *update {
		table = Update(observed, table)
		buf.Reset()
		if err := WriteTable(&buf, table); err != nil {
			fatal(t, err)
		}
		if err := os.WriteFile(tablePath, buf.Bytes(), 0o644); err != nil {
			fatal(t, err)
		}
		t.Logf("wrote %s", tablePath)
	}
	agree, byReason := Counts(Update(observed, table))
	var counts []string
	for r, n := range byReason {
		if r == "" {
			r = "(no reason yet)"
		}
		counts = append(counts, fmt.Sprintf("%s %d", r, n))
	}
	sort.Strings(counts)
	t.Logf("%d scenarios: %d agree; disagreements: %s", len(observed), agree, strings.Join(counts, ", "))
	for _, p := range Compare(observed, table) {
		errorf(t, "agreement.tsv: %s", p)
	}
	if t.Failed() {
		t.Logf("the run's table is %s; go test -tags e2e ./e2e/conformance/ -update rewrites agreement.tsv from a run (keeping reasons and notes), then give each new disagreement its reason", filepath.Join(h.dir, "observed.tsv"))
	}
}

// runOne runs the scenario of row r again, on its own, and returns its new
// row.
func (h *harness) runOne(t *testing.T, peers []serverPeer, r Row) (Row, bool) {
	var s suite
	for _, v := range h.suites {
		if v.version == r.Suite {
			s = v
		}
	}
	if s.entry == "" {
		return Row{}, false
	}
	var rows []Row
	switch r.Side {
	case "client":
		rows = h.runClientScenarios(t, s, r.Scenario)
	case "server":
		for _, p := range peers {
			if p.name == r.Peer {
				rows = h.runServerScenarios(t, s, p, r.Scenario)
			}
		}
	}
	for _, again := range rows {
		if again.key() == r.key() {
			return again, true
		}
	}
	return Row{}, false
}
