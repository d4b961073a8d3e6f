//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpsnoop/mcpsnoop/internal/shellquote"
)

// The action's verify mode, run offline like the check mode: the action's
// own build of mcpsnoop replays a recording committed in the workspace
// against a server command (run by bash), files the SARIF, writes the
// summary, and fails the job on a regression, after the upload.
func TestActionVerifyMode(t *testing.T) {
	t.Parallel()
	t.Log("the action in verify mode: records with the shim, replays against a changed build")
	f := newActionFixture(t)
	v1, v2 := replayServerBins(t)
	if err := os.MkdirAll(filepath.Join(f.workspace, "recordings"), 0o755); err != nil {
		t.Fatal(err)
	}
	recordSession(t, filepath.Join(f.workspace, "recordings"))

	t.Run("same build", func(t *testing.T) {
		// Only the changed build's slow tool (a second) is timed: no test
		// bounds how fast a loaded machine replays.
		res, uploads := f.run(t, map[string]string{"mode": "verify", "recording": "recordings/recording.jsonl", "server-command": shellQuote(v1),
			"verify-args": "--duration-threshold=1h\n  --call-timeout=1m  \n"})
		if res.Failed {
			t.Fatalf("the job failed:\n%s", res.Log)
		}
		wantOutputsEqual(t, res, map[string]string{"outcome": "passed", "exit-code": "0"})
		// A category of its own: a check's upload (category mcpsnoop) would
		// otherwise replace the verify's alerts, and the other way round.
		if len(uploads) != 1 || uploads[0].file != res.Outputs["sarif"] || uploads[0].category != "mcpsnoop-verify" ||
			!bytes.Contains(uploads[0].data, []byte("mcpsnoop/verify-not-replayed")) {
			t.Fatalf("uploads %+v", uploads)
		}
		if !filepath.IsAbs(res.Outputs["junit"]) || res.step("Gate on the check").Outcome != "skipped" {
			t.Errorf("junit %q, gate %s", res.Outputs["junit"], res.step("Gate on the check").Outcome)
		}
		// The verdict heading of check mode, the server command as bash
		// gets it, and the report's target line quoted as a shell reads it.
		want := "## ✅ mcpsnoop verify: passed\n\nReplayed `recordings/recording.jsonl` against the server command (run by bash in `" + f.workspace + "`):\n\n" +
			"    " + shellQuote(v1) + "\n\n" +
			"    mcpsnoop verify recordings/recording.jsonl (session "
		if !strings.Contains(res.Log, "verify passed: 6 same, 1 not replayed") || !strings.HasPrefix(res.Summary, want) ||
			!strings.Contains(res.Summary, ") -> bash -c "+shellquote.Word(shellQuote(v1))+"\n") {
			t.Errorf("log:\n%s\nsummary:\n%s\nwant it to start\n%s", res.Log, res.Summary, want)
		}
	})

	for _, tc := range []struct {
		name    string
		fail    string
		slower  string // fail-on-slower
		want    bool
		summary string
	}{
		{"changed build", "", "true", true, "    verify failed: 1 changed, 1 error now, 1 slower, 1 not offered, 1 tool change\n"},
		{"changed build, fail-on-findings false", "false", "", false, "    verify failed: 1 changed, 1 error now, 1 not offered, 1 tool change; not gated: 1 slower\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := map[string]string{"mode": "verify", "recording": "recordings/recording.jsonl", "server-command": shellQuote(v2), "ignore": "$.result.structuredContent.nonce\n\n"}
			if tc.fail != "" {
				in["fail-on-findings"] = tc.fail
			}
			if tc.slower != "" {
				in["fail-on-slower"] = tc.slower
			}
			res, uploads := f.run(t, in)
			if res.Failed != tc.want {
				t.Fatalf("job failed = %v:\n%s", res.Failed, res.Log)
			}
			wantOutputsEqual(t, res, map[string]string{"outcome": "findings", "exit-code": "1"})
			up, gate := res.index("upload"), res.index("Gate on the check")
			if len(uploads) != 1 || res.Steps[up].Outcome != "success" || up > gate || uploads[0].category != "mcpsnoop-verify" ||
				!bytes.Contains(uploads[0].data, []byte("mcpsnoop/verify-changed")) {
				var categories []string
				for _, u := range uploads {
					categories = append(categories, u.category)
				}
				t.Fatalf("upload step %d (uploads in categories %q), gate step %d", up, categories, gate)
			}
			if tc.want && !strings.Contains(res.Log, "::error title=mcpsnoop::the verify failed: the replay found a regression") {
				t.Errorf("log:\n%s", res.Log)
			}
			if !strings.HasPrefix(res.Summary, "## ❌ mcpsnoop verify: findings\n") || !strings.Contains(res.Summary, tc.summary) {
				t.Errorf("summary:\n%s", res.Summary)
			}
		})
	}

	// A build that only got slower (echo now sleeps two seconds, a delay
	// of the server's own) passes, the slower tool in the summary; with
	// fail-on-slower the job fails on it.
	for _, tc := range []struct {
		slower  string
		failed  bool
		outcome string
		summary string
	}{
		{"", false, "passed", "    verify passed: 6 same, 1 not replayed; not gated: 1 slower\n"},
		{"true", true, "findings", "    verify failed: 1 slower\n"},
	} {
		t.Run("slower build, fail-on-slower "+tc.slower, func(t *testing.T) {
			in := map[string]string{"mode": "verify", "recording": "recordings/recording.jsonl", "server-command": "REPLAYSERVER_DELAY=echo=2s " + shellQuote(v1)}
			if tc.slower != "" {
				in["fail-on-slower"] = tc.slower
			}
			res, _ := f.run(t, in)
			if res.Failed != tc.failed || res.Outputs["outcome"] != tc.outcome || !strings.Contains(res.Summary, tc.summary) ||
				!strings.Contains(res.Summary, "\n      slower: tools/call echo ") {
				t.Fatalf("failed %v, outputs %v:\n%s\nsummary:\n%s", res.Failed, res.Outputs, res.Log, res.Summary)
			}
		})
	}

	t.Run("nothing verified", func(t *testing.T) {
		for _, in := range []map[string]string{
			{"mode": "verify", "recording": "recordings/nope.jsonl", "server-command": shellQuote(v1), "fail-on-findings": "false"},
			{"mode": "verfiy", "recording": "recordings/recording.jsonl"},
			{"mode": "verify", "recording": "recordings/recording.jsonl", "server-command": shellQuote(v1), "fail-on-slower": "sometimes"},
		} {
			res, uploads := f.run(t, in)
			if !res.Failed || res.step("Gate on the check").Outcome != "failure" || len(uploads) != 0 {
				t.Fatalf("%v: failed %v, %d uploads:\n%s", in, res.Failed, len(uploads), res.Log)
			}
			wantOutputsEqual(t, res, map[string]string{"outcome": "error", "exit-code": "2", "sarif": ""})
			if in["mode"] == "verify" && !strings.HasPrefix(res.Summary, "## ⚠️ mcpsnoop verify: error\n") {
				t.Errorf("%v: summary:\n%s", in, res.Summary)
			}
		}
	})
}

