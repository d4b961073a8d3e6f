package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// check --write-known and --known, round trip: the file written accepts
// every finding; a new finding fails the check again; a finding that went
// away is stale and fails it until the file is rewritten.
func TestCheckKnownRoundTrip(t *testing.T) {
	t.Setenv("MCPSNOOP_HOME", t.TempDir())
	dir := t.TempDir()
	data, err := os.ReadFile(fixture(t, "store-example.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	log, known := filepath.Join(dir, "run.jsonl"), filepath.Join(dir, "known.txt")
	writeFile(t, log, data)

	// It wrote the file: exit 0, though the findings fail this run's gate.
	code, stdout, stderr := checkRun(t, "", "--write-known", known, log)
	if code != 0 || stderr != "" || !strings.Contains(stdout, "check failed: error,invalid,warn") {
		t.Fatalf("--write-known: exit %d\n%s%s", code, stdout, stderr)
	}
	file, _ := os.ReadFile(known)
	entries := strings.Count(string(file), `"server.py" # mcpsnoop/`)
	if entries < 5 || !strings.Contains(string(file), `# mcpsnoop/error tools/call fail: tools/call fail (id 7) ended in an error: Invalid params (code -32602)`) {
		t.Fatalf("known file (%d entries):\n%s", entries, file)
	}

	// Accepted: the check passes, counters unchanged, findings are notes.
	report := filepath.Join(dir, "r.json")
	code, stdout, _ = checkRun(t, "", "--known", known, "--json", report, log)
	if code != 0 || !strings.Contains(stdout, "session store-example: errors=1 invalid=1 warnings=3 ") || !strings.HasSuffix(stdout, "\ncheck passed\n") {
		t.Fatalf("--known: exit %d\n%s", code, stdout)
	}
	if strings.Contains(stdout, "store-example.jsonl:") {
		t.Errorf("accepted findings are listed as failing:\n%s", stdout)
	}
	var doc struct {
		Known    struct{ Entries, Matched, Accepted int } `json:"known"`
		Findings []struct {
			Level string `json:"level"`
			Known bool   `json:"known"`
		} `json:"findings"`
	}
	raw, _ := os.ReadFile(report)
	json.Unmarshal(raw, &doc)
	if doc.Known.Matched != entries || doc.Known.Accepted < entries {
		t.Errorf("known summary %+v, %d entries", doc.Known, entries)
	}
	for _, f := range doc.Findings {
		if f.Level == "error" && f.Known {
			t.Errorf("a known finding at level error: %+v", f)
		}
	}
	_, sarif, _ := checkRun(t, "", "--known", known, "--format", "sarif", log)
	if strings.Contains(sarif, `"level": "error"`) || !strings.Contains(sarif, `"mcpsnoop/known": true`) {
		t.Errorf("SARIF with --known: an error level, or no known property")
	}

	// A new finding: an answer to nothing, appended.
	more := `{"session_id":"store-example","server_label":"server.py","seq":40,"ts":"2026-03-02T10:00:02Z","direction":"s2c","transport":"stdio","raw":{"jsonrpc":"2.0","id":999,"result":{}}}` + "\n"
	writeFile(t, log, append(append([]byte(nil), data...), more...))
	code, stdout, _ = checkRun(t, "", "--known", known, log)
	if code != 1 || !strings.Contains(stdout, "run.jsonl:26: warn/W24 [server]: response id has no matching request\n") || !strings.Contains(stdout, "check failed: warn\n") {
		t.Errorf("a new finding: exit %d\n%s", code, stdout)
	}

	// A finding gone: the stray line is no longer written. Its entry is
	// stale.
	var kept []string
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if !strings.Contains(l, "this is not json") {
			kept = append(kept, l)
		}
	}
	fixed := strings.Join(kept, "")
	if fixed == string(data) {
		t.Fatal("the fixture's stray line moved")
	}
	writeFile(t, log, []byte(fixed))
	code, stdout, _ = checkRun(t, "", "--known", known, log)
	if code != 1 || !strings.Contains(stdout, `of server "server.py" no longer occurs (mcpsnoop/invalid: frame on the protocol channel is not valid JSON-RPC); drop it from the file, or rewrite the file with --write-known`) ||
		!strings.HasSuffix(stdout, "result: 1 known finding no longer occurs (stale); 7 known findings accepted\n") {
		t.Errorf("a stale entry: exit %d\n%s", code, stdout)
	}
	// Rewritten, it has no stale entry, and the check passes again.
	code, _, _ = checkRun(t, "", "--known", known, "--write-known", known, log)
	rewritten, _ := os.ReadFile(known)
	if code != 0 || strings.Contains(string(rewritten), "mcpsnoop/invalid") || strings.Count(string(rewritten), "\n") != strings.Count(string(file), "\n")-1 {
		t.Errorf("rewritten (exit %d):\n%s\nwas:\n%s", code, rewritten, file)
	}
	if code, stdout, _ := checkRun(t, "", "--known", known, log); code != 0 {
		t.Errorf("after the rewrite: exit %d\n%s", code, stdout)
	}

	// Bad files and flags.
	writeFile(t, filepath.Join(dir, "bad.txt"), []byte("# ok\nnot-a-fingerprint\n"))
	code, stdout, stderr = checkRun(t, "", "--known", filepath.Join(dir, "bad.txt"), log)
	assertUsageFailure(t, code, stdout, stderr, "bad.txt: line 2: \"not-a-fingerprint\" is not a fingerprint")
	code, stdout, stderr = checkRun(t, "", "--known", filepath.Join(dir, "missing.txt"), log)
	assertUsageFailure(t, code, stdout, stderr, "--known: ")
	code, stdout, stderr = checkRun(t, "", "--write-known", log, log)
	assertUsageFailure(t, code, stdout, stderr, "--write-known "+log+" would overwrite the input")
}
