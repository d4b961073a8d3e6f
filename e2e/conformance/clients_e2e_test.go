//go:build e2e && unix

package conformance

import (
	"errors"
	"fmt"
	"hash/fnv"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/internal/filelock"
)

// The suite runs a client scenario by starting its mock server and then
// the client command with the mock's URL as its last argument (and the
// scenario in MCP_CONFORMANCE_SCENARIO). The command this test gives it is
// its own binary with wrapEnv set, which puts `mcpsnoop http` between the
// Go SDK's conformance client and the mock, recording the scenario.
const (
	wrapEnv        = "MCPSNOOP_CONFORMANCE_WRAP" // set: this binary is the client command
	wrapMcpsnoop   = "MCPSNOOP_CONFORMANCE_WRAP_MCPSNOOP"
	wrapClientBin  = "MCPSNOOP_CONFORMANCE_WRAP_CLIENT"
	wrapRecordings = "MCPSNOOP_CONFORMANCE_WRAP_RECORDINGS"
	wrapSlots      = "MCPSNOOP_CONFORMANCE_WRAP_SLOTS"
)

// clientSlots is how many scenarios' clients run at once. The suite starts
// every scenario at once (--suite all); two at a time keeps 2 cores from
// being so loaded that a timing check of the suite's (sse-retry's) or a
// timeout decides a verdict.
const clientSlots = 2

// runClientScenarios runs every client scenario of suite s (only
// scenario, when given) with the Go SDK's conformance client through
// mcpsnoop http, and checks each recording with --blame client.
func (h *harness) runClientScenarios(t *testing.T, s suite, scenario string) []Row {
	what := "client-" + s.version + "-go-client"
	which := []string{"--suite", "all"}
	if scenario != "" {
		what += "-again-" + pieceName(scenario)
		which = []string{"--scenario", scenario}
	}
	dir := filepath.Join(h.dir, what)
	recordings := filepath.Join(dir, "scenarios")
	slots := filepath.Join(dir, "slots")
	for _, d := range []string{recordings, slots} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			fatal(t, err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		fatal(t, err)
	}
	env := []string{
		wrapEnv + "=1",
		wrapMcpsnoop + "=" + h.mcpsnoop,
		wrapClientBin + "=" + h.goClient,
		wrapRecordings + "=" + recordings,
		wrapSlots + "=" + slots,
		"MCPSNOOP_HOME=" + h.home,
	}
	h.runSuite(t, s, what, env, append([]string{"client", "--command", self,
		"--timeout", strconv.Itoa(int(clientTimeout.Milliseconds())), "-o", filepath.Join(dir, "suite")}, which...)...)
	results, err := ReadResults(filepath.Join(dir, "suite"), "", nil) // each has a recording of its own
	if err != nil {
		fatal(t, err)
	}
	if len(results) == 0 {
		fatalf(t, "%s: the suite ran no scenario", what)
	}
	logs := make([]string, len(results))
	for i, r := range results {
		logs[i] = filepath.Join(recordings, pieceName(r.Scenario)+".jsonl")
		if _, err := os.Stat(logs[i]); err != nil {
			fatalf(t, "%s %s: no recording (did the suite run the client?): %v", what, r.Scenario, err)
		}
	}
	verdicts := h.checkAll(t, "client", logs)
	rows := make([]Row, len(results))
	for i, r := range results {
		rows[i] = row(t, s.version, "client", "go-client", r, verdicts[i])
	}
	return rows
}

// wrapClient is the client command: args end with the mock server's URL.
// It waits for a slot, starts mcpsnoop http in front of the mock's origin
// writing the scenario's recording, runs the Go SDK's client against the
// proxy (the same path and query), stops the proxy and exits as the
// client did.
func wrapClient(args []string) int {
	fail := func(format string, a ...any) int {
		fmt.Fprintf(os.Stderr, "conformance client wrapper: "+format+"\n", a...)
		return 3
	}
	if len(args) == 0 {
		return fail("no server URL")
	}
	scenario := os.Getenv("MCP_CONFORMANCE_SCENARIO")
	if scenario == "" {
		return fail("MCP_CONFORMANCE_SCENARIO is not set")
	}
	release, err := takeSlot(os.Getenv(wrapSlots), scenario)
	if err != nil {
		return fail("%v", err)
	}
	defer release()
	mock, err := url.Parse(args[len(args)-1])
	if err != nil {
		return fail("%v", err)
	}
	logPath := filepath.Join(os.Getenv(wrapRecordings), pieceName(scenario)+".jsonl")
	p, err := startProxy(os.Getenv(wrapMcpsnoop), os.Getenv("MCPSNOOP_HOME"), mock.String(), logPath)
	if err != nil {
		return fail("%v", err)
	}
	client := exec.Command(os.Getenv(wrapClientBin), append(args[:len(args)-1:len(args)-1], p.url)...)
	client.Stdout, client.Stderr = os.Stdout, os.Stderr
	err = client.Run()
	if err := p.stop(); err != nil {
		// The scenario's recording is not whole: fail it loudly (the
		// harness also finds no row it can trust).
		return fail("%v", err)
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	if err != nil {
		return fail("%v", err)
	}
	return 0
}

// takeSlot waits for one of clientSlots lock files (the scenario's, by its
// name's hash) and returns what gives it back.
func takeSlot(dir, scenario string) (func(), error) {
	h := fnv.New32a()
	h.Write([]byte(scenario))
	f, err := os.OpenFile(filepath.Join(dir, strconv.Itoa(int(h.Sum32()%clientSlots))), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := filelock.Lock(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
