//go:build unix

package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Where the log goes, and how big it may grow.
var shimLogDirTests = []struct {
	name string
	fn   func(*testing.T, shimBins)
}{
	{"log-dir-without-environment", testShimLogDirWithoutEnvironment},
	{"trace-file-makes-its-folder", testShimTraceFileMakesItsFolder},
	{"log-dir-from-config", testShimLogDirFromConfig},
	{"log-dir-unusable", testShimLogDirUnusable},
	{"log-destination-conflict", testShimLogDestinationConflict},
	{"trace-file-is-stdout", testShimTraceFileIsStdout},
	{"max-log-size", testShimMaxLogSize},
}

// onlyLog is the one log in dir.
func onlyLog(t *testing.T, dir string) string {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(logs) != 1 {
		t.Fatalf("logs in %s: %v", dir, logs)
	}
	return logs[0]
}

// A go-sdk client that starts its server with no environment at all (as
// some SDKs do: MCPSNOOP_HOME never arrives) and in a working directory of
// its own: the shim's --log-dir, relative to that directory and missing,
// is created and gets the log.
func testShimLogDirWithoutEnvironment(t *testing.T, bins shimBins) {
	work := t.TempDir()
	cmd := exec.Command(bins.shim, "--log-dir", "artifacts/mcp", "--", bins.server)
	cmd.Env = []string{}
	cmd.Dir = work
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1.0.0"}, nil)
	ctx := withTimeout(t)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
	if err != nil || res.IsError {
		t.Fatalf("echo: %v %+v", err, res)
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	log := onlyLog(t, filepath.Join(work, "artifacts", "mcp"))
	if !strings.HasPrefix(filepath.Base(log), "sdkserver-") {
		t.Errorf("log %s", log)
	}
	frames := readFrames(t, log)
	if c2s := strings.Join(rawOf(frames, capture.ClientToServer), "\n"); !strings.Contains(c2s, `"method":"tools/call"`) {
		t.Errorf("the call is not in the log:\n%s", c2s)
	}
	if code, out := checkLog(t, log); code != 0 {
		t.Errorf("check: exit %d\n%s", code, out)
	}
}

// The regression-test recipe's first step (docs/guides/replay-and-verify.md):
// a go-sdk client starts its server as mcpsnoop --trace-file
// recordings/session.jsonl, in a project where recordings/ is not there
// yet. The folder is made (0755 under the umask, as mkdir -p) and the
// session recorded, with nothing but the "logging" line on stderr.
func testShimTraceFileMakesItsFolder(t *testing.T, bins shimBins) {
	work := t.TempDir()
	cmd := exec.Command(bins.shim, "--trace-file", "recordings/session.jsonl", "--", bins.server)
	cmd.Env = []string{}
	cmd.Dir = work
	var stderr lockedBuffer
	cmd.Stderr = &stderr
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
	log := filepath.Join(work, "recordings", "session.jsonl")
	frames := readFrames(t, log)
	if c2s := strings.Join(rawOf(frames, capture.ClientToServer), "\n"); !strings.Contains(c2s, `"method":"tools/call"`) {
		t.Errorf("the call is not in the log:\n%s", c2s)
	}
	if info, err := os.Stat(filepath.Dir(log)); err != nil || info.Mode().Perm() != 0o755&^currentUmask() {
		t.Errorf("recordings/ is %v (%v)", info.Mode(), err)
	}
	if s := stderr.String(); strings.Contains(s, "warning") {
		t.Errorf("stderr:\n%s", s)
	}
	if code, out := checkLog(t, log); code != 0 {
		t.Errorf("check: exit %d\n%s", code, out)
	}
}

// log-dir in .mcpsnoop.toml; a --trace-file on the command line replaces
// it (one setting, two forms).
func testShimLogDirFromConfig(t *testing.T, bins shimBins) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".mcpsnoop.toml"), []byte("log-dir = \"logs\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startShim(t, bins, dir, t.TempDir(), "--", bins.server, "-mode", "cat")
	echoRoundTrip(t, p, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
	p.stdin.Close()
	if code := p.wait(); code != 0 {
		t.Fatalf("exit %d\n%s", code, p.stderr.String())
	}
	readFrames(t, onlyLog(t, filepath.Join(dir, "logs")))

	p = startShim(t, bins, dir, t.TempDir(), "--trace-file", "trace.jsonl", "--", bins.server, "-mode", "cat")
	echoRoundTrip(t, p, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
	p.stdin.Close()
	if code := p.wait(); code != 0 {
		t.Fatalf("exit %d\n%s", code, p.stderr.String())
	}
	readFrames(t, filepath.Join(dir, "trace.jsonl"))
	onlyLog(t, filepath.Join(dir, "logs")) // still the first run's only
}

// A --log-dir that cannot be created costs the log, not the session.
func testShimLogDirUnusable(t *testing.T, bins shimBins) {
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	p := startShim(t, bins, "", t.TempDir(), "--log-dir", filepath.Join(blocker, "logs"), "--", bins.server, "-mode", "cat")
	echoRoundTrip(t, p, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
	p.stdin.Close()
	if code := p.wait(); code != 0 {
		t.Fatalf("exit %d\n%s", code, p.stderr.String())
	}
	if s := p.stderr.String(); !strings.Contains(s, "warning: cannot write the log "+filepath.Join(blocker, "logs")) || !strings.Contains(s, "forwarding without a log") {
		t.Errorf("stderr:\n%s", s)
	}
}

func testShimLogDestinationConflict(t *testing.T, bins shimBins) {
	p := startShim(t, bins, "", t.TempDir(), "--trace-file", "a.jsonl", "--log-dir", "logs", "--", bins.server, "-mode", "cat")
	p.stdin.Close()
	if code := p.wait(); code != 2 || !strings.Contains(p.stderr.String(), "--trace-file and --log-dir both say where the log goes; give one") {
		t.Errorf("exit %d\n%s", code, p.stderr.String())
	}
}

// A trace file that is the shim's own stdout would mix the log into the
// protocol stream: refused, whether named /dev/stdout or as the file
// stdout is redirected to.
func testShimTraceFileIsStdout(t *testing.T, bins shimBins) {
	names := []string{"/dev/fd/1", "/proc/self/fd/1"}
	if target, err := os.Readlink("/dev/stdout"); err == nil && strings.HasSuffix(target, "fd/1") {
		names = append(names, "/dev/stdout") // unless something replaced the link
	}
	for _, name := range names {
		p := startShim(t, bins, "", t.TempDir(), "--trace-file", name, "--", bins.server, "-mode", "cat")
		p.stdin.Close()
		if code := p.wait(); code != 2 || !strings.Contains(p.stderr.String(), "--trace-file "+name+" is the shim's own stdout") {
			t.Errorf("%s: exit %d\n%s", name, code, p.stderr.String())
		}
	}

	dir := t.TempDir()
	outFile := filepath.Join(dir, "out.jsonl")
	f, err := os.Create(outFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(bins.shim, "--trace-file", outFile, "--", bins.server, "-mode", "cat")
	var stderr lockedBuffer
	cmd.Stdout, cmd.Stderr = f, &stderr
	if err := cmd.Run(); err == nil || cmd.ProcessState.ExitCode() != 2 || !strings.Contains(stderr.String(), "is the shim's own stdout") {
		t.Errorf("redirected: %v\n%s", err, stderr.String())
	}
}

// Past --max-log-size frames are dropped and counted, traffic untouched;
// check counts exactly the frames the shim says it dropped.
func testShimMaxLogSize(t *testing.T, bins shimBins) {
	dir := t.TempDir()
	p := startShim(t, bins, dir, t.TempDir(), "--max-log-size", "2KiB", "--log-dir", "logs", "--", bins.server, "-mode", "cat")
	for i := range 40 {
		echoRoundTrip(t, p, `{"jsonrpc":"2.0","method":"notifications/message","params":{"n":`+strings.Repeat("1", i+1)+`}}`+"\n")
	}
	p.stdin.Close()
	if code := p.wait(); code != 0 {
		t.Fatalf("exit %d\n%s", code, p.stderr.String())
	}
	log := onlyLog(t, filepath.Join(dir, "logs"))
	info, _ := os.Stat(log)
	closing := readFramesLoose(t, log)
	last := closing[len(closing)-1]
	if last.Direction != capture.Meta || last.Dropped == 0 || info.Size() > 2048+512 {
		t.Fatalf("log of %d bytes ends with %+v", info.Size(), last)
	}
	if s := p.stderr.String(); !strings.Contains(s, "--max-log-size") || !strings.Contains(s, "frame(s) were dropped from the log") {
		t.Errorf("stderr:\n%s", s)
	}
	_, out := checkLog(t, log)
	if !strings.Contains(out, "missing_frames="+strconv.FormatUint(last.Dropped, 10)+" ") {
		t.Errorf("check does not count the %d frames the shim dropped:\n%s", last.Dropped, out)
	}
}

// readFramesLoose loads a log that may have gaps in seq.
func readFramesLoose(t *testing.T, path string) []capture.Frame {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := capture.NewReader(f, path)
	var frames []capture.Frame
	for {
		fr, _, err := r.Next()
		if err == io.EOF {
			return frames
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		frames = append(frames, fr.Clone())
	}
}
