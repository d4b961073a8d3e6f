//go:build e2e

package conformance_test

import (
	"bufio"
	"encoding/json"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The prerequisites, which .ci/run installs: a Node 22 runtime, the
// conformance suite's entry point (dist/index.js of an installed
// @modelcontextprotocol/conformance) and server-everything's.
const (
	envNode       = "MCPSNOOP_E2E_NODE22"
	envSuite      = "MCPSNOOP_E2E_CONFORMANCE"
	envEverything = "MCPSNOOP_E2E_EVERYTHING"
	requireEnv    = "MCPSNOOP_E2E_REQUIRE"
)

func need(t *testing.T, env string) string {
	t.Helper()
	v := os.Getenv(env)
	if v == "" {
		if os.Getenv(requireEnv) == "1" {
			t.Fatalf("%s is not set (%s=1: a missing prerequisite fails the test)", env, requireEnv)
		}
		t.Skipf("%s is not set", env)
	}
	if _, err := os.Stat(v); err != nil {
		t.Fatalf("%s: %v", env, err)
	}
	return v
}

// tools are what every part needs, built and found once.
type tools struct {
	node, suite, everything string
	mcpsnoop, goServer      string
	tmp                     string
}

func setUp(t *testing.T) tools {
	t.Helper()
	tl := tools{node: need(t, envNode), suite: need(t, envSuite), everything: need(t, envEverything), tmp: t.TempDir()}
	bin := filepath.Join(tl.tmp, "bin")
	tl.mcpsnoop = filepath.Join(bin, "mcpsnoop")
	tl.goServer = filepath.Join(bin, "server")
	for _, b := range [][2]string{{tl.mcpsnoop, "../../cmd/mcpsnoop"}, {tl.goServer, "github.com/modelcontextprotocol/go-sdk/conformance/everything-server"}} {
		if out, err := exec.Command("go", "build", "-o", b[0], b[1]).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", b[1], err, out)
		}
	}
	return tl
}

// started is a process of the test's, ended at cleanup by its pid.
func start(t *testing.T, env []string, argv ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	return cmd
}

// bridge starts mcpsnoop bridge on a free port and returns its URL once it
// serves.
func bridge(t *testing.T, tl tools, logDir string, server ...string) string {
	t.Helper()
	cmd := start(t, nil, append([]string{tl.mcpsnoop, "bridge", "--listen", "127.0.0.1:0", "--log-dir", logDir, "--"}, server...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
	})
	serving := regexp.MustCompile(`serving .* at (http://\S+)`)
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if m := serving.FindStringSubmatch(sc.Text()); m != nil {
			go func() {
				for sc.Scan() {
				}
			}()
			return m[1]
		}
	}
	t.Fatal("the bridge ended before it served")
	return ""
}

