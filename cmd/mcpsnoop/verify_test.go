//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/internal/testbin"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// replayServerBins are the test server's two builds
// (replay/testdata/replayserver): as is, and changed (testserver.V2).
func replayServerBins(t *testing.T) (v1, v2 string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	return testbin.Build(t, replayServer), testbin.Build(t, replayServer, replayServerV2)
}

// useShim makes verify run stdio servers through the built mcpsnoop (the
// test binary is not one).
func useShim(t *testing.T) {
	bin := mcpsnoopBinary(t)
	old := shimExecutable
	shimExecutable = func() (string, error) { return bin, nil }
	t.Cleanup(func() { shimExecutable = old })
}

// recordSession records a real SDK client's 2025-11-25 session with the v1
// server through the mcpsnoop shim, into dir/recording.jsonl; dir is the
// recorded working directory too.
func recordSession(t *testing.T, dir string) string {
	t.Helper()
	v1, _ := replayServerBins(t)
	path := filepath.Join(dir, "recording.jsonl")
	cmd := exec.Command(mcpsnoopBinary(t), "--trace-file", path, "--label", "replayserver", "--", v1)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "MCPSNOOP_HOME="+t.TempDir())
	client := mcp.NewClient(&mcp.Implementation{Name: "recorder", Version: "1.0.0"}, nil)
	ctx := withTimeout(t)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{"echo", map[string]any{"text": "hi"}}, {"add", map[string]any{"a": 2, "b": 3}}, {"slow", map[string]any{"text": "x"}},
		{"lookup", map[string]any{"key": "k"}}, {"flaky", map[string]any{"text": "x"}}, {"delete_item", map[string]any{"key": "k"}},
	} {
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.name, Arguments: c.args}); err != nil {
			t.Fatal(err)
		}
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func verifyRun(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(append([]string{"verify"}, args...), strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

// lineOf is the line of the recording holding the tools/call of tool.
func lineOf(t *testing.T, path, tool string) int {
	t.Helper()
	data, _ := os.ReadFile(path)
	for i, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, `"c2s"`) && strings.Contains(l, `"method":"tools/call"`) && strings.Contains(l, `"name":"`+tool+`"`) {
			return i + 1
		}
	}
	t.Fatalf("no call of %s in %s", tool, path)
	return 0
}