// How the verify inputs become mcpsnoop verify's arguments, pinned with a
// stand-in binary that records them.
func TestActionVerifyInputMapping(t *testing.T) {
	t.Parallel()
	f := newActionFixture(t)
	argsFile := filepath.Join(t.TempDir(), "args")
	fake := filepath.Join(t.TempDir(), "mcpsnoop")
	writeFile(t, fake, []byte("#!/usr/bin/env bash\nprintf '%s\\n' \"$@\" > \""+argsFile+"\"\nexit 1\n"))
	if err := os.Chmod(fake, 0o755); err != nil {
		t.Fatal(err)
	}
	f.binary = fake
	res, _ := f.run(t, map[string]string{
		"mode": " verify ", "recording": " recs/a b.jsonl ", "server-command": "node build/index.js --port 0",
		"ignore": "$.result.x\n\n  $..when  \n", "verify-args": "--all\n--replay-header=Authorization: Bearer s3cret",
		"junit": "false", "summary": "false", "fail-on-findings": "false", "fail-on-slower": " true ",
	})
	data, err := os.ReadFile(argsFile)
	if err != nil {
		t.Fatalf("the stand-in never ran: %v\n%s", err, res.Log)
	}
	got := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(got) < 4 {
		t.Fatalf("args %q", got)
	}
	want := []string{"verify", "--yes", "--sarif", got[3], "--fail-on-slower", "--ignore", "$.result.x", "--ignore", "$..when",
		"--all", "--replay-header=Authorization: Bearer s3cret", "recs/a b.jsonl", "--", "bash", "-c", "node build/index.js --port 0"}
	if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("args:\n got %q\nwant %q", got, want)
	}
	wantOutputsEqual(t, res, map[string]string{"exit-code": "1", "outcome": "findings", "junit": ""})
	if res.Failed || res.Summary != "" {
		t.Errorf("failed %v (fail-on-findings false), summary %q", res.Failed, res.Summary)
	}
}