// direct starts a server's own HTTP mode on addr and returns its URL once
// it accepts connections.
func direct(t *testing.T, env []string, addr string, argv ...string) string {
	t.Helper()
	cmd := start(t, env, argv...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return "http://" + addr + "/mcp"
		}
		if i == 600 {
			t.Fatalf("%v never listened on %s", argv, addr)
		}
		time.Sleep(50 * time.Millisecond) // polling for a port, not timing anything
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// suite runs the conformance suite's server scenarios against url and
// returns each scenario's verdict: true when none of its checks failed.
func suite(t *testing.T, tl tools, url string, args ...string) map[string]bool {
	t.Helper()
	out := filepath.Join(t.TempDir(), "results")
	cmd := exec.Command(tl.node, append([]string{tl.suite, "server", "--url", url, "-o", out}, args...)...)
	log, _ := cmd.CombinedOutput() // exit 1 when a scenario failed: the verdicts say which
	dirs, _ := filepath.Glob(filepath.Join(out, "server-*"))
	name := regexp.MustCompile(`^server-(.+)-\d{4}-\d\d-\d\dT`)
	verdicts := map[string]bool{}
	for _, d := range dirs {
		m := name.FindStringSubmatch(filepath.Base(d))
		data, err := os.ReadFile(filepath.Join(d, "checks.json"))
		if m == nil || err != nil {
			continue
		}
		var checks []struct {
			Status string `json:"status"`
		}
		if err := json.Unmarshal(data, &checks); err != nil {
			t.Fatalf("%s: %v", d, err)
		}
		ok := true
		for _, c := range checks {
			ok = ok && c.Status != "FAILURE"
		}
		verdicts[m[1]] = ok
	}
	if len(verdicts) < 20 {
		t.Fatalf("the suite ran %d scenarios against %s:\n%s", len(verdicts), url, log)
	}
	return verdicts
}

// compare holds the bridge's verdicts to the server's own HTTP mode's:
// the same, but for the scenarios listed, which pass through the bridge
// and fail directly, for the reason given.
func compare(t *testing.T, what string, bridged, direct map[string]bool, better map[string]string) {
	t.Helper()
	var names []string
	for n := range direct {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		b, ok := bridged[n]
		switch {
		case !ok:
			t.Errorf("%s: %s ran directly but not through the bridge", what, n)
		case better[n] != "":
			if !b || direct[n] {
				t.Errorf("%s: %s: bridge passed %v, direct %v; expected the bridge to pass and the server's own HTTP to fail (%s)", what, n, b, direct[n], better[n])
			}
		case b != direct[n]:
			t.Errorf("%s: %s: bridge passed %v, direct %v", what, n, b, direct[n])
		}
	}
	t.Logf("%s: %d scenarios, verdicts the same but for %d listed", what, len(names), len(better))
}

// TestE2EConformanceThroughBridge runs the suite's server scenarios against
// server-everything and the Go SDK's conformance server, each through the
// bridge (stdio) and in its own HTTP mode, and compares the verdicts.
func TestE2EConformanceThroughBridge(t *testing.T) {
	tl := setUp(t)
	t.Run("server-everything", func(t *testing.T) {
		addr := freeAddr(t)
		_, port, _ := net.SplitHostPort(addr)
		own := direct(t, []string{"PORT=" + port}, addr, tl.node, tl.everything, "streamableHttp")
		via := bridge(t, tl, t.TempDir(), tl.node, tl.everything, "stdio")
		compare(t, "server-everything", suite(t, tl, via), suite(t, tl, own), map[string]string{
			"dns-rebinding-protection": "server-everything's HTTP transport has no DNS-rebinding guard; the bridge's loopback Host/Origin check refuses it with 403",
			"server-session-lifecycle": "server-everything answers 400 for a session id it no longer knows; the bridge answers 404, as 2025-11-25 asks",
		})
	})
	t.Run("go-sdk", func(t *testing.T) {
		addr := freeAddr(t)
		own := direct(t, nil, addr, tl.goServer, "-http="+addr, "-stateless=false")
		logs := t.TempDir()
		via := bridge(t, tl, logs, tl.goServer)
		compare(t, "go-sdk", suite(t, tl, via), suite(t, tl, own), nil)
		if help, _ := exec.Command(tl.node, tl.suite, "server", "--help").CombinedOutput(); strings.Contains(string(help), "--requirements") {
			addr := freeAddr(t)
			own := direct(t, nil, addr, tl.goServer, "-http="+addr) // stateless: 2026-07-28
			req := []string{"--requirements", "2026-07-28"}
			compare(t, "go-sdk 2026-07-28", suite(t, tl, via, req...), suite(t, tl, own, req...), nil)
		}
	})
}

// TestE2EWorkflow runs the example workflow's steps under bash, as a runner
// would, with npx standing for the installed suite.
func TestE2EWorkflow(t *testing.T) {
	tl := setUp(t)
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	work := t.TempDir()
	npx := filepath.Join(tl.tmp, "npx-bin")
	if err := os.MkdirAll(npx, 0o755); err != nil {
		t.Fatal(err)
	}
	// npx -y @modelcontextprotocol/conformance@VERSION ARGS: the suite installed.
	shim := "#!/bin/sh\nshift 2\nexec \"" + tl.node + "\" \"" + tl.suite + "\" \"$@\"\n"
	if err := os.WriteFile(filepath.Join(npx, "npx"), []byte(shim), 0o755); err != nil {
		t.Fatal(err)
	}
	// "Build the server" makes bin/server: the one built for the test.
	if err := os.MkdirAll(filepath.Join(work, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(tl.goServer, filepath.Join(work, "bin", "server")); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "PATH="+npx+string(os.PathListSeparator)+filepath.Dir(tl.mcpsnoop)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"MCPSNOOP_HOME="+filepath.Join(work, "state"))
	job := loadJob(t)
	run := func(name string) (string, error) {
		cmd := exec.Command(bash, "--noprofile", "--norc", "-eo", "pipefail", "-c", job.step(t, name).Run)
		cmd.Dir, cmd.Env = work, env
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := run("Start the bridge"); err != nil {
		t.Fatalf("start: %v\n%s", err, out)
	}
	suiteOut, suiteErr := run("Run the conformance suite")
	if out, err := run("Stop the bridge"); err != nil {
		t.Fatalf("stop: %v\n%s", err, out)
	}
	if suiteErr != nil {
		t.Errorf("the suite failed through the bridge: %v\n%s", suiteErr, suiteOut)
	}
	out, err := run("Check the recorded traffic")
	if err != nil {
		t.Errorf("check: %v\n%s", err, out)
	}
	for _, f := range []string{"mcpsnoop.junit.xml", "mcpsnoop.sarif"} {
		if info, err := os.Stat(filepath.Join(work, "artifacts", f)); err != nil || info.Size() == 0 {
			t.Errorf("artifacts/%s: %v", f, err)
		}
	}
	logs, _ := filepath.Glob(filepath.Join(work, "artifacts", "mcp", "*.jsonl"))
	if len(logs) < 20 {
		t.Errorf("%d session logs, want one per scenario's session", len(logs))
	}
}