// verify against the same build passes, against the changed one fails
// naming each change, with every report agreeing; --update accepts the
// new answers.
func TestVerifyCommand(t *testing.T) {
	t.Log("mcpsnoop verify replaying a recorded session against the test server, as is and changed")
	v1, v2 := replayServerBins(t)
	useShim(t)
	home := t.TempDir()
	t.Setenv("MCPSNOOP_HOME", home)
	dir := t.TempDir()
	rec := recordSession(t, dir)

	// Durations are judged only against the changed build, whose slow tool
	// sleeps a second: no test bounds how fast a loaded machine replays.
	code, stdout, stderr := verifyRun(t, "", "--yes", "--duration-threshold", "1h", rec, "--", v1)
	if code != 0 || !strings.HasSuffix(stdout, "verify passed: 6 same, 1 not replayed\n") {
		t.Fatalf("same build: exit %d\n%s%s", code, stdout, stderr)
	}
	if logs, _ := filepath.Glob(filepath.Join(home, "replays", "replayserver-*.jsonl")); len(logs) != 1 {
		t.Errorf("replay logs: %v", logs)
	}

	jsonPath, junitPath, sarifPath := filepath.Join(dir, "v.json"), filepath.Join(dir, "v.xml"), filepath.Join(dir, "v.sarif")
	code, stdout, stderr = verifyRun(t, "", "--yes", "--fail-on-slower", "--json", jsonPath, "--junit", junitPath, "--sarif", sarifPath, rec, "--", v2)
	if code != 1 {
		t.Fatalf("changed build: exit %d\n%s%s", code, stdout, stderr)
	}
	for _, want := range []string{"  removed: lookup\n", "  added: find\n", "  changed: line ", "tools/call add", "  error now: line ",
		`tools/call flaky {"text":"x"} (ok -> error): the tool answered isError "flaky: broken in v2"`, "  not offered: line ", "tools/call lookup",
		"durations (median per tool):\n  slower: tools/call slow ",
		"verify failed: 1 changed, 1 error now, 1 slower, 1 not offered, 1 tool change\n"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("text report lacks %q:\n%s", want, stdout)
		}
	}

	var doc struct {
		Verdict  string         `json:"verdict"`
		Verified int            `json:"verified"`
		Counts   map[string]int `json:"counts"`
		Calls    []struct {
			Line       int    `json:"line"`
			Name       string `json:"name"`
			Outcome    string `json:"outcome"`
			Regression bool   `json:"regression"`
			Slower     bool   `json:"slower"`
		} `json:"calls"`
	}
	data, _ := os.ReadFile(jsonPath)
	if err := json.Unmarshal(data, &doc); err != nil || doc.Verdict != "regressed" || doc.Verified != 6 || doc.Counts["not_offered"] != 1 || doc.Counts["error_now"] != 1 {
		t.Fatalf("json report (%v):\n%s", err, data)
	}
	outcomes := map[string]string{}
	for _, c := range doc.Calls {
		outcomes[c.Name] = c.Outcome
		if c.Name == "add" && c.Line != lineOf(t, rec, "add") {
			t.Errorf("add at line %d, the recording has it at %d", c.Line, lineOf(t, rec, "add"))
		}
	}
	if outcomes["add"] != "changed" || outcomes["lookup"] != "not_offered" || outcomes["flaky"] != "error_now" || outcomes["delete_item"] != "not_replayed" {
		t.Errorf("outcomes %v", outcomes)
	}

	var suites struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Skipped  int `xml:"skipped,attr"`
		Suites   []struct {
			Cases []struct {
				Name    string    `xml:"name,attr"`
				Failure *struct{} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	data, _ = os.ReadFile(junitPath)
	if err := xml.Unmarshal(data, &suites); err != nil || suites.Tests != 7 || suites.Failures != 5 || suites.Skipped != 1 {
		t.Fatalf("junit (%v): tests %d failures %d skipped %d\n%s", err, suites.Tests, suites.Failures, suites.Skipped, data)
	}
	if !bytes.Contains(data, []byte("error now (ok -&gt; error): the tool answered isError &#34;flaky: broken in v2&#34;")) {
		t.Errorf("the junit report does not quote the new error:\n%s", data)
	}

	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID string `json:"id"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				Level     string `json:"level"`
				Locations []struct {
					Physical struct {
						Artifact struct {
							URI string `json:"uri"`
						} `json:"artifactLocation"`
						Region struct {
							StartLine int `json:"startLine"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
				Fingerprints map[string]string `json:"partialFingerprints"`
			} `json:"results"`
		} `json:"runs"`
	}
	data, _ = os.ReadFile(sarifPath)
	if err := json.Unmarshal(data, &log); err != nil || len(log.Runs) != 1 {
		t.Fatalf("sarif (%v):\n%s", err, data)
	}
	rules := map[string]int{}
	for _, r := range log.Runs[0].Results {
		rules[r.RuleID]++
		if len(r.Locations) != 1 || r.Locations[0].Physical.Artifact.URI != "file://"+rec || r.Fingerprints["mcpsnoop/v1"] == "" {
			t.Errorf("result %+v", r)
		}
		if r.RuleID == "mcpsnoop/verify-changed" && r.Locations[0].Physical.Region.StartLine != lineOf(t, rec, "add") {
			t.Errorf("the changed answer points at line %d", r.Locations[0].Physical.Region.StartLine)
		}
	}
	for rule, n := range map[string]int{"mcpsnoop/verify-changed": 1, "mcpsnoop/verify-error-now": 1, "mcpsnoop/verify-slower": 1,
		"mcpsnoop/verify-not-offered": 1, "mcpsnoop/verify-tools": 1, "mcpsnoop/verify-not-replayed": 1} {
		if rules[rule] != n {
			t.Errorf("%s: %d results, want %d (%v)", rule, rules[rule], n, rules)
		}
	}
	if err := validateUpload(t, data); err != nil {
		t.Errorf("the SARIF report does not validate: %v", err)
	}

	// --update refuses a replay that does not say what the new build
	// answers (every call timed out; the replay's own listing, which gets
	// the default timeout, says lookup is no longer offered): exit 2,
	// nothing on stdout, the recording as it was.
	recorded, _ := os.ReadFile(rec)
	code, stdout, stderr = verifyRun(t, "", "--yes", "--update", "--call-timeout", "1ns", rec, "--", v2)
	if data, _ := os.ReadFile(rec); code != 2 || stdout != "" || !bytes.Equal(data, recorded) ||
		!strings.Contains(stderr, "mcpsnoop verify: --update: 5 replayed call(s) got no usable answer (tools/list at line ") ||
		!strings.Contains(stderr, " timed out; and 2 more), so the replay does not say what the new build answers") ||
		!strings.Contains(stderr, "; "+rec+" is left as it was (the replay is in ") {
		t.Fatalf("--update after timeouts: exit %d\n%s%s", code, stdout, stderr)
	}

	// --update takes the new build's answers and keeps the rest: verifying
	// against it then passes, the call it no longer offers is gone, the
	// one not replayed is still there.
	lookupLine := lineOf(t, rec, "lookup")
	code, _, stderr = verifyRun(t, "", "--yes", "--update", rec, "--", v2)
	if code != 0 || !strings.Contains(stderr, "mcpsnoop verify: updated "+rec+": 6 answer(s) are now the new build's; 1 call(s) not replayed are kept as recorded; "+
		`1 call(s) to tools the new build no longer offers were taken out: tools/call "lookup" at line `+strconv.Itoa(lookupLine)+"\n") {
		t.Fatalf("--update: exit %d\n%s", code, stderr)
	}
	code, stdout, stderr = verifyRun(t, "", "--yes", "--duration-threshold", "1h", rec, "--", v2)
	if code != 0 || strings.Contains(stdout, "lookup") || !strings.HasSuffix(stdout, "verify passed: 5 same, 1 not replayed\n") {
		t.Fatalf("after --update: exit %d\n%s%s", code, stdout, stderr)
	}
}

