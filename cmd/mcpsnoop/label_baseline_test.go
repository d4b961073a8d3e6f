//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/baseline"
	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Labels that name the server, end to end: the real shim in front of the
// SDK test server started as `<server> ... weather/dist/index.js` in a
// project whose package.json is @acme/weather-server; the baseline that
// server had under the label the old rule gave that command; a server
// calling itself something else; and known findings on a fresh state
// directory.
func TestServerLabelsAndBaselines(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	bins := buildShimBinaries(t)
	t.Run("upgrade-from-old-label", func(t *testing.T) { testUpgradeFromOldLabel(t, bins) })
	t.Run("write-known-then-known", func(t *testing.T) { testWriteKnownThenKnown(t, bins) })
}

// project is a folder holding a repository whose weather/ package is
// named @acme/weather-server, with its built entry point.
func project(t *testing.T) string {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, ".git", "HEAD"), []byte("ref: refs/heads/main\n"))
	writeFile(t, filepath.Join(dir, "weather", "package.json"), []byte(`{"name": "@acme/weather-server", "version": "1.2.0"}`))
	writeFile(t, filepath.Join(dir, "weather", "dist", "index.js"), []byte("// built\n"))
	return dir
}

// recordThroughShim runs one session of the SDK client through the shim, started in
// dir with args, listing the tools and calling each of calls; it returns
// the session's log.
func recordThroughShim(t *testing.T, bins shimBins, home, dir string, args []string, calls ...string) string {
	t.Helper()
	before, _ := filepath.Glob(filepath.Join(home, "sessions", "*.jsonl"))
	cmd := exec.Command(bins.shim, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "MCPSNOOP_HOME="+home)
	ctx := withTimeout(t)
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1.0.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for _, name := range calls {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{"text": "x"}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	after, _ := filepath.Glob(filepath.Join(home, "sessions", "*.jsonl"))
	for _, p := range after {
		if !strings.Contains(strings.Join(before, "\n"), p) {
			return p
		}
	}
	t.Fatalf("no new session log in %s", home)
	return ""
}

func testUpgradeFromOldLabel(t *testing.T, bins shimBins) {
	home := t.TempDir()
	t.Setenv("MCPSNOOP_HOME", home)
	dir := project(t)
	args := []string{"--", bins.server, "-mode", "sdk", "weather/dist/index.js"}
	oldLabel := capture.LegacyLabel(args[1:])
	if oldLabel != "sdkserver" {
		t.Fatalf("the old rule labels %q %q; this test needs updating", args[1:], oldLabel)
	}

	// What an earlier mcpsnoop left: the server's baseline under the old
	// label, keyed by the label alone. It is made from a real session's
	// listing, then laid out as those versions wrote it (no server_name).
	first := recordThroughShim(t, bins, home, dir, append([]string{"--label", oldLabel}, args...))
	if code, out, errOut := checkRun(t, "", first); code != 0 {
		t.Fatalf("recording: exit %d\n%s%s", code, out, errOut)
	}
	store := baseline.Store{}
	recorded, err := os.ReadFile(store.PathFor(oldLabel, "sdkserver"))
	if err != nil {
		t.Fatalf("no baseline recorded for the first session: %v", err)
	}
	var doc map[string]any
	if err := json.Unmarshal(recorded, &doc); err != nil || doc["server_name"] != "sdkserver" {
		t.Fatalf("recorded %s (%v)", recorded, err)
	}
	delete(doc, "server_name")
	legacy, _ := json.MarshalIndent(doc, "", "  ")
	writeFile(t, store.Path(oldLabel), append(legacy, '\n'))
	os.Remove(store.PathFor(oldLabel, "sdkserver"))
	os.Remove(first)

	// The upgraded shim names the server after its package.
	log := recordThroughShim(t, bins, home, dir, args)
	frames := readFrames(t, log)
	if frames[0].ServerLabel != "weather-server" || !strings.HasPrefix(filepath.Base(log), "weather-server-") {
		t.Fatalf("label %q, log %s", frames[0].ServerLabel, log)
	}

	// The first check after the upgrade, gating drift: the baseline is
	// found under the old label and moved; nothing is recorded afresh, so
	// nothing fails.
	code, out, errOut := checkRun(t, "", "--fail-on", "drift", log)
	if code != 0 || strings.Contains(out, "first-seen") || !strings.HasSuffix(out, "check passed\n") {
		t.Fatalf("first check after the upgrade: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(store.Path(oldLabel)); !os.IsNotExist(err) {
		t.Errorf("the old label's baseline is still there (%v)", err)
	}
	moved, err := os.ReadFile(store.PathFor("weather-server", "sdkserver"))
	if err != nil || !bytes.Contains(moved, []byte(`"server": "weather-server",`)) || !bytes.Contains(moved, []byte(`"server_name": "sdkserver",`)) {
		t.Fatalf("moved baseline (%v):\n%s", err, moved)
	}

	// It is the baseline drift is judged against from now on.
	writeFile(t, store.PathFor("weather-server", "sdkserver"), bytes.Replace(moved, []byte(`"Echo the text"`), []byte(`"Echo the text, politely"`), 1))
	code, out, _ = checkRun(t, "", "--fail-on", "drift", log)
	if code != 1 || !strings.Contains(out, "description changed: echo") {
		t.Errorf("a changed description after the move: exit %d\n%s", code, out)
	}
	writeFile(t, store.PathFor("weather-server", "sdkserver"), moved)

	// The same server calling itself something else is drift, and gets
	// no baseline of its own for it.
	data, _ := os.ReadFile(log)
	renamed := bytes.ReplaceAll(data, []byte(`serverInfo":{"name":"sdkserver"`), []byte(`serverInfo":{"name":"weather-impostor"`))
	if bytes.Equal(renamed, data) {
		t.Fatalf("the log's serverInfo was not found:\n%s", data)
	}
	impostor := filepath.Join(home, "sessions", "impostor.jsonl")
	writeFile(t, impostor, renamed)
	code, out, _ = checkRun(t, "", "--fail-on", "drift", impostor)
	if code != 1 || !strings.Contains(out, `drift [server]: server name changed: the tool baseline of label "weather-server" was recorded for server "sdkserver", and this session's server gave "weather-impostor"`) {
		t.Errorf("a renamed server: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(store.PathFor("weather-server", "weather-impostor")); !os.IsNotExist(err) {
		t.Errorf("the renamed server got a baseline (%v)", err)
	}
	// baseline says the same, and --accept makes it a server of its own.
	var stdout, stderr bytes.Buffer
	if code := run([]string{"baseline", impostor}, strings.NewReader(""), &stdout, &stderr); code != 1 || !strings.Contains(stdout.String(), "server name changed") {
		t.Errorf("baseline of the renamed server: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	stdout.Reset()
	if code := run([]string{"baseline", "--accept", impostor}, strings.NewReader(""), &stdout, &stderr); code != 0 || stdout.String() != "accepted baseline for weather-server (server \"weather-impostor\")\n" {
		t.Errorf("baseline --accept: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	for _, l := range []string{impostor, log} {
		if code, out, _ := checkRun(t, "", "--fail-on", "drift", l); code != 0 {
			t.Errorf("%s after --accept: exit %d\n%s", filepath.Base(l), code, out)
		}
	}
}

// check --write-known K then check --known K on a fresh state directory:
// the first run records the baselines, the second finds them, and it
// passes (the note of the first run is not in K to go stale).
func testWriteKnownThenKnown(t *testing.T, bins shimBins) {
	home := t.TempDir()
	t.Setenv("MCPSNOOP_HOME", home)
	dir := project(t)
	log := recordThroughShim(t, bins, home, dir, []string{"--", bins.server, "-mode", "sdk", "weather/dist/index.js"}, "echo", "fail")
	known := filepath.Join(t.TempDir(), "known.txt")

	code, out, errOut := checkRun(t, "", "--write-known", known, filepath.Dir(log))
	if code != 0 || !strings.Contains(out, "recorded first-seen tool baseline") || !strings.Contains(out, "check failed: error") {
		t.Fatalf("--write-known: exit %d (want 0: it wrote the file)\n%s%s", code, out, errOut)
	}
	file, _ := os.ReadFile(known)
	if strings.Contains(string(file), "first-seen") || !strings.Contains(string(file), `"weather-server" # mcpsnoop/error tools/call fail`) {
		t.Fatalf("known file:\n%s", file)
	}
	code, out, errOut = checkRun(t, "", "--known", known, filepath.Dir(log))
	if code != 0 || strings.Contains(out, "recorded first-seen") || !strings.HasSuffix(out, "check passed\n") {
		t.Fatalf("--known after --write-known: exit %d\n%s%s", code, out, errOut)
	}
	// --write-known that could not check still exits 2.
	code, _, _ = checkRun(t, "", "--write-known", known, filepath.Join(dir, "missing.jsonl"))
	if code != 2 {
		t.Errorf("--write-known of a missing log: exit %d, want 2", code)
	}
}
