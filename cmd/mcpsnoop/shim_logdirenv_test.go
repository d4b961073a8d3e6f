//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The log folders beyond the state directory: $MCPSNOOP_LOG_DIR (the
// shim's default --log-dir) and .mcpsnoop.toml's log-dir, where check,
// open and sessions look for a session named by its label.
var shimLogDirEnvTests = []struct {
	name string
	fn   func(*testing.T, shimBins)
}{
	{"log-dir-from-env", testShimLogDirFromEnv},
	{"readers-find-config-log-dir", testReadersFindConfigLogDir},
}

// recordEcho runs one echo call through the shim started as cmd, by the
// go-sdk client.
func recordEcho(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1.0.0"}, nil)
	ctx := withTimeout(t)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}}); err != nil || res.IsError {
		t.Fatalf("echo: %v %+v", err, res)
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
}

// runIn runs mcpsnoop in process: exit code, stdout, stderr.
func runIn(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// MCPSNOOP_LOG_DIR is the shim's default --log-dir (a flag still wins),
// and check, open and sessions look there: by label, by id, and for the
// newest log when given none.
func testShimLogDirFromEnv(t *testing.T, bins shimBins) {
	logs, home := t.TempDir(), t.TempDir()
	shim := func(args ...string) *exec.Cmd {
		cmd := exec.Command(bins.shim, append(append([]string{"--label", "notes"}, args...), "--", bins.server)...)
		cmd.Env = []string{capture.LogDirEnv + "=" + logs, "MCPSNOOP_HOME=" + home}
		cmd.Dir = t.TempDir()
		return cmd
	}
	recordEcho(t, shim())
	log := onlyLog(t, logs)
	if stray, _ := filepath.Glob(filepath.Join(home, "sessions", "*.jsonl")); len(stray) > 0 {
		t.Errorf("the log went to the state directory too: %v", stray)
	}
	trace := filepath.Join(t.TempDir(), "trace.jsonl")
	recordEcho(t, shim("--trace-file", trace)) // the flag wins over the environment
	readFrames(t, trace)
	onlyLog(t, logs)

	t.Setenv("MCPSNOOP_HOME", home)
	t.Setenv(capture.LogDirEnv, logs)
	id := strings.TrimSuffix(filepath.Base(log), ".jsonl")
	for _, args := range [][]string{{"check", "notes"}, {"check", id}, {"check"}, {"check", "--run", "latest"}} {
		if code, stdout, stderr := runIn(args...); code != 0 || !strings.Contains(stdout, "session "+id+":") {
			t.Errorf("%v: exit %d\n%s%s", args, code, stdout, stderr)
		}
	}
	if code, stdout, stderr := runIn("open", "notes"); code != 0 || !strings.Contains(stdout, "tools/call") {
		t.Errorf("open notes: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, stdout, stderr := runIn("sessions"); code != 0 || !strings.Contains(stdout, id) || !strings.Contains(stdout, log) {
		t.Errorf("sessions: exit %d\n%s%s", code, stdout, stderr)
	}
	// Without it the session is nowhere to be found, and the error says
	// where check looked and what to set.
	t.Setenv(capture.LogDirEnv, "")
	code, _, stderr := runIn("check", "notes")
	if code != 2 || !strings.Contains(stderr, `no session "notes"`) || !strings.Contains(stderr, filepath.Join(home, "sessions")) {
		t.Errorf("check notes without the folder: exit %d, %s", code, stderr)
	}
}

// A project whose .mcpsnoop.toml names log-dir (untrusted: inside the
// project, so it applies): the shim started there writes to it, and check,
// open and sessions run there find the session by its label. Elsewhere
// they do not look there.
func testReadersFindConfigLogDir(t *testing.T, bins shimBins) {
	project, home := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(project, capture.ConfigFile), []byte("log-dir = \"artifacts/mcp\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bins.shim, "--label", "notes", "--", bins.server)
	cmd.Env = []string{"MCPSNOOP_HOME=" + home}
	cmd.Dir = project
	recordEcho(t, cmd)
	log := onlyLog(t, filepath.Join(project, "artifacts", "mcp"))
	id := strings.TrimSuffix(filepath.Base(log), ".jsonl")

	t.Setenv("MCPSNOOP_HOME", home)
	t.Chdir(project)
	for _, args := range [][]string{{"check", "notes"}, {"check"}, {"open", "notes"}, {"sessions"}} {
		if code, stdout, stderr := runIn(args...); code != 0 || !strings.Contains(stdout, id) {
			t.Errorf("%v in the project: exit %d\n%s%s", args, code, stdout, stderr)
		}
	}
	t.Chdir(t.TempDir())
	if code, _, stderr := runIn("check", "notes"); code != 2 || !strings.Contains(stderr, `no session "notes"`) {
		t.Errorf("check notes elsewhere: exit %d, %s", code, stderr)
	}
}
