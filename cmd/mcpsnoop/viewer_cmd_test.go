package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpsnoop/mcpsnoop/capture"
	"github.com/mcpsnoop/mcpsnoop/checker"
)

// TestOpenNotATerminal: without a terminal open prints the stream as text
// (the viewer's golden files), --filter selects lines, and stdin works.
func TestOpenNotATerminal(t *testing.T) {
	for _, tc := range []struct {
		args          []string
		golden, stdin string
	}{
		{args: []string{"open", "../../fixtures/store-example.jsonl"}, golden: "store-example"},
		{args: []string{"open", "../../fixtures/mrtr.jsonl"}, golden: "mrtr"},
		{args: []string{"open", "--filter", "tool:web_search kind:resp", "../../fixtures/devtools-60calls.jsonl"}, golden: "devtools-web-search"},
		{args: []string{"open", "-"}, golden: "elicit", stdin: "../../fixtures/elicit.jsonl"},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			stdin := ""
			if tc.stdin != "" {
				b, err := os.ReadFile(tc.stdin)
				if err != nil {
					t.Fatal(err)
				}
				stdin = string(b)
			}
			var stdout, stderr bytes.Buffer
			if code := run(tc.args, strings.NewReader(stdin), &stdout, &stderr); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			want, err := os.ReadFile(filepath.Join("../../viewer/testdata", tc.golden+".stream"))
			if err != nil {
				t.Fatal(err)
			}
			got := strings.ReplaceAll(stdout.String(), "stdin", tc.golden+".jsonl")
			if got != string(want) || stderr.Len() != 0 {
				t.Errorf("stdout differs from viewer/testdata/%s.stream:\n%s\nstderr: %s", tc.golden, got, stderr.String())
			}
		})
	}
}

// TestOpenBadInput: exit 2, one line on stderr, nothing on stdout.
func TestOpenBadInput(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	notLog := filepath.Join(t.TempDir(), "x.jsonl")
	os.WriteFile(notLog, []byte("not a log\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"open", "missing.jsonl"}, `mcpsnoop open: session log "missing.jsonl" not found`},
		{[]string{"open"}, "mcpsnoop open: no session logs to read: none were named, and there are none in "},
		{[]string{"open", notLog}, "mcpsnoop open: " + notLog + ": line 1"},
		{[]string{"open", "--filter", "dir:up", "../../fixtures/mrtr.jsonl"}, "mcpsnoop open: --filter: dir:up: dir is c2s, s2c, stderr or meta"},
		{[]string{"open", "--run", "nope", "../../fixtures/mrtr.jsonl"}, `mcpsnoop open: run "nope" not found`},
		{[]string{"open", "--run", "latest", "-"}, "mcpsnoop open: --run reads the logs twice"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, strings.NewReader(""), &stdout, &stderr)
		if code != 2 || stdout.Len() != 0 || !strings.HasPrefix(stderr.String(), tc.want) || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, stdout.String(), stderr.String(), tc.want)
		}
	}
}

// TestOpenRun opens the sessions of one run: all three logs of the traced
// fixture run.
func TestOpenRun(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"open", "--run", "latest", "../../fixtures/run-traced"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if n := strings.Count(stdout.String(), "\nsession ") + 1; n != 3 || !strings.HasPrefix(stdout.String(), "session ") {
		t.Errorf("want 3 sessions:\n%s", stdout.String())
	}
}