// Exit 2 means nothing was verified: nothing on stdout, one line on
// stderr saying why, and no replay sent where none was asked for.
func TestVerifyNothingVerified(t *testing.T) {
	v1, _ := replayServerBins(t)
	useShim(t)
	home := t.TempDir()
	t.Setenv("MCPSNOOP_HOME", home)
	dir := t.TempDir()
	rec := recordSession(t, dir)
	httpLog := filepath.Join(dir, "http.jsonl")
	if err := os.WriteFile(httpLog, []byte(`{"session_id":"h","server_label":"h","seq":1,"ts":"2026-01-01T00:00:00Z","direction":"c2s","transport":"http","raw":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	evil := filepath.Join(dir, "evil.jsonl")
	if err := os.WriteFile(evil, []byte(`{"session_id":"e","server_label":"e","seq":1,"ts":"2026-01-01T00:00:00Z","direction":"meta","transport":"stdio","raw":{"command":["/nonexistent/\u001b[31mevil"]}}`+"\n"+
		`{"session_id":"e","server_label":"e","seq":2,"ts":"2026-01-01T00:00:00Z","direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	redactedInit := filepath.Join(dir, "redacted-init.jsonl")
	if err := os.WriteFile(redactedInit, []byte(`{"session_id":"r","server_label":"r","seq":1,"ts":"2026-01-01T00:00:00Z","direction":"meta","transport":"stdio","raw":{"command":["`+v1+`"]}}`+"\n"+
		`{"session_id":"r","server_label":"r","seq":2,"ts":"2026-01-01T00:00:00Z","direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"[REDACTED]","version":"1"}}},"redacted":true}`+"\n"+
		`{"session_id":"r","server_label":"r","seq":3,"ts":"2026-01-01T00:00:00Z","direction":"c2s","transport":"stdio","raw":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"a redacted initialize", "", []string{"--yes", redactedInit}, "nothing to replay: the recorded initialize (line 2) was redacted at capture"},
		{"a hostile recorded command is escaped", "", []string{evil}, `'/nonexistent/\x1b[31mevil'; there is no terminal to ask first`},
		{"no --yes and no terminal", "", []string{rec, "--", v1}, "there is no terminal to ask first, so pass --yes"},
		{"no recording", "", []string{"--yes"}, "want one recording"},
		{"two recordings", "", []string{"--yes", rec, rec}, "want one recording"},
		{"missing file", "", []string{"--yes", filepath.Join(dir, "nope.jsonl"), "--", v1}, "not found"},
		{"stdin", "", []string{"--yes", "-", "--", v1}, "not standard input"},
		{"a directory", "", []string{"--yes", dir, "--", v1}, "is a directory"},
		{"nothing after --", "", []string{"--yes", rec, "--"}, "nothing after --"},
		{"both targets", "", []string{"--yes", "--replay-target", "http://127.0.0.1:1/mcp", rec, "--", v1}, "not both"},
		{"bad target", "", []string{"--yes", "--replay-target", "ftp://x/", rec}, "the scheme must be http or https"},
		{"header without target", "", []string{"--yes", "--replay-header", "Authorization: Bearer x", rec, "--", v1}, "goes with --replay-target"},
		{"reserved header", "", []string{"--yes", "--replay-target", "http://127.0.0.1:1/mcp", "--replay-header", "Mcp-Method: x", rec}, "sets this header itself"},
		{"param header", "", []string{"--yes", "--replay-target", "http://127.0.0.1:1/mcp", "--replay-header", "Mcp-Param-Region: x", rec}, "re-sent from the capture"},
		{"bad header", "", []string{"--yes", "--replay-target", "http://127.0.0.1:1/mcp", "--replay-header", "novalue", rec}, "want 'Name: value'"},
		{"bad ignore", "", []string{"--yes", "--ignore", "$[", rec, "--", v1}, `--ignore "$[" is not a JSONPath`},
		{"bad format", "", []string{"--yes", "--format", "xml", rec, "--", v1}, "--format must be"},
		{"bad ratio", "", []string{"--yes", "--duration-ratio", "0.5", rec, "--", v1}, "--duration-ratio"},
		{"bad timeout", "", []string{"--yes", "--call-timeout", "0s", rec, "--", v1}, "--call-timeout must be positive"},
		{"report onto the recording", "", []string{"--yes", "--json", rec, rec, "--", v1}, "would overwrite the recording"},
		{"unknown session", "", []string{"--yes", "--session", "nope", rec, "--", v1}, `no session "nope"`},
		{"HTTP recording without a target", "", []string{"--yes", httpLog}, "never against the recorded endpoint"},
		{"nothing replayable", "", []string{"--yes", "../../fixtures/mrtr.jsonl", "--", v1}, "nothing to replay: no recorded call may be sent"},
		{"server not found", "", []string{"--yes", rec, "--", filepath.Join(dir, "no-such-server")}, "nothing was verified: initialize failed: the server closed its stdout"},
		{"not confirmed", "n\n", []string{rec, "--", v1}, "not confirmed; nothing was replayed"},
	}
	terminal := stdinIsTerminal
	t.Cleanup(func() { stdinIsTerminal = terminal })
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdinIsTerminal = func(io.Reader) bool { return tt.stdin != "" }
			code, stdout, stderr := verifyRun(t, tt.stdin, tt.args...)
			if code != 2 || stdout != "" || !strings.Contains(stderr, tt.want) || !strings.Contains(stderr, "mcpsnoop verify: ") || strings.Contains(stderr, "\x1b") {
				t.Errorf("exit %d\nstdout: %s\nstderr: %s\nwant %q", code, stdout, stderr, tt.want)
			}
		})
	}
	if logs, _ := filepath.Glob(filepath.Join(home, "replays", "*.jsonl")); len(logs) != 1 {
		t.Errorf("replay logs: %v (only the server that could not start got one)", logs)
	}
}

// On a terminal verify asks before the first send; yes goes ahead.
func TestVerifyAsksOnATerminal(t *testing.T) {
	v1, _ := replayServerBins(t)
	useShim(t)
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	rec := recordSession(t, t.TempDir())
	terminal := stdinIsTerminal
	stdinIsTerminal = func(io.Reader) bool { return true }
	t.Cleanup(func() { stdinIsTerminal = terminal })
	code, stdout, stderr := verifyRun(t, "y\n", "--duration-threshold", "1h", rec, "--", v1)
	if code != 0 || !strings.Contains(stderr, "replay 6 recorded call(s) of replayserver-") || !strings.Contains(stderr, " against "+v1+"? [y/N] ") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	// --all says so, and replays the destructive tool too.
	code, stdout, stderr = verifyRun(t, "", "--yes", "--all", "--duration-threshold", "1h", rec, "--", v1)
	if code != 0 || !strings.Contains(stderr, "--all: replaying every recorded call") || !strings.Contains(stdout, "verify passed: 7 same\n") {
		t.Fatalf("--all: exit %d\n%s%s", code, stdout, stderr)
	}
}

// A relative replay log (--replay-log, or a relative MCPSNOOP_HOME for the
// default one) is relative to where verify runs, although the recorded
// command runs in its recorded directory: the log lands where verify says,
// the recording is never appended to, and a log that is the recording is
// refused before anything is sent.
func TestVerifyRelativeReplayLog(t *testing.T) {
	useShim(t)
	base := t.TempDir()
	recDir, here := filepath.Join(base, "u"), filepath.Join(base, "w")
	for _, d := range []string{recDir, here} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	rec := recordSession(t, recDir) // recorded in recDir: the replay runs there
	recorded, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	t.Chdir(here)
	relRec := filepath.Join("..", "u", "recording.jsonl")
	passes := func(args ...string) string {
		t.Helper()
		code, stdout, stderr := verifyRun(t, "", append([]string{"--yes", "--duration-threshold", "1h"}, args...)...)
		if code != 0 || !strings.HasSuffix(stdout, "verify passed: 6 same, 1 not replayed\n") {
			t.Fatalf("verify %v: exit %d\n%s%s", args, code, stdout, stderr)
		}
		return stdout
	}
	sessions := func(path string) int {
		data, _ := os.ReadFile(path)
		return strings.Count(string(data), `"direction":"meta"`)
	}

	out := passes("--replay-log", "r.jsonl", relRec)
	if sessions(filepath.Join(here, "r.jsonl")) != 1 || !strings.Contains(out, "replay log: "+filepath.Join(here, "r.jsonl")) {
		t.Errorf("the replay is not in ./r.jsonl:\n%s", out)
	}
	// A replay log (and reports) in folders not there yet: made, as for
	// the shim's --trace-file.
	out = passes("--replay-log", "replays/new/r.jsonl", "--json", "reports/v.json", relRec)
	if sessions(filepath.Join(here, "replays", "new", "r.jsonl")) != 1 {
		t.Errorf("the replay is not in ./replays/new/r.jsonl:\n%s", out)
	}
	if info, err := os.Stat(filepath.Join(here, "reports", "v.json")); err != nil || info.Size() == 0 {
		t.Errorf("reports/v.json: %v", err)
	}
	if _, err := os.Stat(filepath.Join(recDir, "r.jsonl")); err == nil {
		t.Error("the replay went to r.jsonl in the recorded directory")
	}

	// A log named like the recording, but here: the recording is an input.
	passes("--replay-log", "recording.jsonl", relRec)
	if data, _ := os.ReadFile(rec); !bytes.Equal(data, recorded) {
		t.Errorf("the recording was written to:\n%s", data)
	}
	if sessions(filepath.Join(here, "recording.jsonl")) != 1 {
		t.Error("the replay is not in ./recording.jsonl")
	}

	t.Setenv("MCPSNOOP_HOME", "state")
	passes(relRec)
	if logs, _ := filepath.Glob(filepath.Join(here, "state", "replays", "*.jsonl")); len(logs) != 1 || sessions(logs[0]) != 1 {
		t.Errorf("default replay logs under ./state: %v", logs)
	}
	if _, err := os.Stat(filepath.Join(recDir, "state")); err == nil {
		t.Error("the default replay log went under the recorded directory")
	}

	// The recording as the replay log, named or by default: refused.
	var first struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal(recorded[:bytes.IndexByte(recorded, '\n')], &first); err != nil || first.SessionID == "" {
		t.Fatalf("first frame (%v): %s", err, recorded)
	}
	sid := first.SessionID
	if err := os.MkdirAll(filepath.Join(here, "st2", "replays"), 0o700); err != nil {
		t.Fatal(err)
	}
	own := filepath.Join("st2", "replays", sid+".jsonl")
	if err := os.WriteFile(own, recorded, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		home string
		args []string
		want string
	}{
		{"state", []string{"--replay-log", relRec, rec}, "--replay-log " + relRec + " would write into the recording"},
		{"st2", []string{own}, "the default replay log " + filepath.Join(here, own) + " is the recording itself"},
	} {
		t.Setenv("MCPSNOOP_HOME", tt.home)
		code, stdout, stderr := verifyRun(t, "", append([]string{"--yes"}, tt.args...)...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d\n%s%s", tt.args, code, stdout, stderr)
		}
	}
	if data, _ := os.ReadFile(rec); !bytes.Equal(data, recorded) {
		t.Error("a refused verify wrote to the recording")
	}
	if data, _ := os.ReadFile(own); !bytes.Equal(data, recorded) {
		t.Error("a refused verify wrote to the recording in st2")
	}
}

// A build that only got slower (its echo now sleeps two seconds, a delay
// of the server's own; the recording's echo took milliseconds) passes by
// default, the slower tool reported; --fail-on-slower fails on it. Nothing
// gates on slower by default, so no machine speed can fail the first run.
func TestVerifySlowerOnlyWithFlag(t *testing.T) {
	v1, _ := replayServerBins(t)
	useShim(t)
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	rec := recordSession(t, t.TempDir())
	t.Setenv("REPLAYSERVER_DELAY", "echo=2s")
	jsonPath := filepath.Join(t.TempDir(), "v.json")
	code, stdout, stderr := verifyRun(t, "", "--yes", "--json", jsonPath, rec, "--", v1)
	if code != 0 || !strings.Contains(stdout, "\n  slower: tools/call echo ") ||
		!strings.HasSuffix(stdout, "verify passed: 6 same, 1 not replayed; not gated: 1 slower\n") {
		t.Fatalf("by default: exit %d\n%s%s", code, stdout, stderr)
	}
	var doc struct {
		Verdict      string         `json:"verdict"`
		FailOnSlower bool           `json:"fail_on_slower"`
		Counts       map[string]int `json:"counts"`
		Durations    []struct {
			Name       string  `json:"name"`
			Calls      int     `json:"calls"`
			AfterMS    float64 `json:"after_ms"`
			Slower     bool    `json:"slower"`
			Regression bool    `json:"regression"`
		} `json:"durations"`
	}
	data, _ := os.ReadFile(jsonPath)
	if err := json.Unmarshal(data, &doc); err != nil || doc.Verdict != "passed" || doc.FailOnSlower || doc.Counts["slower"] != 1 ||
		len(doc.Durations) != 1 || doc.Durations[0].Name != "echo" || !doc.Durations[0].Slower || doc.Durations[0].Regression ||
		doc.Durations[0].Calls != 1 || doc.Durations[0].AfterMS < 2000 {
		t.Fatalf("json report (%v):\n%s", err, data)
	}
	code, stdout, stderr = verifyRun(t, "", "--yes", "--fail-on-slower", rec, "--", v1)
	if code != 1 || !strings.HasSuffix(stdout, "verify failed: 1 slower\n") {
		t.Fatalf("--fail-on-slower: exit %d\n%s%s", code, stdout, stderr)
	}
}

// A long result changed at its 500th character (the server's own doing)
// shows the change in every report: 40 characters either side of it,
// with … at each cut.
func TestVerifyShowsTheDifference(t *testing.T) {
	v1, _ := replayServerBins(t)
	useShim(t)
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	dir := t.TempDir()
	long := strings.Repeat("0123456789", 60)
	rec := filepath.Join(dir, "recording.jsonl")
	cmd := exec.Command(mcpsnoopBinary(t), "--trace-file", rec, "--label", "replayserver", "--", v1)
	client := mcp.NewClient(&mcp.Implementation{Name: "recorder", Version: "1.0.0"}, nil)
	ctx := withTimeout(t)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": long}}); err != nil {
		t.Fatal(err)
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}

	t.Setenv("REPLAYSERVER_CHANGE_AT", "500")
	jsonPath, junitPath := filepath.Join(dir, "v.json"), filepath.Join(dir, "v.xml")
	code, stdout, stderr := verifyRun(t, "", "--yes", "--duration-threshold", "1h", "--json", jsonPath, "--junit", junitPath, rec, "--", v1)
	if code != 1 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	// The JSON string's opening quote comes first: the text's 500th
	// character is the value's 501st.
	before, after := "…"+long[459:540]+"…", "…"+long[459:499]+"#"+long[500:540]+"…"
	want := "$.result.content[0].text: " + before + " -> " + after
	if !strings.Contains(stdout, "\n      "+want+"\n") {
		t.Errorf("the text report does not show the change (%s):\n%s", want, stdout)
	}
	var doc struct {
		Calls []struct {
			Changes []struct{ Path, Before, After string } `json:"changes"`
		} `json:"calls"`
	}
	data, _ := os.ReadFile(jsonPath)
	found := false
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	for _, c := range doc.Calls {
		for _, ch := range c.Changes {
			found = found || ch.Before == before && ch.After == after
		}
	}
	if !found {
		t.Errorf("the JSON report does not show the change:\n%s", data)
	}
	var suites struct {
		Suites []struct {
			Cases []struct {
				Failure *struct {
					Text string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	data, _ = os.ReadFile(junitPath)
	if err := xml.Unmarshal(data, &suites); err != nil {
		t.Fatal(err)
	}
	found = false
	for _, s := range suites.Suites {
		for _, c := range s.Cases {
			found = found || c.Failure != nil && strings.Contains(c.Failure.Text, "\n"+want)
		}
	}
	if !found {
		t.Errorf("the JUnit report does not show the change:\n%s", data)
	}
}
