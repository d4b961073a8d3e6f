package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The action's known input: a committed file of accepted findings lets a
// capture with a known failure pass, and the new finding of a later capture
// fail the job.
func TestActionKnownInput(t *testing.T) {
	t.Parallel() // waits for the action's build, like the other action tests
	f := newActionFixture(t)
	known := filepath.Join(f.workspace, ".mcpsnoop", "known.txt")
	if err := os.MkdirAll(filepath.Dir(known), 0o755); err != nil {
		t.Fatal(err)
	}
	write := exec.Command(f.binary, "check", "--write-known", known, "logs/traced")
	write.Dir = f.workspace
	write.Env = append(os.Environ(), "MCPSNOOP_HOME="+t.TempDir())
	if out, err := write.CombinedOutput(); err != nil || !strings.Contains(string(out), "check failed: error") {
		t.Fatalf("check --write-known: %v\n%s", err, out)
	}

	res, _ := f.run(t, map[string]string{"session": "logs/traced", "known": ".mcpsnoop/known.txt", "upload-sarif": "false"})
	if res.Failed {
		t.Fatalf("a known finding failed the job:\n%s", res.Log)
	}
	wantOutputsEqual(t, res, map[string]string{"outcome": "passed", "exit-code": "0", "errors": "1"})
	if !strings.Contains(res.Log, "::notice file=logs/traced/github-97145-6513269e0d37.jsonl,line=8,title=mcpsnoop/error [server]::") {
		t.Errorf("the known finding is not a notice:\n%s", res.Log)
	}

	// A new capture of the same run with a second failure: it fails.
	data, _ := os.ReadFile(filepath.Join(f.workspace, "logs/traced/github-97145-6513269e0d37.jsonl"))
	extra := `{"session_id":"github-97145-6513269e0d37","server_label":"github","seq":20,"ts":"2026-08-01T16:20:42Z","direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","id":77,"error":{"code":-32603,"message":"rate limited"}}}` + "\n"
	writeFile(t, filepath.Join(f.workspace, "logs/traced/github-97145-6513269e0d37.jsonl"), append(data, extra...))
	res, _ = f.run(t, map[string]string{"session": "logs/traced", "known": ".mcpsnoop/known.txt", "upload-sarif": "false"})
	if !res.Failed || !strings.Contains(res.Log, "error response could not be matched to a call") {
		t.Errorf("a new finding passed:\n%s", res.Log)
	}
	// The new error and its warning; the accepted error is not counted.
	wantOutputsEqual(t, res, map[string]string{"outcome": "findings", "exit-code": "1", "errors": "2", "warnings": "1", "findings": "2"})
}