// TestLiveNotATerminal: bare mcpsnoop without a terminal prints the newest
// sessions (--history-limit of them) of the state directory and
// $MCPSNOOP_LOG_DIR, and exits 0; a negative limit and a limit given to the
// shim are usage errors.
func TestLiveNotATerminal(t *testing.T) {
	home, envDir := t.TempDir(), t.TempDir()
	t.Setenv("MCPSNOOP_HOME", home)
	t.Setenv("MCPSNOOP_LOG_DIR", envDir)
	var stdout, stderr bytes.Buffer
	if code := run(nil, strings.NewReader(""), &stdout, &stderr); code != 0 || stdout.Len() != 0 || !strings.Contains(stderr.String(), "no session logs in") {
		t.Fatalf("empty state dir: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
	dir := filepath.Join(home, "sessions")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"store-example.jsonl", "mrtr.jsonl", "elicit.jsonl"} {
		data, err := os.ReadFile("../../fixtures/" + name)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if name == "elicit.jsonl" {
			p = filepath.Join(envDir, name)
		}
		os.WriteFile(p, data, 0o600)
		mod := time.Now().Add(time.Duration(i-10) * time.Minute)
		os.Chtimes(p, mod, mod)
	}
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"--history-limit", "2"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	out := stdout.String()
	if !strings.HasPrefix(out, "session demo (booking, stdio)") || !strings.Contains(out, "\nsession elicit (accounts, stdio)") || strings.Contains(out, "store-example") {
		t.Errorf("the two newest sessions, oldest first:\n%s", out)
	}
	if !strings.Contains(stderr.String(), "not a terminal") {
		t.Errorf("stderr: %q", stderr.String())
	}
	for _, args := range [][]string{{"--history-limit", "-1"}, {"--history-limit", "5", "--", "true"}} {
		stdout.Reset()
		stderr.Reset()
		if code := run(args, strings.NewReader(""), &stdout, &stderr); code != 2 || stdout.Len() != 0 || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, stdout.String(), stderr.String())
		}
	}
	// Flags of the shim without a command are still the shim's usage error.
	stderr.Reset()
	if code := run([]string{"--label", "x"}, strings.NewReader(""), &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "no server command to run") {
		t.Errorf("--label without a command: exit %d, %q", code, stderr.String())
	}
}

// TestDemoNotATerminal records the demo through the real HTTP proxy and
// prints check's report for it: exit 0 although the demo's failing calls
// fail the gate.
func TestDemoNotATerminal(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv("MCPSNOOP_HOME", filepath.Join(tmp, "never-used"))
	old := demoSlow
	demoSlow = 300 * time.Millisecond
	defer func() { demoSlow = old }()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"demo"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	out := stdout.String()
	if !strings.HasPrefix(out, "session demo-") || !strings.Contains(out, ": errors=2 invalid=0 warnings=0 mismatches=0 pending=0") || !strings.HasSuffix(out, "check failed: error\nresult: 1 of 1 session failed the gate (error)\n") {
		t.Errorf("report:\n%s", out)
	}
	logs, _ := filepath.Glob(filepath.Join(tmp, "mcpsnoop-demo-*", "sessions", "demo-*.jsonl"))
	if len(logs) != 1 || !strings.Contains(stderr.String(), "the session log is "+logs[0]) {
		t.Fatalf("logs %v; stderr %s", logs, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(tmp, "never-used")); err == nil {
		t.Error("the demo wrote into the real state directory")
	}
	// check says the same of the log the demo kept.
	var check bytes.Buffer
	run([]string{"check", "--baseline", filepath.Join(tmp, "bl"), logs[0]}, strings.NewReader(""), &check, &stderr)
	if check.String() != out {
		t.Errorf("check prints\n%s\ndemo printed\n%s", check.String(), out)
	}
	// What the help and the guide say the demo does is what it did: nine
	// requests (the calls the viewer counts), six of them tool calls.
	eng := checker.New(checker.Config{})
	if err := ingestInput(eng, capture.Input{Path: logs[0], Name: logs[0]}, nil); err != nil {
		t.Fatal(err)
	}
	rep := eng.Report()
	toolCalls := 0
	for _, tool := range rep.Sessions[0].Tools {
		toolCalls += tool.Calls
	}
	if rep.Sessions[0].Calls != 9 || toolCalls != 6 {
		t.Errorf("the demo made %d requests, %d of them tool calls; its help and the guide say 9 and 6", rep.Sessions[0].Calls, toolCalls)
	}
	guide, _ := os.ReadFile(filepath.Join("..", "..", "docs", "guides", "viewer.md"))
	demo, _, _ := newRootCmd(strings.NewReader(""), io.Discard, io.Discard).Find([]string{"demo"})
	for name, text := range map[string]string{"demo --help": demo.Long, "docs/guides/viewer.md": string(guide)} {
		text = strings.Join(strings.Fields(text), " ")
		if !strings.Contains(text, "nine requests, the 9 calls the viewer's header counts") || !strings.Contains(text, "six tool calls") {
			t.Errorf("%s does not say the demo's nine requests and six tool calls", name)
		}
	}
	// The stream holds the slow call and the two failures.
	var stream bytes.Buffer
	run([]string{"open", "--filter", "kind:resp tool:history", logs[0]}, strings.NewReader(""), &stream, &stderr)
	if !strings.Contains(stream.String(), "tools/call  history  8  ok") {
		t.Errorf("the slow call:\n%s", stream.String())
	}
}
